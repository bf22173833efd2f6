package kubectl

import (
	"errors"

	"github.com/spf13/pflag"
)

// This file owns the commands that need a container's process, filesystem
// or port, or a local listener: in a sandbox whose Pods are simulated each
// says in one sentence why it cannot, and what to use instead, and exits 1
// without asking the server.

// unavailable are those commands and their sentences.
var unavailable = map[string]string{
	"exec":         "kubectl exec cannot run a command here: the sandbox's Pods are simulated and run no processes; use `kubectl logs POD` to read what a container printed and `kubectl describe pod POD` for its state",
	"attach":       "kubectl attach cannot attach here: the sandbox's Pods are simulated and run no processes; use `kubectl logs -f POD` to follow a container's output",
	"port-forward": "kubectl port-forward cannot forward a port here: nothing listens in the sandbox's simulated Pods; use `kubectl describe service NAME` or `kubectl get endpointslices` to see where traffic would go",
	"cp":           "kubectl cp cannot copy files here: the sandbox's simulated Pods have no filesystems; put the content in a ConfigMap (`kubectl create configmap NAME --from-file=FILE`) and mount it",
	"proxy":        "kubectl proxy cannot listen here: the page's kubectl has no local port to serve; the API is already reachable, e.g. `kubectl get --raw /api/v1/namespaces`",
	"debug":        "kubectl debug cannot start a debugging container here: the sandbox's Pods are simulated and run no processes; use `kubectl describe pod POD` and `kubectl logs POD` instead",
}

func init() {
	for name, sentence := range unavailable {
		register(name, func(fs *pflag.FlagSet) runFunc {
			fs.ParseErrorsWhitelist.UnknownFlags = true
			return func(*Cmd, []string) error { return errors.New(sentence) }
		})
	}
}

package kubectl

// This file owns kubectl run: the Pod its generator builds (in the Go
// type's field order: --image, --restart, --labels, --env, --port,
// --command or arguments after "--"), POSTed as JSON with fieldManager
// kubectl-run, as kubectl sends it. Attaching (-i, -t,
// --rm) is not here.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

func init() {
	register("run", func(fs *pflag.FlagSet) runFunc {
		image := fs.String("image", "", "The image for the container to run.")
		restart := fs.String("restart", "Always", "The restart policy for this Pod.  Legal values [Always, OnFailure, Never].")
		labels := fs.StringP("labels", "l", "", "Comma separated labels to apply to the pod. Will override previous values.")
		env := fs.StringArray("env", nil, "Environment variables to set in the container.")
		port := fs.String("port", "", "The port that this container exposes.")
		command := fs.Bool("command", false, "If true and extra arguments are present, use them as the 'command' field in the container, rather than the 'args' field which is the default.")
		pullPolicy := fs.String("image-pull-policy", "", "The image pull policy for the container.  If left empty, this value will not be specified by the client and defaulted by the server.")
		output := addPrintFlags(fs, false)
		dry := addDryRun(fs)
		fieldManager := fs.String("field-manager", "kubectl-run", "Name of the manager used to track field ownership.")
		return func(c *Cmd, args []string) error {
			if err := requireFlags(c, "image"); err != nil {
				return err
			}
			d, err := dry()
			if err != nil {
				return err
			}
			if len(args) == 0 {
				return errors.New("NAME is required for run\nSee 'kubectl run -h' for help and examples")
			}
			name := args[0]
			switch *restart {
			case "Always", "OnFailure", "Never":
			default:
				return fmt.Errorf("invalid restart policy: %s\nSee 'kubectl run -h' for help and examples", *restart)
			}
			switch *pullPolicy {
			case "", "Always", "IfNotPresent", "Never":
			default:
				return fmt.Errorf("invalid image pull policy: %s\nSee 'kubectl run -h' for help and examples", *pullPolicy)
			}
			podLabels := map[string]string{"run": name}
			if *labels != "" {
				if podLabels, err = parseLabelList(*labels); err != nil {
					return err
				}
			}
			ctr := ordered{{"name", name}, {"image", *image}}
			if rest := args[1:]; len(rest) > 0 {
				key := "args"
				if *command {
					key = "command"
				}
				ctr = append(ctr, member{key, rest})
			}
			if *port != "" {
				p, err := strconv.Atoi(*port)
				if err != nil {
					return err
				}
				if p >= 0 {
					ctr = append(ctr, member{"ports", []any{ordered{{"containerPort", p}}}})
				}
			}
			if len(*env) > 0 {
				var envs []any
				for _, e := range *env {
					k, v, ok := strings.Cut(e, "=")
					if !ok || k == "" {
						return fmt.Errorf("invalid env: %v", e)
					}
					envs = append(envs, ordered{{"name", k}, {"value", v}})
				}
				ctr = append(ctr, member{"env", envs})
			}
			ctr = append(ctr, member{"resources", ordered{}})
			if *pullPolicy != "" {
				ctr = append(ctr, member{"imagePullPolicy", *pullPolicy})
			}
			// The namespace is the object's only on a client dry run's print.
			ns := ""
			if d == dryRunClient {
				ns = c.Namespace
			}
			pod := ordered{{"kind", "Pod"}, {"apiVersion", "v1"}, {"metadata", objectMeta(name, ns, podLabels, nil, nil)},
				{"spec", ordered{{"containers", []any{ctr}}, {"restartPolicy", *restart}, {"dnsPolicy", "ClusterFirst"}}},
				{"status", ordered{}}}
			// kubectl maps the Pod's kind with discovery, even for a dry run.
			r, err := c.ResourceFor("v1", "Pod")
			if err != nil {
				return err
			}
			return c.createTyped(r, pod, name, d, *fieldManager, output, acceptTypedAny, "")
		}
	})
}

// parseLabelList parses "k=v,k2=v2" as kubectl's generators do.
func parseLabelList(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(pair, "=")
		if !ok || k == "" || strings.Contains(v, "=") {
			return nil, fmt.Errorf("invalid label spec: %v", pair)
		}
		out[k] = v
	}
	return out, nil
}

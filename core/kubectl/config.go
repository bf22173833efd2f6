package kubectl

// This file owns `kubectl config`: the kubeconfig the Env stands for (one
// cluster, user and context, all named kubeplay as the playground's
// kubeconfig names them, its server Env.Server, its namespace
// Env.Namespace) shown as kubectl shows it (view, current-context,
// get-contexts, get-clusters, get-users; its user has no credentials) and
// changed as kubectl changes it (set-context --current --namespace sets
// Env.Namespace; use-context).

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/pflag"
)

// kubeconfigName names the kubeconfig's cluster, user and context. Its
// user has no credentials: the Env's Handler is the sandbox's own.
const kubeconfigName = "kubeplay"

// configUsage is what `kubectl config` alone prints.
const configUsage = `Modify kubeconfig files using subcommands like "kubectl config set current-context my-context".

 The loading order follows these rules:

  1.  If the --kubeconfig flag is set, then only that file is loaded. The flag may only be set once and no merging takes place.
  2.  If $KUBECONFIG environment variable is set, then it is used as a list of paths (normal path delimiting rules for your system). These paths are merged. When a value is modified, it is modified in the file that defines the stanza. When a value is created, it is created in the first file that exists. If no files in the chain exist, then it creates the last file in the list.
  3.  Otherwise, ${HOME}/.kube/config is used and no merging takes place.

Available Commands:
  current-context   Display the current-context
  delete-cluster    Delete the specified cluster from the kubeconfig
  delete-context    Delete the specified context from the kubeconfig
  delete-user       Delete the specified user from the kubeconfig
  get-clusters      Display clusters defined in the kubeconfig
  get-contexts      Describe one or many contexts
  get-users         Display users defined in the kubeconfig
  rename-context    Rename a context from the kubeconfig file
  set               Set an individual value in a kubeconfig file
  set-cluster       Set a cluster entry in kubeconfig
  set-context       Set a context entry in kubeconfig
  set-credentials   Set a user entry in kubeconfig
  unset             Unset an individual value in a kubeconfig file
  use-context       Set the current-context in a kubeconfig file
  view              Display merged kubeconfig settings or a specified kubeconfig file

Usage:
  kubectl config SUBCOMMAND [options]

Use "kubectl config <command> --help" for more information about a given command.
Use "kubectl options" for a list of global command-line options (applies to all commands).
`

// kubeconfig is clientcmd's v1 Config, in its field order.
type kubeconfig struct {
	Kind           string              `json:"kind"`
	APIVersion     string              `json:"apiVersion"`
	Preferences    struct{}            `json:"preferences"`
	Clusters       []kubeconfigCluster `json:"clusters"`
	Users          []kubeconfigUser    `json:"users"`
	Contexts       []kubeconfigContext `json:"contexts"`
	CurrentContext string              `json:"current-context"`
}

type kubeconfigCluster struct {
	Name    string `json:"name"`
	Cluster struct {
		Server string `json:"server"`
	} `json:"cluster"`
}

type kubeconfigUser struct {
	Name string   `json:"name"`
	User struct{} `json:"user"`
}

type kubeconfigContext struct {
	Name    string `json:"name"`
	Context struct {
		Cluster   string `json:"cluster"`
		User      string `json:"user"`
		Namespace string `json:"namespace,omitempty"`
	} `json:"context"`
}

// kubeconfig is the Env's kubeconfig.
func (c *Cmd) kubeconfig() kubeconfig {
	k := kubeconfig{Kind: "Config", APIVersion: "v1", CurrentContext: kubeconfigName,
		Clusters: make([]kubeconfigCluster, 1), Users: make([]kubeconfigUser, 1), Contexts: make([]kubeconfigContext, 1)}
	k.Clusters[0].Name, k.Clusters[0].Cluster.Server = kubeconfigName, c.Env.Server
	k.Users[0].Name = kubeconfigName
	ctx := &k.Contexts[0]
	ctx.Name, ctx.Context.Cluster, ctx.Context.User, ctx.Context.Namespace = kubeconfigName, kubeconfigName, kubeconfigName, c.Env.Namespace
	return k
}

func init() {
	register("config", func(fs *pflag.FlagSet) runFunc {
		return func(c *Cmd, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unknown command %q\nSee 'kubectl config -h' for help and examples", args[0])
			}
			fmt.Fprint(c.Stderr, configUsage)
			return &exitError{code: 1, err: errSilent}
		}
	})
	register("config view", func(fs *pflag.FlagSet) runFunc {
		pf := addPrintFlags(fs, false)
		fs.Bool("raw", false, "Display raw byte data and sensitive data")
		fs.Bool("minify", false, "Remove all information not used by current-context from the output")
		fs.Bool("flatten", false, "Flatten the resulting kubeconfig file into self-contained output (useful for creating portable kubeconfig files)")
		return func(c *Cmd, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unexpected arguments: %v\nSee 'kubectl config view -h' for help and examples", args)
			}
			if pf.output == "" {
				pf.output = "yaml" // config view's default
			}
			p, err := pf.printer()
			if err != nil {
				return err
			}
			k := c.kubeconfig()
			data, err := json.Marshal(k)
			if err != nil {
				return err
			}
			if p.format == "json" {
				// kubectl prints the Config's fields in their order.
				data, err = json.MarshalIndent(k, "", "    ")
				if err != nil {
					return err
				}
				_, err = c.Stdout.Write(append(data, '\n'))
				return err
			}
			obj, err := decodeObject(data)
			if err != nil {
				return err
			}
			return p.print(c.Stdout, obj)
		}
	})
	register("config current-context", func(fs *pflag.FlagSet) runFunc {
		return func(c *Cmd, args []string) error {
			fmt.Fprintln(c.Stdout, kubeconfigName)
			return nil
		}
	})
	register("config get-contexts", func(fs *pflag.FlagSet) runFunc {
		output := fs.StringP("output", "o", "", "Output format. One of: (name).")
		noHeaders := fs.Bool("no-headers", false, "When using the default or custom-column output format, don't print headers (default print headers).")
		return func(c *Cmd, args []string) error {
			if *output != "" && *output != "name" {
				return fmt.Errorf("output must be one of '' or 'name': %v", *output)
			}
			var missing []string
			show := true
			for _, a := range args {
				if a != kubeconfigName {
					missing = append(missing, a)
					show = false
				}
			}
			if len(args) > 0 && len(missing) < len(args) {
				show = true
			}
			if *output == "name" {
				if show {
					fmt.Fprintln(c.Stdout, kubeconfigName)
				}
			} else {
				tw := newTabWriter(c.Stdout)
				if !*noHeaders {
					tw.WriteString("CURRENT\tNAME\tCLUSTER\tAUTHINFO\tNAMESPACE\n")
				}
				if show {
					fmt.Fprintf(tw, "*\t%s\t%s\t%s\t%s\n", kubeconfigName, kubeconfigName, kubeconfigName, c.Env.Namespace)
				}
				tw.Flush()
			}
			if len(missing) > 0 {
				errs := make([]error, len(missing))
				for i, m := range missing {
					errs[i] = fmt.Errorf("context %s not found", m)
				}
				return errorList(errs).reduce()
			}
			return nil
		}
	})
	register("config get-clusters", func(fs *pflag.FlagSet) runFunc {
		return func(c *Cmd, args []string) error {
			fmt.Fprintf(c.Stdout, "NAME\n%s\n", kubeconfigName)
			return nil
		}
	})
	register("config get-users", func(fs *pflag.FlagSet) runFunc {
		return func(c *Cmd, args []string) error {
			fmt.Fprintf(c.Stdout, "NAME\n%s\n", kubeconfigName)
			return nil
		}
	})
	register("config use-context", func(fs *pflag.FlagSet) runFunc {
		return func(c *Cmd, args []string) error {
			if len(args) != 1 {
				return errors.New("Unexpected args: " + fmt.Sprint(args))
			}
			if args[0] != kubeconfigName {
				return fmt.Errorf("no context exists with the name: %q", args[0])
			}
			fmt.Fprintf(c.Stdout, "Switched to context %q.\n", kubeconfigName)
			return nil
		}
	})
	register("config set-context", func(fs *pflag.FlagSet) runFunc {
		current := fs.Bool("current", false, "Modify the current context")
		// --namespace is the global flag's, as set-context's own shadows it.
		return func(c *Cmd, args []string) error {
			name := ""
			if len(args) > 0 {
				name = args[0]
			}
			if *current {
				if name != "" {
					return errors.New("you cannot specify both a context name and --current")
				}
				name = kubeconfigName
			}
			if name == "" {
				return errors.New("you must specify a non-empty context name or --current")
			}
			if name != kubeconfigName {
				return fmt.Errorf("this kubectl has one context, %q: it cannot create context %q", kubeconfigName, name)
			}
			if c.fs.Changed("namespace") {
				c.Env.Namespace = c.Namespace
			}
			fmt.Fprintf(c.Stdout, "Context %q modified.\n", name)
			return nil
		}
	})
}

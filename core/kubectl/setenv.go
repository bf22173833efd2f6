package kubectl

// This file owns kubectl set env: environment variables of a workload's
// containers set from KEY=VALUE arguments and -e, removed with KEY-, or
// referenced from each key of a ConfigMap or Secret (--from, --keys,
// --prefix); --list prints them instead. The change is sent as set image's
// is (changeTemplates: the two-way strategic merge patch, env merged by
// name as in the Pod's schema).

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// invalidEnvChars are the characters a ConfigMap or Secret key may have and
// a variable name made from it may not: each becomes "_".
var invalidEnvChars = regexp.MustCompile(`[^A-Za-z0-9_]`)

// envVarNameRE is a valid environment variable name.
var envVarNameRE = regexp.MustCompile(`^[-._a-zA-Z][-._a-zA-Z0-9]*$`)

func init() {
	register("set env", func(fs *pflag.FlagSet) runFunc {
		var sel selection
		sel.files.add(fs, "the resource to update the env")
		fs.StringVarP(&sel.selector, "selector", "l", "", "Selector (label query) to filter on")
		fs.BoolVar(&sel.all, "all", false, "If true, select all resources in the namespace of the specified resource types")
		containers := fs.StringP("containers", "c", "*", "The names of containers in the selected pod templates to change - may use wildcards")
		from := fs.String("from", "", "The name of a resource from which to inject environment variables")
		prefix := fs.String("prefix", "", "Prefix to append to variable names")
		envParams := fs.StringArrayP("env", "e", nil, "Specify a key-value pair for an environment variable to set into each container.")
		keys := fs.StringSlice("keys", nil, "Comma-separated list of keys to import from specified resource")
		list := fs.Bool("list", false, "If true, display the environment and any changes in the standard format. this flag will removed when we have kubectl view env.")
		fs.Bool("resolve", false, "If true, show secret or configmap references when listing variables")
		overwrite := fs.Bool("overwrite", true, "If true, allow environment to be overwritten, otherwise reject updates that overwrite existing environment.")
		output := addPrintFlags(fs, false)
		dry := addDryRun(fs)
		fieldManager := fs.String("field-manager", "kubectl-set", "Name of the manager used to track field ownership.")
		return func(c *Cmd, args []string) error {
			if sel.all && sel.selector != "" {
				return errors.New("cannot set --all and --selector at the same time")
			}
			resources, envArgs, ok := splitEnvArgs(args)
			if !ok {
				return fmt.Errorf("all resources must be specified before environment changes: %s", strings.Join(args, " "))
			}
			d, err := dry()
			if err != nil {
				return err
			}
			switch {
			case len(sel.files.Filenames) == 0 && len(resources) == 0:
				return errors.New("one or more resources must be specified as <resource> <name> or <resource>/<name>")
			case *list && output.output != "":
				return errors.New("--list and --output may not be specified together")
			case len(*keys) > 0 && *from == "":
				return errors.New("when specifying --keys, a configmap or secret must be provided with --from")
			}
			env, remove, err := parseEnv(append(append([]string(nil), *envParams...), envArgs...), c.Stdin)
			if err != nil {
				return err
			}
			if *from != "" {
				refs, err := c.envFrom(*from, *keys)
				if err != nil {
					return err
				}
				env = append(env, refs...)
			}
			if *prefix != "" {
				for _, e := range env {
					e["name"] = *prefix + e.name()
				}
			}

			found, fetchErrs, err := c.fetchTargets(sel, resources)
			if err != nil {
				return err
			}
			change := func(t *target) error {
				obj := t.Object
				spec := podSpecOf(obj)
				cs, _ := spec["containers"].([]any)
				matched := 0
				for _, ci := range cs {
					ctr, _ := ci.(map[string]any)
					if ok, _ := path.Match(*containers, stringAt(ctr, "name")); !ok {
						continue
					}
					matched++
					existing, _ := ctr["env"].([]any)
					if !*overwrite {
						if err := noOverwrites(existing, env); err != nil {
							return namedError{fmt.Errorf("error: %s/%s %v", t.Resource.Resource, t.Name, err)}
						}
					}
					if updated := updateEnv(existing, env, remove); len(updated) > 0 {
						ctr["env"] = updated
					} else {
						delete(ctr, "env")
					}
					if *list {
						printEnv(c.Stdout, obj, ctr)
					}
				}
				if matched == 0 {
					fmt.Fprintf(c.Stderr, "Warning: %s/%s does not have any containers matching %q\n", obj["kind"], t.Name, *containers)
				}
				return nil
			}
			if *list {
				for _, t := range found {
					if err := change(t); err != nil {
						return err
					}
				}
				return fetchErrs.reduce()
			}
			return c.changeTemplates(found, fetchErrs, *fieldManager, d, output, change, func(t *target, changed bool) (string, error) {
				if !changed {
					return "", nil
				}
				return "env updated", nil
			})
		}
	})
}

// splitEnvArgs splits set env's arguments into the resources, first, and
// the environment changes after them (KEY=VALUE, KEY-); false when a
// resource follows a change.
func splitEnvArgs(args []string) (resources, env []string, ok bool) {
	first := true
	for _, s := range args {
		isEnv := strings.Contains(s, "=") || strings.HasSuffix(s, "-")
		switch {
		case first && isEnv:
			first = false
			env = append(env, s)
		case first:
			resources = append(resources, s)
		case isEnv:
			env = append(env, s)
		default:
			return nil, nil, false
		}
	}
	return resources, env, true
}

// envVar is one entry of a container's env, as JSON.
type envVar map[string]any

func (e envVar) name() string             { s, _ := e["name"].(string); return s }
func (e envVar) set(k string, v any)      { e[k] = v }
func newEnvVar(name, value string) envVar { return envVar{"name": name, "value": value} }

// parseEnv reads the changes: KEY=VALUE sets, KEY- removes, and "-" reads
// KEY=VALUE lines from stdin.
func parseEnv(spec []string, stdin io.Reader) ([]envVar, []string, error) {
	var env []envVar
	var remove []string
	usedStdin := false
	for _, s := range spec {
		switch {
		case s == "-":
			if usedStdin {
				return nil, nil, errors.New("can only use '-' once")
			}
			usedStdin = true
			lines := bufio.NewScanner(stdin)
			for lines.Scan() {
				line := lines.Text()
				if k, v, ok := strings.Cut(line, "="); ok && k != "" {
					if !envVarNameRE.MatchString(k) {
						return nil, nil, fmt.Errorf("%q is not a valid key name: %s", k, envNameRule)
					}
					env = append(env, newEnvVar(k, v))
				} else if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "#") {
					return nil, nil, fmt.Errorf("invalid environment variable: %v", line)
				}
			}
		case strings.Contains(s, "="):
			k, v, _ := strings.Cut(s, "=")
			if !envVarNameRE.MatchString(k) {
				return nil, nil, fmt.Errorf("%q is not a valid key name: %s", k, envNameRule)
			}
			env = append(env, newEnvVar(k, v))
		case strings.HasSuffix(s, "-"):
			remove = append(remove, strings.TrimSuffix(s, "-"))
		default:
			return nil, nil, fmt.Errorf("unknown environment variable: %v", s)
		}
	}
	// A variable set twice keeps its last value.
	var out []envVar
	seen := map[string]int{}
	for _, e := range env {
		if i, ok := seen[e.name()]; ok {
			out[i] = e
			continue
		}
		seen[e.name()] = len(out)
		out = append(out, e)
	}
	return out, remove, nil
}

// envNameRule is the rule a variable name breaks.
const envNameRule = "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"

// envFrom is a variable for each key of the ConfigMap or Secret from names
// (only keys, if any), referring to it; kubectl warns of each key whose
// name had to change. Keys come in their sorted order (kubectl's is a Go
// map's, which varies from run to run).
func (c *Cmd) envFrom(from string, keys []string) ([]envVar, error) {
	found, errs, err := c.fetchTargets(selection{}, []string{from})
	if err != nil {
		return nil, err
	}
	if err := errs.reduce(); err != nil {
		return nil, err
	}
	var out []envVar
	for _, t := range found {
		var ref string
		switch t.Object["kind"] {
		case "ConfigMap":
			ref = "configMapKeyRef"
		case "Secret":
			ref = "secretKeyRef"
		default:
			return nil, errors.New("unsupported resource specified in --from")
		}
		data, _ := t.Object["data"].(map[string]any)
		names := make([]string, 0, len(data))
		for k := range data {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, key := range names {
			if len(keys) > 0 && !containsString(keys, key) {
				continue
			}
			name := strings.ToUpper(invalidEnvChars.ReplaceAllString(key, "_"))
			if name != key {
				fmt.Fprintf(c.Stderr, "Warning: key %s transferred to %s\n", key, name)
			}
			out = append(out, envVar{"name": name, "valueFrom": map[string]any{ref: map[string]any{"key": key, "name": t.Name}}})
		}
	}
	return out, nil
}

// noOverwrites refuses a change of a variable that has a value, for
// --overwrite=false.
func noOverwrites(existing []any, env []envVar) error {
	for _, e := range env {
		for _, x := range existing {
			cur, _ := x.(map[string]any)
			if cur["name"] == e.name() && stringAt(cur, "value") != stringAt(e, "value") {
				return fmt.Errorf("'%s' already has a value (%s), and --overwrite is false", e.name(), stringAt(cur, "value"))
			}
		}
	}
	return nil
}

// updateEnv is a container's env after the change: existing variables in
// their places (a new value taking an old one's), the removed ones gone,
// the new ones after them.
func updateEnv(existing []any, env []envVar, remove []string) []any {
	covered := map[string]bool{}
	for _, r := range remove {
		covered[r] = true
	}
	byName := map[string]envVar{}
	for _, e := range env {
		byName[e.name()] = e
	}
	var out []any
	for _, x := range existing {
		cur, _ := x.(map[string]any)
		name, _ := cur["name"].(string)
		if covered[name] {
			continue
		}
		if e, ok := byName[name]; ok {
			covered[name] = true
			out = append(out, map[string]any(e))
			continue
		}
		out = append(out, x)
	}
	for _, e := range env {
		if covered[e.name()] {
			continue
		}
		covered[e.name()] = true
		out = append(out, map[string]any(e))
	}
	return out
}

// printEnv is --list's: a container's variables, those from a reference
// as a comment naming it.
func printEnv(w io.Writer, obj, ctr map[string]any) {
	fmt.Fprintf(w, "# %s %s, container %s\n", obj["kind"], stringAt(obj, "metadata", "name"), stringAt(ctr, "name"))
	env, _ := ctr["env"].([]any)
	for _, x := range env {
		e, _ := x.(map[string]any)
		from, _ := e["valueFrom"].(map[string]any)
		if from == nil {
			fmt.Fprintf(w, "%s=%s\n", stringAt(e, "name"), stringAt(e, "value"))
			continue
		}
		fmt.Fprintf(w, "# %s from %s\n", stringAt(e, "name"), envRefString(from))
	}
}

// envRefString says where a variable's value comes from, as kubectl's
// --list says it.
func envRefString(from map[string]any) string {
	if r, ok := from["configMapKeyRef"].(map[string]any); ok {
		return fmt.Sprintf("configmap %s, key %s", stringAt(r, "name"), stringAt(r, "key"))
	}
	if r, ok := from["secretKeyRef"].(map[string]any); ok {
		return fmt.Sprintf("secret %s, key %s", stringAt(r, "name"), stringAt(r, "key"))
	}
	if r, ok := from["fieldRef"].(map[string]any); ok {
		return fmt.Sprintf("field path %s", stringAt(r, "fieldPath"))
	}
	if r, ok := from["resourceFieldRef"].(map[string]any); ok {
		s := "resource " + stringAt(r, "resource")
		if n := stringAt(r, "containerName"); n != "" {
			s = fmt.Sprintf("resource %s, container %s", stringAt(r, "resource"), n)
		}
		return s
	}
	return "invalid valueFrom"
}

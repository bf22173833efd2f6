package kubectl

// This file owns the commands that change a workload's pod template or
// rollout in place (set image, set env in setenv.go; rollout restart,
// pause, resume): every
// object fetched first, changed in memory as kubectl's polymorphic helpers
// change its Go object, and sent as the two-way strategic merge patch from
// before to after (kubectl's CalculatePatches), with each command's
// outcome. The patch's strategies are those of the few fields these
// changes touch (containers merged by name), which kubectl knows from its
// compiled-in types: no OpenAPI read, as kubectl reads none.

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// podTemplateSchema is the patch metadata of the fields a pod template's
// changes touch, for every workload kind: a Pod's spec, a template's, a
// CronJob's job template's. Containers and their env are merged by name.
var podTemplateSchema = func() patchSchema {
	const byName = `"x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"name"`
	const containers = `{` + byName + `,"items":{"properties":{"env":{` + byName + `,"items":{}}}}}`
	const podSpec = `{"properties":{"containers":` + containers + `,"initContainers":` + containers + `}}`
	const meta = `{"properties":{"annotations":{},"labels":{}}}`
	const template = `{"properties":{"metadata":` + meta + `,"spec":` + podSpec + `}}`
	const doc = `{"properties":{"spec":{"properties":{"paused":{},"template":` + template +
		`,"jobTemplate":{"properties":{"spec":{"properties":{"template":` + template + `}}}},"containers":` + containers +
		`,"initContainers":` + containers + `}}}}`
	var s map[string]any
	if err := json.Unmarshal([]byte(doc), &s); err != nil {
		panic(err)
	}
	return patchSchema{schema: s}
}()

// podSpecOf is the pod spec within a workload: a Pod's own, a template's,
// a CronJob's job template's; nil for other kinds.
func podSpecOf(obj map[string]any) map[string]any {
	spec, _ := obj["spec"].(map[string]any)
	switch obj["kind"] {
	case "Pod":
		return spec
	case "CronJob":
		jt, _ := spec["jobTemplate"].(map[string]any)
		spec, _ = jt["spec"].(map[string]any)
	case "Deployment", "DaemonSet", "ReplicaSet", "StatefulSet", "ReplicationController", "Job":
	default:
		return nil
	}
	tmpl, _ := spec["template"].(map[string]any)
	ps, _ := tmpl["spec"].(map[string]any)
	return ps
}

// templateChange is one command's change of a fetched object (t.Object): an
// error leaves it unchanged.
type templateChange func(t *target) error

// namedError is a change's error that names its object itself (set env's
// "error: deployments/web …").
type namedError struct{ error }

// fetchTargets is the objects the arguments name, each fetched, and the
// errors of those that could not be (kubectl's Infos()).
func (c *Cmd) fetchTargets(sel selection, args []string) ([]*target, errorList, error) {
	targets, errs, err := c.selectTargets(sel, args)
	if err != nil {
		return nil, nil, err
	}
	var found []*target
	for _, t := range targets {
		if _, err := c.latest(t, acceptTypedAny); err != nil {
			errs = append(errs, err)
			continue
		}
		found = append(found, t)
	}
	return found, errs, nil
}

// changeTemplates sends each fetched object's change, after errs (those
// that could not be fetched); outcome says what to print for an object
// patched, or unchanged (with changed false), and an error instead.
func (c *Cmd) changeTemplates(found []*target, errs errorList, fieldManager string, d dryRun, output *printFlags,
	change templateChange, outcome func(t *target, changed bool) (string, error)) error {
	for _, t := range found {
		before, err := json.Marshal(t.Object)
		if err != nil {
			return err
		}
		if err := change(t); err != nil {
			if ne, ok := err.(namedError); ok {
				errs = append(errs, ne.error)
			} else {
				errs = append(errs, fmt.Errorf("error: %s %q %v", t.Resource.GroupResource(), t.Name, err))
			}
			continue
		}
		after, err := json.Marshal(t.Object)
		if err != nil {
			return err
		}
		var b, a map[string]any
		json.Unmarshal(before, &b)
		json.Unmarshal(after, &a)
		diff, err := diffObjects(b, a, podTemplateSchema, diffOptions{})
		if err != nil {
			return err
		}
		verb, err := outcome(t, len(diff) > 0)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if verb == "" {
			continue
		}
		result := t.Object
		if len(diff) > 0 && d != dryRunClient {
			patch, _ := json.Marshal(diff)
			data, err := c.Do(&Request{Method: "PATCH", Path: t.Resource.Path(t.Namespace, t.Name), Query: d.query(fieldManager, ""),
				Header: [][2]string{{"Accept", acceptTypedAny}, {"Content-Type", "application/strategic-merge-patch+json"}}, Body: patch})
			if err != nil {
				errs = append(errs, fmt.Errorf("failed to patch: %v", err))
				continue
			}
			if result, err = decodeObject(data); err != nil {
				return err
			}
		}
		if err := c.printResult(output, t.Resource, result, t.Name, verb, d); err != nil {
			errs = append(errs, err)
		}
	}
	return errs.reduce()
}

func init() {
	register("set image", func(fs *pflag.FlagSet) runFunc {
		var sel selection
		sel.files.add(fs, "Filename, directory, or URL to files identifying the resource to get from a server.")
		fs.StringVarP(&sel.selector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2,key3 in (value3)). Matching objects must satisfy all of the specified label constraints.")
		fs.BoolVar(&sel.all, "all", false, "Select all resources, in the namespace of the specified resource types")
		output := addPrintFlags(fs, false)
		dry := addDryRun(fs)
		fieldManager := fs.String("field-manager", "kubectl-set", "Name of the manager used to track field ownership.")
		return func(c *Cmd, args []string) error {
			d, err := dry()
			if err != nil {
				return err
			}
			var resources []string
			images := map[string]string{}
			var names []string
			for _, a := range args {
				if name, image, ok := cutPair(a); ok {
					images[name] = image
					names = append(names, name)
				} else if len(images) == 0 {
					resources = append(resources, a)
				}
			}
			// kubectl fetches the objects before it checks the arguments.
			found, fetchErrs, err := c.fetchTargets(sel, resources)
			if err != nil {
				return err
			}
			if err := fetchErrs.reduce(); err != nil {
				return err
			}
			switch {
			case len(resources) == 0 && len(sel.files.Filenames) == 0:
				return errors.New("one or more resources must be specified as <resource> <name> or <resource>/<name>")
			case len(images) == 0:
				return errors.New("at least one image update is required")
			case len(images) > 1 && images["*"] != "":
				return errors.New("all containers are already specified by *, but saw more than one container_name=container_image pairs")
			}
			var notFound errorList
			change := func(t *target) error {
				spec := podSpecOf(t.Object)
				for _, name := range names {
					found := setImage(spec, "initContainers", name, images[name])
					found = setImage(spec, "containers", name, images[name]) || found
					if !found {
						notFound = append(notFound, fmt.Errorf("error: unable to find container named %q", name))
					}
				}
				return nil
			}
			err = c.changeTemplates(found, nil, *fieldManager, d, output, change, func(t *target, changed bool) (string, error) {
				if !changed {
					return "", nil
				}
				return "image updated", nil
			})
			var all errorList
			all = append(all, notFound...)
			if list, ok := err.(errorList); ok {
				all = append(all, list...)
			} else if err != nil {
				all = append(all, err)
			}
			return all.reduce()
		}
	})
	rollout := func(verb string, do func(obj map[string]any) error, outcome func(t *target, changed bool) (string, error)) {
		register("rollout "+verb, func(fs *pflag.FlagSet) runFunc {
			var sel selection
			sel.files.add(fs, "Filename, directory, or URL to files identifying the resource to get from a server.")
			fs.StringVarP(&sel.selector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2,key3 in (value3)). Matching objects must satisfy all of the specified label constraints.")
			output := addPrintFlags(fs, false)
			fieldManager := fs.String("field-manager", "kubectl-rollout", "Name of the manager used to track field ownership.")
			return func(c *Cmd, args []string) error {
				if len(args) == 0 && len(sel.files.Filenames) == 0 {
					return fmt.Errorf("required resource not specified")
				}
				found, errs, err := c.fetchTargets(sel, args)
				if err != nil {
					return err
				}
				return c.changeTemplates(found, errs, *fieldManager, dryRunNone, output, func(t *target) error { return do(t.Object) }, outcome)
			}
		})
	}
	rollout("pause", func(obj map[string]any) error {
		spec, err := rolloutSpec(obj, "pausing")
		if err != nil {
			return err
		}
		if spec["paused"] == true {
			return errors.New("is already paused")
		}
		spec["paused"] = true
		return nil
	}, func(t *target, changed bool) (string, error) {
		if !changed {
			return "already paused", nil
		}
		return "paused", nil
	})
	rollout("resume", func(obj map[string]any) error {
		spec, err := rolloutSpec(obj, "resuming")
		if err != nil {
			return err
		}
		if spec["paused"] != true {
			return errors.New("is not paused")
		}
		delete(spec, "paused")
		return nil
	}, func(t *target, changed bool) (string, error) {
		if !changed {
			return "already resumed", nil
		}
		return "resumed", nil
	})
	rollout("restart", func(obj map[string]any) error {
		spec, _ := obj["spec"].(map[string]any)
		switch obj["kind"] {
		case "Deployment", "DaemonSet", "StatefulSet":
		default:
			return fmt.Errorf("restarting is not supported")
		}
		if spec["paused"] == true {
			return errors.New("can't restart paused deployment (run rollout resume first)")
		}
		tmpl, _ := spec["template"].(map[string]any)
		meta, _ := tmpl["metadata"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
			tmpl["metadata"] = meta
		}
		a, _ := meta["annotations"].(map[string]any)
		if a == nil {
			a = map[string]any{}
			meta["annotations"] = a
		}
		a["kubectl.kubernetes.io/restartedAt"] = time.Now().Format(time.RFC3339)
		return nil
	}, func(t *target, changed bool) (string, error) {
		if !changed {
			return "", fmt.Errorf("failed to create patch for %v: if restart has already been triggered within the past second, please wait before attempting to trigger another", t.Name)
		}
		return "restarted", nil
	})
}

// rolloutSpec is a Deployment's spec, which pause and resume change.
func rolloutSpec(obj map[string]any, doing string) (map[string]any, error) {
	if obj["kind"] != "Deployment" {
		return nil, fmt.Errorf("%s is not supported", doing)
	}
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		obj["spec"] = spec
	}
	return spec, nil
}

// cutPair splits "NAME=IMAGE".
func cutPair(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '=' {
			return s[:i], s[i+1:], i > 0
		}
	}
	return "", "", false
}

// setImage sets the image of the container named name ("*": every one)
// in spec's list, and says whether it found one.
func setImage(spec map[string]any, list, name, image string) bool {
	containers, _ := spec[list].([]any)
	found := false
	for _, c := range containers {
		m, _ := c.(map[string]any)
		if name == "*" || m["name"] == name {
			m["image"] = image
			found = true
		}
	}
	return found
}

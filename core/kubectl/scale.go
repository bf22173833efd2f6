package kubectl

// This file owns kubectl scale: every object named fetched first, then
// each one's scale subresource patched ({"spec":{"replicas":N}} as a JSON
// merge patch, as kubectl's scale client sends it), or, with
// --current-replicas, read and replaced with that precondition checked;
// "kind/name scaled".

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/spf13/pflag"
)

// scaleAccept is what kubectl's scale client accepts.
const scaleAccept = acceptTypedAny

func init() {
	register("scale", func(fs *pflag.FlagSet) runFunc {
		var sel selection
		sel.files.add(fs, "Filename, directory, or URL to files identifying the resource to set a new size")
		fs.StringVarP(&sel.selector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2,key3 in (value3)). Matching objects must satisfy all of the specified label constraints.")
		fs.BoolVar(&sel.all, "all", false, "Select all resources in the namespace of the specified resource types")
		replicas := fs.Int("replicas", -1, "The new desired number of replicas. Required.")
		current := fs.Int("current-replicas", -1, "Precondition for current size. Requires that the current size of the resource match this value in order to scale. -1 (default) for no condition.")
		output := addPrintFlags(fs, false)
		dry := addDryRun(fs)
		return func(c *Cmd, args []string) error {
			if err := requireFlags(c, "replicas"); err != nil {
				return err
			}
			d, err := dry()
			if err != nil {
				return err
			}
			if *replicas < 0 {
				return errors.New("The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0")
			}
			if *current < -1 {
				return errors.New("The --current-replicas must specify an integer of -1 or greater")
			}
			if len(args) == 0 && len(sel.files.Filenames) == 0 {
				return errors.New("You must provide one or more resources by argument or filename.")
			}
			targets, errs, err := c.selectTargets(sel, args)
			if err != nil {
				return err
			}
			var found []*target
			for _, t := range targets {
				if _, err := c.latest(t, "application/json"); err != nil {
					errs = append(errs, err)
					continue
				}
				found = append(found, t)
			}
			if len(found) == 0 {
				if err := errs.reduce(); err != nil {
					return fmt.Errorf("no objects passed to scale %v", err)
				}
				return errors.New("no objects passed to scale")
			}
			for _, t := range found {
				if d != dryRunClient {
					if err := c.scaleObject(t, *replicas, *current, d); err != nil {
						return err
					}
				}
				if err := c.printResult(output, t.Resource, t.Object, t.Name, "scaled", d); err != nil {
					return err
				}
			}
			return errs.reduce()
		}
	})
}

// scaleObject sets one object's replicas through its scale subresource.
func (c *Cmd) scaleObject(t *target, replicas, current int, d dryRun) error {
	path := t.Resource.Path(t.Namespace, t.Name) + "/scale"
	q := url.Values{}
	if current < 0 {
		if d == dryRunServer {
			q.Set("dryRun", "All")
		}
		body := fmt.Sprintf(`{"spec":{"replicas":%d}}`, replicas)
		_, err := c.Do(&Request{Method: "PATCH", Path: path, Query: q,
			Header: [][2]string{{"Accept", scaleAccept}, {"Content-Type", "application/merge-patch+json"}}, Body: []byte(body)})
		return err
	}
	data, err := c.Do(&Request{Method: "GET", Path: path, Header: [][2]string{{"Accept", scaleAccept}}})
	if err != nil {
		return err
	}
	scale, err := decodeObject(data)
	if err != nil {
		return err
	}
	spec, _ := scale["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		scale["spec"] = spec
	}
	if have, _ := spec["replicas"].(int64); int(have) != current {
		return fmt.Errorf("Expected replicas to be %d, was %d", current, have)
	}
	// autoscaling/v1's Scale as kubectl's scale client encodes it: in its
	// Go type's order, with no Content-Type.
	meta, _ := scale["metadata"].(map[string]any)
	status, _ := scale["status"].(map[string]any)
	st := ordered{{"replicas", numberOr(status["replicas"])}}
	if sel, ok := status["selector"]; ok {
		st = append(st, member{"selector", sel})
	}
	body, err := encodeObject(ordered{{"kind", scale["kind"]}, {"apiVersion", scale["apiVersion"]}, {"metadata", orderedMeta(meta)},
		{"spec", ordered{{"replicas", replicas}}}, {"status", st}})
	if err != nil {
		return err
	}
	if d == dryRunServer {
		q.Set("dryRun", "All")
	}
	_, err = c.Do(&Request{Method: "PUT", Path: path, Query: q, Header: [][2]string{{"Accept", scaleAccept}}, Body: body})
	return err
}

// numberOr is v, or 0 when it is absent.
func numberOr(v any) any {
	if v == nil {
		return 0
	}
	return v
}

// objectMetaOrder is metav1.ObjectMeta's fields in its Go type's order.
var objectMetaOrder = []string{"name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
	"creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences",
	"finalizers", "managedFields"}

// orderedMeta is an object's metadata in ObjectMeta's order.
func orderedMeta(meta map[string]any) ordered {
	out := ordered{}
	for _, k := range objectMetaOrder {
		if v, ok := meta[k]; ok {
			out = append(out, member{k, v})
		}
	}
	return out
}

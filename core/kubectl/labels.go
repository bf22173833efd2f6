package kubectl

// This file owns kubectl label and annotate: the objects found (select.go)
// and fetched one by one, the KEY=VALUE and KEY- changes made to their
// labels or annotations (--overwrite to change a value), and each sent as
// the JSON merge patch from the object before to the object after (an
// unchanged object's "{}" too), with kubectl's outcome: labeled, unlabeled,
// not labeled; annotated.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// metadataCommand is label's or annotate's words and messages.
type metadataCommand struct {
	name, field, noun string // "label", "labels", "label"
}

func init() {
	for _, m := range []metadataCommand{{"label", "labels", "label"}, {"annotate", "annotations", "annotation"}} {
		m := m
		register(m.name, func(fs *pflag.FlagSet) runFunc {
			var sel selection
			sel.files.add(fs, "Filename, directory, or URL to files identifying the resource to update the "+m.noun)
			fs.StringVarP(&sel.selector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2,key3 in (value3)). Matching objects must satisfy all of the specified label constraints.")
			fs.BoolVar(&sel.all, "all", false, "Select all resources, in the namespace of the specified resource types")
			overwrite := fs.Bool("overwrite", false, "If true, allow "+m.field+" to be overwritten, otherwise reject "+m.noun+" updates that overwrite existing "+m.field+".")
			output := addPrintFlags(fs, false)
			dry := addDryRun(fs)
			fieldManager := fs.String("field-manager", "kubectl-"+m.name, "Name of the manager used to track field ownership.")
			return func(c *Cmd, args []string) error {
				d, err := dry()
				if err != nil {
					return err
				}
				return c.runMetadata(m, sel, args, *overwrite, d, output, *fieldManager)
			}
		})
	}
}

func (c *Cmd) runMetadata(m metadataCommand, sel selection, args []string, overwrite bool, d dryRun, output *printFlags, fieldManager string) error {
	var resources, pairs []string
	for _, a := range args {
		pair := strings.Contains(a, "=") && a[0] != '=' || strings.HasSuffix(a, "-") && a != "-"
		switch {
		case pair:
			pairs = append(pairs, a)
		case len(pairs) > 0:
			return fmt.Errorf("all resources must be specified before %s changes: %s", m.noun, a)
		default:
			resources = append(resources, a)
		}
	}
	if sel.all && sel.selector != "" {
		return errors.New("cannot set --all and --selector at the same time")
	}
	if len(resources) == 0 && len(sel.files.Filenames) == 0 {
		return errors.New("one or more resources must be specified as <resource> <name> or <resource>/<name>")
	}
	set, remove, err := parsePairs(m, pairs)
	if err != nil {
		return err
	}
	targets, errs, err := c.selectTargets(sel, resources)
	if err != nil {
		return err
	}
	for _, t := range targets {
		if err := c.updateMetadata(m, t, set, remove, overwrite, d, output, fieldManager); err != nil {
			errs = append(errs, err)
		}
	}
	return errs.reduce()
}

// parsePairs reads the KEY=VALUE and KEY- arguments as label's or
// annotate's parser does.
func parsePairs(m metadataCommand, pairs []string) (map[string]string, []string, error) {
	set := map[string]string{}
	var remove, invalid []string
	for _, p := range pairs {
		switch {
		case strings.Contains(p, "=") && p[0] != '=':
			k, v, _ := strings.Cut(p, "=")
			if m.name == "label" && strings.Contains(v, "=") {
				return nil, nil, fmt.Errorf("invalid label spec: %v", p)
			}
			set[k] = v
		case strings.HasSuffix(p, "-") && p != "-":
			remove = append(remove, p[:len(p)-1])
		default:
			invalid = append(invalid, p)
		}
	}
	if len(invalid) > 0 {
		return nil, nil, fmt.Errorf("invalid %s format: %s", m.noun, strings.Join(invalid, ", "))
	}
	if len(set) == 0 && len(remove) == 0 {
		return nil, nil, fmt.Errorf("at least one %s update is required", m.noun)
	}
	var both []string
	for _, r := range remove {
		if _, ok := set[r]; ok {
			both = append(both, r)
		}
	}
	if len(both) > 0 {
		if m.name == "label" {
			return nil, nil, errors.New("can not both modify and remove a label in the same command")
		}
		return nil, nil, fmt.Errorf("can not both modify and remove the following annotation(s) in the same command: %s", strings.Join(both, ", "))
	}
	return set, remove, nil
}

// updateMetadata changes one object's labels or annotations.
func (c *Cmd) updateMetadata(m metadataCommand, t *target, set map[string]string, remove []string, overwrite bool, d dryRun, output *printFlags, fieldManager string) error {
	obj, err := c.latest(t, "application/json")
	if err != nil {
		return err
	}
	before, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	current, _ := meta[m.field].(map[string]any)
	if !overwrite {
		var conflicts []string
		for _, k := range sortedKeys(set) {
			if v, ok := current[k]; ok && v != set[k] {
				conflicts = append(conflicts, fmt.Sprintf("'%s' already has a value (%v)", k, v))
			}
		}
		if len(conflicts) > 0 {
			if m.name == "label" {
				msgs := make(errorList, len(conflicts))
				for i, c := range conflicts {
					msgs[i] = errors.New(c + ", and --overwrite is false")
				}
				return msgs.reduce()
			}
			return errors.New("--overwrite is false but found the following declared annotation(s): " + strings.Join(conflicts, "; "))
		}
	}
	if m.name == "label" && d != dryRunClient {
		for _, k := range remove {
			if _, ok := current[k]; !ok {
				fmt.Fprintf(c.Stdout, "label %q not found.\n", k)
			}
		}
	}
	updated := map[string]any{}
	for k, v := range current {
		updated[k] = v
	}
	for k, v := range set {
		updated[k] = v
	}
	for _, k := range remove {
		delete(updated, k)
	}
	meta[m.field] = updated
	after, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	verb := "annotated"
	if m.name == "label" {
		verb = "not labeled"
		if string(before) != string(after) {
			verb = "labeled"
			if !overwrite && len(after) < len(before) {
				verb = "unlabeled"
			}
		}
	}
	result := obj
	if d != dryRunClient {
		var b, a map[string]any
		json.Unmarshal(before, &b)
		json.Unmarshal(after, &a)
		patch, err := json.Marshal(mergeDiff(b, a))
		if err != nil {
			return err
		}
		q := d.query(fieldManager, "")
		data, err := c.Do(&Request{Method: "PATCH", Path: t.Resource.Path(t.Namespace, t.Name), Query: q,
			Header: [][2]string{{"Accept", "application/json"}, {"Content-Type", "application/merge-patch+json"}}, Body: patch})
		if err != nil {
			return err
		}
		if result, err = decodeObject(data); err != nil {
			return err
		}
	}
	return c.printResult(output, t.Resource, result, t.Name, verb, d)
}

package kubectl

// This file owns kubectl patch: each object named (or read from -f)
// fetched, then sent the -p patch (YAML or JSON, sent as JSON) as a
// strategic merge (the default), JSON merge or JSON patch, with
// fieldManager kubectl-patch; "patched", or "patched (no change)" when the
// answer is the object as it was.

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode"

	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"
)

// patchContentTypes are --type's patch types.
var patchContentTypes = map[string]string{
	"json":      "application/json-patch+json",
	"merge":     "application/merge-patch+json",
	"strategic": "application/strategic-merge-patch+json",
}

func init() {
	register("patch", func(fs *pflag.FlagSet) runFunc {
		var files filenameFlags
		files.add(fs, "Filename, directory, or URL to files identifying the resource to update")
		patch := fs.StringP("patch", "p", "", "The patch to be applied to the resource JSON file.")
		typ := fs.String("type", "strategic", "The type of patch being provided; one of [json merge strategic]")
		subresource := fs.String("subresource", "", "If specified, patch will operate on the subresource of the requested object. Must be one of [status scale]. This flag is beta and may change in the future.")
		output := addPrintFlags(fs, false)
		dry := addDryRun(fs)
		fieldManager := fs.String("field-manager", "kubectl-patch", "Name of the manager used to track field ownership.")
		return func(c *Cmd, args []string) error {
			d, err := dry()
			if err != nil {
				return err
			}
			if *patch == "" {
				return errors.New("must specify --patch or --patch-file containing the contents of the patch")
			}
			contentType, ok := patchContentTypes[strings.ToLower(*typ)]
			if !ok {
				return fmt.Errorf("--type must be one of [json merge strategic], not %q", *typ)
			}
			if d == dryRunClient {
				return errors.New("--dry-run=client is not supported by this kubectl's patch")
			}
			// apimachinery's yaml.ToJSON: JSON objects as they are.
			body := []byte(*patch)
			if !bytes.HasPrefix(bytes.TrimLeftFunc(body, unicode.IsSpace), []byte("{")) {
				if body, err = yaml.YAMLToJSON(body); err != nil {
					return fmt.Errorf("unable to parse %q: %v", *patch, err)
				}
			}
			if len(args) == 0 && len(files.Filenames) == 0 {
				return errors.New("You must provide one or more resources by argument or filename.")
			}
			targets, errs, err := c.selectTargets(selection{files: files}, args)
			if err != nil {
				return err
			}
			for _, t := range targets {
				if err := c.patchObject(t, *subresource, contentType, body, d, output, *fieldManager); err != nil {
					errs = append(errs, err)
				}
			}
			if len(targets) == 0 && len(errs) == 0 {
				return errors.New("no objects passed to patch")
			}
			return errs.reduce()
		}
	})
}

func (c *Cmd) patchObject(t *target, subresource, contentType string, body []byte, d dryRun, output *printFlags, fieldManager string) error {
	name := t.Name
	if subresource != "" {
		name += "/" + subresource
	}
	path := t.Resource.Path(t.Namespace, name)
	before, err := c.fetchObject(t.Resource, t.Namespace, name, "application/json")
	if err != nil {
		return err
	}
	data, err := c.Do(&Request{Method: "PATCH", Path: path, Query: d.query(fieldManager, ""),
		Header: [][2]string{{"Accept", "application/json"}, {"Content-Type", contentType}}, Body: body})
	if err != nil {
		return err
	}
	was, err := decodeObject(before)
	if err != nil {
		return err
	}
	now, err := decodeObject(data)
	if err != nil {
		return err
	}
	verb := "patched"
	if reflect.DeepEqual(was, now) {
		verb = "patched (no change)"
	}
	// patch's outcome names no dry run.
	return c.printResult(output, t.Resource, now, t.Name, verb, dryRunNone)
}

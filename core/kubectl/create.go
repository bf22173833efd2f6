package kubectl

// This file owns kubectl create -f: each object of the files, read,
// validated, mapped and created in turn (a POST with fieldManager
// kubectl-create and fieldValidation=Strict), its outcome printed as it
// goes and the errors of those that failed after, as kubectl's
// ContinueOnError visitor reports them.

import (
	"errors"

	"github.com/spf13/pflag"
)

func init() {
	register("create", func(fs *pflag.FlagSet) runFunc {
		var files filenameFlags
		files.add(fs, "Filename, directory, or URL to files to use to create the resource")
		dry := addDryRun(fs)
		validate := addValidate(fs)
		output := addPrintFlags(fs, false)
		fieldManager := fs.String("field-manager", "kubectl-create", "Name of the manager used to track field ownership.")
		saveConfig := addSaveConfig(fs)
		return func(c *Cmd, args []string) error {
			if len(files.Filenames) == 0 {
				return errors.New("must specify one of -f and -k")
			}
			d, err := dry()
			if err != nil {
				return err
			}
			v, err := validate()
			if err != nil {
				return err
			}
			objs, streamErrs, err := c.readManifests(files)
			if err != nil {
				return err
			}
			var errs errorList
			for _, m := range objs {
				o, err := c.mapManifest(m, v)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				if err := saveLastApplied(o.Object, *saveConfig); err != nil {
					errs = append(errs, err)
					continue
				}
				if err := c.createObject(o, d, v, *fieldManager, output); err != nil {
					errs = append(errs, withSource("creating", o.Source, err))
				}
			}
			errs = append(errs, streamErrs...)
			if len(objs) == 0 && len(errs) == 0 {
				return errors.New("no objects passed to create")
			}
			return errs.reduce()
		}
	})
}

// createObject POSTs one object (unless the dry run is the client's) and
// prints its outcome.
func (c *Cmd) createObject(o mapped, d dryRun, v validation, fieldManager string, output *printFlags) error {
	result := o.Object
	if d != dryRunClient {
		var err error
		if result, err = c.postObject(o, d, v, fieldManager); err != nil {
			return err
		}
	}
	return c.printResult(output, o.Resource, result, nameOf(result, o.Name), "created", d)
}

// postObject creates one object: the server's answer.
func (c *Cmd) postObject(o mapped, d dryRun, v validation, fieldManager string) (map[string]any, error) {
	body, err := encodeObject(o.Object)
	if err != nil {
		return nil, err
	}
	data, err := c.Do(&Request{Method: "POST", Path: o.Resource.Path(o.Namespace, ""), Query: d.query(fieldManager, v),
		Header: [][2]string{{"Accept", "application/json"}, {"Content-Type", "application/json"}}, Body: body})
	if err != nil {
		return nil, err
	}
	return decodeObject(data)
}

// addSaveConfig declares --save-config.
func addSaveConfig(fs *pflag.FlagSet) *bool {
	return fs.Bool("save-config", false, "If true, the configuration of current object will be saved in its annotation. Otherwise, the annotation will be unchanged. This flag is useful when you want to perform kubectl apply on this object in the future.")
}

// saveLastApplied is kubectl's CreateOrUpdateAnnotation: with
// --save-config, or when the object already has one, its
// last-applied-configuration annotation is set to the object as it is.
func saveLastApplied(obj map[string]any, save bool) error {
	meta, _ := obj["metadata"].(map[string]any)
	a, _ := meta["annotations"].(map[string]any)
	if _, has := a[lastApplied]; !save && !has {
		return nil
	}
	value, err := modifiedConfiguration(obj, false)
	if err != nil {
		return err
	}
	annotations(obj)[lastApplied] = string(value)
	return nil
}

// nameOf is an object's metadata.name, else the fallback.
func nameOf(obj map[string]any, fallback string) string {
	meta, _ := obj["metadata"].(map[string]any)
	if n, ok := meta["name"].(string); ok && n != "" {
		return n
	}
	return fallback
}

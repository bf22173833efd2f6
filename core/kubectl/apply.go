package kubectl

// This file owns kubectl apply -f. Client-side (the default): every object
// read and mapped first, then each fetched; a missing one created with its
// kubectl.kubernetes.io/last-applied-configuration annotation, an existing
// one patched with the three-way patch (threeway.go) from the annotation,
// the file and the live object, "unchanged" when the patch is empty.
// --server-side: each object sent whole as an apply patch
// (application/apply-patch+yaml, fieldManager kubectl, force as
// --force-conflicts says), kubectl's advice printed on a conflict.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/spf13/pflag"

	"kubeplay/core/patch/lists"
)

// lastApplied is the annotation client-side apply keeps its configuration in.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// applyOptions are apply's flags.
type applyOptions struct {
	dry            dryRun
	validation     validation
	output         *printFlags
	serverSide     bool
	forceConflicts bool
	fieldManager   string
}

func init() {
	register("apply", func(fs *pflag.FlagSet) runFunc {
		var files filenameFlags
		files.add(fs, "The files that contain the configurations to apply.")
		dry := addDryRun(fs)
		validate := addValidate(fs)
		output := addPrintFlags(fs, false)
		serverSide := fs.Bool("server-side", false, "If true, apply runs in the server instead of the client.")
		force := fs.Bool("force-conflicts", false, "If true, server-side apply will force the changes against conflicts.")
		fieldManager := fs.String("field-manager", "kubectl-client-side-apply", "Name of the manager used to track field ownership.")
		return func(c *Cmd, args []string) error {
			d, err := dry()
			if err != nil {
				return err
			}
			v, err := validate()
			if err != nil {
				return err
			}
			o := applyOptions{dry: d, validation: v, output: output, serverSide: *serverSide, forceConflicts: *force, fieldManager: *fieldManager}
			if o.forceConflicts && !o.serverSide {
				return errors.New("--force-conflicts only works with --server-side")
			}
			if o.serverSide && !c.fs.Changed("field-manager") {
				o.fieldManager = "kubectl"
			}
			if len(files.Filenames) == 0 {
				return errors.New("must specify one of -f and -k")
			}
			objs, streamErrs, err := c.readManifests(files)
			if err != nil {
				return err
			}
			var errs errorList
			var mapped []mapped
			for _, m := range objs {
				obj, err := c.mapManifest(m, o.validation)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				mapped = append(mapped, obj)
			}
			errs = append(errs, streamErrs...)
			if len(objs) == 0 && len(errs) == 0 {
				return errors.New("no objects passed to apply")
			}
			// With -o (but name), apply prints the objects at the end: one,
			// or a List of them.
			var printed []any
			collect := o.output.output != "" && o.output.output != "name"
			for _, obj := range mapped {
				apply := c.applyClientSide
				if o.serverSide {
					apply = c.applyServerSide
				}
				result, verb, err := apply(obj, o)
				switch {
				case err != nil:
					errs = append(errs, err)
				case collect && !o.output.showManagedFields:
					printed = append(printed, withoutManagedFields(result))
				case collect:
					printed = append(printed, result)
				default:
					if err := c.printResult(o.output, obj.Resource, result, obj.Name, verb, o.dry); err != nil {
						errs = append(errs, err)
					}
				}
			}
			switch {
			case len(printed) == 1:
				err = c.printResult(o.output, Resource{}, printed[0], "", "", o.dry)
			case len(printed) > 1:
				// corev1.List, as its Go type orders it.
				list := ordered{{"kind", "List"}, {"apiVersion", "v1"}, {"metadata", ordered{}}, {"items", printed}}
				err = c.printResult(o.output, Resource{}, list, "", "", o.dry)
			}
			if err != nil {
				errs = append(errs, err)
			}
			return errs.reduce()
		}
	})
}

// encodeObject is an object as kubectl's encoders write it: JSON (a map's
// keys sorted) and a final newline.
func encodeObject(obj any) ([]byte, error) {
	var b bytes.Buffer
	err := json.NewEncoder(&b).Encode(obj)
	return b.Bytes(), err
}

// annotations is the object's annotations, the map made if it had none.
func annotations(obj map[string]any) map[string]any {
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	a, ok := meta["annotations"].(map[string]any)
	if !ok {
		a = map[string]any{}
		meta["annotations"] = a
	}
	return a
}

// modifiedConfiguration is kubectl's GetModifiedConfiguration: the object
// without its last-applied annotation, encoded, and set as that annotation
// (when annotate). The object is left with the annotation set to what it
// was ("" if none), as kubectl leaves it.
func modifiedConfiguration(obj map[string]any, annotate bool) ([]byte, error) {
	a := annotations(obj)
	original, _ := a[lastApplied].(string)
	delete(a, lastApplied)
	modified, err := encodeObject(obj)
	if err != nil {
		return nil, err
	}
	if annotate {
		a[lastApplied] = string(modified)
		if modified, err = encodeObject(obj); err != nil {
			return nil, err
		}
	}
	a[lastApplied] = original
	return modified, nil
}

// applyClientSide applies one object client-side: the object as the
// server has it after, and the outcome's verb.
func (c *Cmd) applyClientSide(o mapped, opt applyOptions) (map[string]any, string, error) {
	modified, err := modifiedConfiguration(o.Object, true)
	if err != nil {
		return nil, "", err
	}
	path := o.Resource.Path(o.Namespace, o.Name)
	data, err := c.fetchObject(o.Resource, o.Namespace, o.Name, "application/json")
	var se *StatusError
	if errors.As(err, &se) && se.Status.Reason == "NotFound" {
		// kubectl's CreateApplyAnnotation, then its pruning of nulls.
		annotation, err := modifiedConfiguration(o.Object, false)
		if err != nil {
			return nil, "", err
		}
		annotations(o.Object)[lastApplied] = string(annotation)
		lists.DiscardNulls(o.Object)
		if opt.dry == dryRunClient {
			return o.Object, "created", nil
		}
		result, err := c.postObject(o, opt.dry, opt.validation, opt.fieldManager)
		return result, "created", withSource("creating", o.Source, err)
	}
	if err != nil {
		return nil, "", err
	}
	if opt.dry == dryRunClient {
		return o.Object, "configured", nil
	}
	live, err := decodeObject(data)
	if err != nil {
		return nil, "", err
	}
	liveMeta, _ := live["metadata"].(map[string]any)
	liveAnnotations, _ := liveMeta["annotations"].(map[string]any)
	original, hasAnnotation := liveAnnotations[lastApplied].(string)
	if !hasAnnotation {
		fmt.Fprintf(c.Stderr, "Warning: resource %[1]s/%[2]s is missing the %[3]s annotation which is required by %[4]s apply. %[4]s apply should only be used on resources created declaratively by either %[4]s create --save-config or %[4]s apply. The missing annotation will be patched automatically.\n",
			o.Resource.Resource, o.Name, lastApplied, "kubectl")
	}
	current, err := encodeObject(live)
	if err != nil {
		return nil, "", err
	}
	schema, strategic, err := c.patchSchemaFor(o.Resource)
	if err != nil {
		return nil, "", err
	}
	var patch []byte
	contentType := "application/strategic-merge-patch+json"
	if strategic {
		patch, err = threeWayMergePatch([]byte(original), modified, current, schema)
	} else {
		// kubectl asks the OpenAPI v2 document next, which knows no
		// strategy for the kind either, and falls back to a merge patch.
		if err := c.readOpenAPIV2(); err != nil {
			return nil, "", err
		}
		contentType = "application/merge-patch+json"
		patch, err = threeWayJSONMergePatch([]byte(original), modified, current)
	}
	if err != nil {
		return nil, "", withSource(fmt.Sprintf("applying patch:\n%s\nto:\n%s\nfor:", patch, o.describe()), o.Source, err)
	}
	result := live
	if string(patch) != "{}" {
		data, err := c.Do(&Request{Method: "PATCH", Path: path, Query: opt.dry.query(opt.fieldManager, opt.validation),
			Header: [][2]string{{"Accept", "application/json"}, {"Content-Type", contentType}}, Body: patch})
		if err != nil {
			return nil, "", withSource(fmt.Sprintf("applying patch:\n%s\nto:\n%s\nfor:", patch, o.describe()), o.Source, err)
		}
		if result, err = decodeObject(data); err != nil {
			return nil, "", err
		}
		return result, "configured", nil
	}
	return result, "unchanged", nil
}

// describe is how kubectl prints a resource.Info in errors.
func (o mapped) describe() string {
	gv := o.Resource.GroupVersion()
	return fmt.Sprintf("Resource: %q, GroupVersionKind: %q\nName: %q, Namespace: %q",
		gv+", Resource="+o.Resource.Resource, gv+", Kind="+o.Resource.Kind, o.Name, o.Namespace)
}

// conflictAdvice is what kubectl adds to a server-side apply's conflict.
const conflictAdvice = `
Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the ` + "`--force-conflicts`" + ` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts`

// applyServerSide sends one object as an apply patch: the object as the
// server has it after, and the outcome's verb.
func (c *Cmd) applyServerSide(o mapped, opt applyOptions) (map[string]any, string, error) {
	body, err := encodeObject(o.Object)
	if err != nil {
		return nil, "", err
	}
	q := opt.dry.query(opt.fieldManager, opt.validation)
	q.Set("force", fmt.Sprint(opt.forceConflicts))
	data, err := c.Do(&Request{Method: "PATCH", Path: o.Resource.Path(o.Namespace, o.Name), Query: q,
		Header: [][2]string{{"Accept", "application/json"}, {"Content-Type", "application/apply-patch+yaml"}}, Body: body})
	var se *StatusError
	if errors.As(err, &se) && se.Status.Reason == "Conflict" {
		return nil, "", errors.New(se.Error() + conflictAdvice)
	}
	if err != nil {
		return nil, "", err
	}
	result, err := decodeObject(data)
	return result, "serverside-applied", err
}

// threeWayJSONMergePatch is apimachinery's CreateThreeWayJSONMergePatch,
// for kinds the server takes no strategic merge patch of (custom
// resources): the changes and additions from current to modified, and the
// deletions (nulls) from original to modified.
func threeWayJSONMergePatch(original, modified, current []byte) ([]byte, error) {
	maps, err := unmarshalDocuments(original, modified, current)
	if err != nil {
		return nil, err
	}
	changes := keepNulls(mergeDiff(maps[2], maps[1]), false)
	deletions := keepNulls(mergeDiff(maps[0], maps[1]), true)
	for _, k := range []string{"apiVersion", "kind"} {
		if _, ok := changes[k]; ok {
			return nil, errors.New("At least one of apiVersion, kind and name was changed")
		}
	}
	if m, ok := changes["metadata"].(map[string]any); ok {
		if _, ok := m["name"]; ok {
			return nil, errors.New("At least one of apiVersion, kind and name was changed")
		}
	}
	return json.Marshal(mergeInto(deletions, changes))
}

// mergeDiff is the JSON merge patch from a to b (evanphx/json-patch's
// CreateMergePatch): b's changed and added fields, and nulls for a's fields
// b lacks.
func mergeDiff(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, bv := range b {
		av, ok := a[k]
		am, aIsMap := av.(map[string]any)
		bm, bIsMap := bv.(map[string]any)
		switch {
		case ok && aIsMap && bIsMap:
			if d := mergeDiff(am, bm); len(d) > 0 {
				out[k] = d
			}
		case !ok || !reflect.DeepEqual(av, bv):
			out[k] = bv
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			out[k] = nil
		}
	}
	return out
}

// keepNulls is apimachinery's keepOrDeleteNullInJsonPatch: a merge patch's
// nulls alone (keep), or all but its nulls; an empty object is a value,
// kept with the rest.
func keepNulls(m map[string]any, keep bool) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		switch v := v.(type) {
		case nil:
			if keep {
				out[k] = nil
			}
		case map[string]any:
			if len(v) == 0 {
				if !keep {
					out[k] = v
				}
			} else if sub := keepNulls(v, keep); len(sub) > 0 {
				out[k] = sub
			}
		default:
			if !keep {
				out[k] = v
			}
		}
	}
	return out
}

// mergeInto applies a merge patch without nulls to another patch.
func mergeInto(doc, patch map[string]any) map[string]any {
	for k, pv := range patch {
		dm, dIsMap := doc[k].(map[string]any)
		pm, pIsMap := pv.(map[string]any)
		if dIsMap && pIsMap {
			doc[k] = mergeInto(dm, pm)
		} else {
			doc[k] = pv
		}
	}
	return doc
}

package kubectl

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/spf13/pflag"
)

// This file owns kubectl diff -f: each manifest's live object fetched and
// its merged form asked of the server as kubectl 1.32 asks it: a dry-run
// create when there is no live object; otherwise apply's client-side
// patch (the three-way patch from the last-applied annotation, the file's
// object unannotated and the live object, with the live resourceVersion)
// sent with dryRun=All, or with --server-side a dry-run apply patch. The
// comparison and its printing are unidiff.go's. Exit codes are kubectl
// diff's: 0 the same, 1 different, 2 (an error's 1, plus one) an error,
// which prints no diff at all.

func init() {
	register("diff", func(fs *pflag.FlagSet) runFunc {
		var files filenameFlags
		files.add(fs, "Filename, directory, or URL to files contains the configuration to diff")
		showManagedFields := fs.Bool("show-managed-fields", false, "If true, include managed fields in the diff.")
		fs.Int("concurrency", 1, "Number of objects to process in parallel when diffing against the live version. Larger number = faster, but more memory, I/O and CPU over that shorter period of time.")
		serverSide := fs.Bool("server-side", false, "If true, apply runs in the server instead of the client.")
		force := fs.Bool("force-conflicts", false, "If true, server-side apply will force the changes against conflicts.")
		fieldManager := fs.String("field-manager", "kubectl-client-side-apply", "Name of the manager used to track field ownership.")
		return func(c *Cmd, args []string) error {
			objs, err := c.diffObjects(files, *serverSide, *force, *fieldManager)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			return c.printDiff(objs, *showManagedFields)
		}
	})
}

// diffObjects reads the manifests and finds each one's live and merged
// forms; the first error ends it.
func (c *Cmd) diffObjects(files filenameFlags, serverSide, force bool, fieldManager string) ([]diffedObject, error) {
	if len(files.Filenames) == 0 {
		return nil, errors.New("must specify one of -f and -k")
	}
	if force && !serverSide {
		return nil, errors.New("--force-conflicts only works with --server-side")
	}
	if serverSide && !c.fs.Changed("field-manager") {
		fieldManager = "kubectl"
	}
	manifests, streamErrs, err := c.readManifests(files)
	if err != nil {
		return nil, err
	}
	var objs []diffedObject
	for _, m := range manifests {
		o, err := c.mapObject(m)
		if err != nil {
			return nil, err
		}
		d, err := c.diffObject(o, serverSide, force, fieldManager)
		if err != nil {
			return nil, err
		}
		objs = append(objs, d)
	}
	if len(streamErrs) > 0 {
		return nil, streamErrs[0]
	}
	return objs, nil
}

// diffObject is one object's live form (nil if none) and the server's
// dry-run answer of what applying it would make.
func (c *Cmd) diffObject(o mapped, serverSide, force bool, fieldManager string) (diffedObject, error) {
	// kubectl's file name: [group.]version.kind.namespace.name.
	d := diffedObject{name: o.Resource.Version + "." + o.Resource.Kind + "." + o.Namespace + "." + o.Name}
	if o.Resource.Group != "" {
		d.name = o.Resource.Group + "." + d.name
	}
	// kubectl's local copy: the file's object as the builder read it.
	local, err := encodeObject(o.Object)
	if err != nil {
		return d, err
	}
	data, err := c.fetchObject(o.Resource, o.Namespace, o.Name, "application/json")
	var se *StatusError
	switch {
	case errors.As(err, &se) && se.Status.Reason == "NotFound":
	case err != nil:
		return d, err
	default:
		if d.live, err = decodeObject(data); err != nil {
			return d, err
		}
	}
	header := [][2]string{{"Accept", "application/json"}, {"Content-Type", ""}}
	q := dryRunServer.query(fieldManager, "")
	var req *Request
	switch {
	case serverSide:
		q.Set("force", strconv.FormatBool(force))
		header[1][1] = "application/apply-patch+yaml"
		req = &Request{Method: "PATCH", Path: o.Resource.Path(o.Namespace, o.Name), Body: local}
	case d.live == nil:
		header[1][1] = "application/json"
		req = &Request{Method: "POST", Path: o.Resource.Path(o.Namespace, ""), Body: local}
	default:
		if req, err = c.diffPatch(o, d.live, header); err != nil {
			return d, err
		}
		if req == nil {
			// Nothing to patch: the merged object is the live one.
			d.merged = d.live
			return d, nil
		}
	}
	req.Query, req.Header = q, header
	if data, err = c.Do(req); err != nil {
		return d, err
	}
	d.merged, err = decodeObject(data)
	return d, err
}

// diffPatch is the dry-run PATCH of client-side diff (nil when the patch
// is empty), its content type set in header.
func (c *Cmd) diffPatch(o mapped, live map[string]any, header [][2]string) (*Request, error) {
	modified, err := modifiedConfiguration(o.Object, false)
	if err != nil {
		return nil, err
	}
	original, _ := obj(live, "metadata", "annotations")[lastApplied].(string)
	patch, contentType, err, patchErr := c.clientSidePatch(o, original, modified, live)
	if err != nil {
		return nil, err
	}
	if patchErr != nil {
		return nil, withSource("applying patch:\n"+string(patch)+"\nto:\n"+o.describe()+"\nfor:", o.Source, patchErr)
	}
	if string(patch) == "{}" {
		return nil, nil
	}
	// apply's Patcher with a resourceVersion: the patch holds the live
	// one, so that a change in between is a conflict.
	p, err := decodeObject(patch)
	if err != nil {
		return nil, err
	}
	meta, _ := p["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		p["metadata"] = meta
	}
	meta["resourceVersion"] = stringAt(live, "metadata", "resourceVersion")
	if patch, err = json.Marshal(p); err != nil {
		return nil, err
	}
	header[1][1] = contentType
	return &Request{Method: "PATCH", Path: o.Resource.Path(o.Namespace, o.Name), Body: patch}, nil
}

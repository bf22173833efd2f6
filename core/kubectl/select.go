package kubectl

// This file owns how kubectl's commands that act on existing objects find
// them, as its resource builder does: files (-f), TYPE NAME... or
// TYPE/NAME..., or TYPE with -l or --all (a list, whose items are the
// objects), in the namespace of -n or the context; and fetching one
// (kubectl's Latest()).

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// selection is the flags that choose objects besides the arguments.
type selection struct {
	files    filenameFlags
	selector string
	all      bool
}

// target is one object a command acts on.
type target struct {
	Resource  Resource
	Namespace string
	Name      string
	Source    string         // the file it was read from
	Object    map[string]any // as listed; nil when named
	UID       string         // delete's: from the DELETE's answer
}

// selectTargets is what the arguments name, with the errors of those that
// could not be found or read (kubectl goes on without them).
func (c *Cmd) selectTargets(o selection, args []string) ([]*target, errorList, error) {
	if len(o.files.Filenames) > 0 {
		objs, streamErrs, err := c.readManifests(o.files)
		if err != nil {
			return nil, nil, err
		}
		var targets []*target
		var errs errorList
		for _, m := range objs {
			obj, err := c.mapObject(m)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			targets = append(targets, &target{Resource: obj.Resource, Namespace: obj.Namespace, Name: obj.Name, Source: m.Source})
		}
		return targets, append(errs, streamErrs...), nil
	}
	if len(args) == 0 {
		return nil, nil, errors.New("You must provide one or more resources by argument or filename.")
	}
	ns := c.NamespaceOrDefault()
	// TYPE/NAME arguments.
	if strings.Contains(args[0], "/") {
		var targets []*target
		for _, a := range args {
			typ, name, ok := strings.Cut(a, "/")
			if !ok || name == "" {
				return nil, nil, fmt.Errorf("arguments in resource/name form must have a single resource and name")
			}
			r, err := c.Resolve(typ)
			if err != nil {
				return nil, nil, err
			}
			targets = append(targets, &target{Resource: r, Namespace: namespaceFor(r, ns), Name: name})
		}
		return targets, nil, nil
	}
	var resources []Resource
	for _, typ := range strings.Split(args[0], ",") {
		r, err := c.Resolve(typ)
		if err != nil {
			return nil, nil, err
		}
		resources = append(resources, r)
	}
	names := args[1:]
	if len(names) > 0 {
		if o.all || o.selector != "" {
			return nil, nil, errors.New("name cannot be provided when a selector is specified")
		}
		var targets []*target
		for _, r := range resources {
			for _, n := range names {
				targets = append(targets, &target{Resource: r, Namespace: namespaceFor(r, ns), Name: n})
			}
		}
		return targets, nil, nil
	}
	if !o.all && o.selector == "" {
		return nil, nil, errors.New("resource(s) were provided, but no name was specified")
	}
	var targets []*target
	for _, r := range resources {
		q := url.Values{}
		if o.selector != "" {
			q.Set("labelSelector", o.selector)
		}
		data, err := c.Do(&Request{Method: "GET", Path: r.Path(ns, ""), Query: q, Header: [][2]string{{"Accept", "application/json"}}})
		if err != nil {
			return nil, nil, err
		}
		list, err := decodeObject(data)
		if err != nil {
			return nil, nil, err
		}
		items, _ := list["items"].([]any)
		for _, it := range items {
			obj, _ := it.(map[string]any)
			meta, _ := obj["metadata"].(map[string]any)
			name, _ := meta["name"].(string)
			ns, _ := meta["namespace"].(string)
			targets = append(targets, &target{Resource: r, Namespace: ns, Name: name, Object: obj})
		}
	}
	return targets, nil, nil
}

// namespaceFor is ns for a namespaced resource, "" for another.
func namespaceFor(r Resource, ns string) string {
	if r.Namespaced {
		return ns
	}
	return ""
}

// latest is the object as the server has it now: a GET of a named object
// (kubectl's Latest()), the listed one as it came.
func (c *Cmd) latest(t *target, accept string) (map[string]any, error) {
	if t.Object != nil {
		return t.Object, nil
	}
	data, err := c.fetchObject(t.Resource, t.Namespace, t.Name, accept)
	if err != nil {
		return nil, err
	}
	obj, err := decodeObject(data)
	if err == nil {
		t.Object = obj
	}
	return obj, err
}

// fetchObject is kubectl's resource.Info Get: the object, and when a
// namespaced one is not found in a namespace other than default, its
// namespace, whose NotFound then is the error.
func (c *Cmd) fetchObject(r Resource, ns, name, accept string) ([]byte, error) {
	data, err := c.Do(&Request{Method: "GET", Path: r.Path(ns, name), Header: [][2]string{{"Accept", accept}}})
	var se *StatusError
	if errors.As(err, &se) && se.Status.Reason == "NotFound" && r.Namespaced && ns != "" && ns != "default" {
		// The namespace is read with the client that read the object: a
		// typed one (set, rollout) accepts acceptTypedAny, the
		// others "application/json".
		nsAccept := "application/json"
		if accept == acceptTypedAny {
			nsAccept = accept
		}
		_, nsErr := c.Do(&Request{Method: "GET", Path: "/api/v1/namespaces/" + ns, Header: [][2]string{{"Accept", nsAccept}}})
		var nse *StatusError
		if errors.As(nsErr, &nse) && nse.Status.Reason == "NotFound" {
			return nil, nsErr
		}
	}
	return data, err
}

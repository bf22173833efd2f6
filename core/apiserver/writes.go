package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/patch"
	"kubeplay/core/registry"
	"kubeplay/core/requestlog"
	"kubeplay/core/types"
	"kubeplay/core/user"
	"kubeplay/core/warning"
	"kubeplay/core/web"
)

// The writes: each decodes its request, has the registry do the write, and
// answers with what was stored.

// checkObjectNamespace applies the URL's namespace to the object.
func checkObjectNamespace(obj object.Object, t target) error {
	meta := object.Meta(obj)
	if !t.res.Namespaced {
		delete(meta, "namespace")
		return nil
	}
	if ns, _ := meta["namespace"].(string); ns != "" && ns != t.namespace {
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	meta["namespace"] = t.namespace
	return nil
}

// registryTarget is what the registry is asked to write for r: by r's user,
// its warnings r's.
func (t target) registryTarget(r *web.Request) registry.Target {
	u, _ := user.From(r.Context())
	return registry.Target{Res: t.res, Namespace: t.namespace, Name: t.name, Sub: t.sub, DryRun: t.dryRun, Manager: t.manager,
		User: u, Warn: func(text string) { warning.Add(r.Context(), text) }, Committed: requestlog.From(r.Context()).Committed}
}

func (s *Server) create(w web.ResponseWriter, r *web.Request, t target) error {
	obj, err := readObject(r, t.answerResource(), t.validation)
	if err != nil {
		return err
	}
	if t.sub == "" && t.res.Group == "" && t.res.Plural == "bindings" {
		// kube's legacy form of a Pod's binding: the Binding names the Pod.
		t.res, t.name, t.sub = s.kinds.Lookup("", "v1", "pods"), object.MetaString(obj, "name"), "binding"
	}
	if t.sub == "token" { // a service account's TokenRequest
		answer, err := s.store.CreateToken(t.registryTarget(r), obj)
		if err != nil {
			return err
		}
		t.rep.writeObject(w, web.StatusCreated, t.answerResource(), answer)
		return nil
	}
	if t.sub != "" { // a Pod's binding or eviction
		st, err := s.store.CreateSubresource(t.registryTarget(r), obj)
		if err != nil {
			return err
		}
		t.rep.sendStatus(w, st.Code, st)
		return nil
	}
	if err := checkObjectNamespace(obj, t); err != nil {
		return err
	}
	stored, err := s.store.Create(t.registryTarget(r), obj)
	if err != nil {
		return err
	}
	t.rep.writeObject(w, web.StatusCreated, t.res, stored)
	return nil
}

func (s *Server) update(w web.ResponseWriter, r *web.Request, t target) error {
	res := t.answerResource()
	obj, err := readObject(r, res, t.validation)
	if err != nil {
		return err
	}
	if err := checkURLName(obj, t); err != nil {
		return err
	}
	if err := checkObjectNamespace(obj, t); err != nil {
		return err
	}
	// A copy per attempt: the registry may run the update again on a newer object.
	stored, created, err := s.store.Update(t.registryTarget(r), func(old object.Object) (object.Object, error) {
		if old != nil && res.UpdateNeedsVersion && object.MetaString(obj, "resourceVersion") == "" {
			// kube names the resource, not the kind, and shows the version as a uint64.
			return nil, apierrors.NewInvalid(res.Group, res.Plural, t.name, field.ErrorList{
				field.Invalid(field.NewPath("metadata", "resourceVersion"), field.GoSyntax("0x0"), "must be specified for an update")})
		}
		return object.DeepCopy(obj), nil
	})
	if err != nil {
		return err
	}
	t.rep.writeObject(w, updatedCode(created), res, stored)
	return nil
}

func updatedCode(created bool) int {
	if created {
		return web.StatusCreated
	}
	return web.StatusOK
}

// patch has the registry update the object with the mechanism of the patch's
// type (core/patch; server-side apply in core/apply), then checks the patched
// object's namespace and name as kube's patch handler does.
func (s *Server) patch(w web.ResponseWriter, r *web.Request, t target) error {
	res := t.answerResource()
	pt, err := patch.ParseType(r.Header.Get("Content-Type"), types.Known(t.res.APIVersion(), t.res.Kind))
	if err != nil {
		return err
	}
	if st := t.parseWriteOptions(r, "patch", string(pt)); st != nil {
		return st
	}
	if pt == patch.ApplyYAML || pt == patch.ApplyCBOR {
		return s.apply(w, r, t, string(pt))
	}
	body, err := readBody(r)
	if err != nil {
		return err
	}
	mechanism := patch.New(r.Context(), pt, body, res.APIVersion(), res.Kind, t.validation)
	stored, created, err := s.store.Update(t.registryTarget(r), func(old object.Object) (object.Object, error) {
		if old == nil {
			return nil, apierrors.NewNotFound(t.res.Group, t.res.Plural, t.name)
		}
		patched, err := mechanism(old)
		if err != nil {
			return nil, err
		}
		if err := checkObjectNamespace(patched, t); err != nil {
			return nil, err
		}
		if err := checkURLName(patched, t); err != nil {
			return nil, err
		}
		return patched, nil
	})
	if err != nil {
		return err
	}
	t.rep.writeObject(w, updatedCode(created), res, stored)
	return nil
}

// readDeleteOptions reads a delete's options as kube does: from its body
// (DeleteOptions in any media the server reads) or, when it has none, from the
// query.
func readDeleteOptions(r *web.Request, res *api.Resource) (registry.DeleteOptions, error) {
	var o registry.DeleteOptions
	body, err := readBody(r)
	if err != nil {
		return o, err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return deleteOptionsFromQuery(r.URL.Query())
	}
	if !isJSONBody(r) {
		// YAML, CBOR or protobuf (client-go's protobuf clients send DeleteOptions
		// so): read it into the JSON form first.
		obj, err := decodeBodyAs(r, res, "v1", "meta.k8s.io/v1", "DeleteOptions", "DeleteOptions", body)
		if err != nil {
			return o, err
		}
		if body, err = json.Marshal(obj); err != nil {
			return o, apierrors.NewBadRequest(err.Error())
		}
	}
	var typeMeta struct{ Kind, APIVersion string }
	err = json.Unmarshal(body, &typeMeta)
	if err == nil && typeMeta.Kind != "" && typeMeta.Kind != "DeleteOptions" {
		// kube answers 500 with this message; kubeplay answers no 500.
		return o, apierrors.NewBadRequest(fmt.Sprintf("no kind %q is registered for version %q in scheme \"pkg/runtime/scheme.go:100\"", typeMeta.Kind, typeMeta.APIVersion))
	}
	if err == nil {
		err = json.Unmarshal(body, &o)
	}
	if err != nil {
		return o, apierrors.NewBadRequest(fmt.Sprintf("error decoding DeleteOptions: %v", err))
	}
	return o, nil
}

// deleteOptionsFromQuery reads DeleteOptions from query parameters, as kube's
// parameter codec converts them.
func deleteOptionsFromQuery(q url.Values) (registry.DeleteOptions, error) {
	var o registry.DeleteOptions
	if v, ok := param(q, "gracePeriodSeconds"); ok {
		n, err := parseInt(v)
		if err != nil {
			return o, err
		}
		o.GracePeriodSeconds = &n
	}
	for name, dst := range map[string]**bool{"orphanDependents": &o.OrphanDependents,
		"ignoreStoreReadErrorWithClusterBreakingPotential": &o.IgnoreStoreReadErrorWithClusterBreakingPotential} {
		if v, ok := param(q, name); ok {
			b, _ := parseBool(name, v)
			*dst = &b
		}
	}
	if v, ok := param(q, "propagationPolicy"); ok {
		o.PropagationPolicy = &v
	}
	o.DryRun = q["dryRun"]
	return o, nil
}

func (s *Server) delete(w web.ResponseWriter, r *web.Request, t target) error {
	opts, err := readDeleteOptions(r, t.res)
	if err != nil {
		return err
	}
	t.dryRun = len(opts.DryRun) > 0
	result, err := s.store.Delete(t.registryTarget(r), opts)
	if err != nil {
		return err
	}
	code := web.StatusOK
	if !result.Gone && opts.OrphanDependents != nil && !*opts.OrphanDependents {
		// kube's answer to a cascading delete (orphanDependents false) that
		// did not delete at once.
		code = web.StatusAccepted
	}
	switch {
	case result.Object == nil:
		// A corrupt object has nothing to show.
		st := apierrors.Success(&apierrors.StatusDetails{Name: t.name, Kind: t.res.Kind})
		st.Code = code
		t.rep.sendStatus(w, code, st)
	case !result.Gone || t.res.ReturnDeleted:
		t.rep.writeObject(w, code, t.res, result.Object)
	default:
		uid := ""
		if obj, err := object.Decode(result.Object); err == nil {
			uid = object.MetaString(obj, "uid")
		}
		t.rep.sendStatus(w, code, apierrors.Success(&apierrors.StatusDetails{Name: t.name, Group: t.res.Group, Kind: t.res.Plural, UID: uid}))
	}
	return nil
}

func (s *Server) deleteCollection(w web.ResponseWriter, r *web.Request, t target) error {
	o, err := parseListOptions(r.URL.Query(), t.res)
	if err != nil {
		return err
	}
	opts, err := readDeleteOptions(r, t.res)
	if err != nil {
		return err
	}
	t.dryRun = len(opts.DryRun) > 0
	items, rev, err := s.store.DeleteCollection(r.Context(), t.registryTarget(r), o, opts)
	if err != nil {
		return err
	}
	t.rep.writeList(w, t.res, listMeta{ResourceVersion: strconv.FormatInt(rev, 10)}, items)
	return nil
}

// checkURLName is kube's check that an object written to a URL names what the
// URL does.
func checkURLName(obj object.Object, t target) error {
	switch name := object.MetaString(obj, "name"); name {
	case t.name:
		return nil
	case "":
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s based on URL) was undeterminable: name must be provided", t.name))
	default:
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, t.name))
	}
}

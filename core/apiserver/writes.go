package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"kubeplay/core/apierrors"
	"kubeplay/core/auth"
	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/registry"
	"kubeplay/core/schema"
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

// registryTarget is what the registry is asked to write.
func (t target) registryTarget() registry.Target {
	return registry.Target{Res: t.res, Namespace: t.namespace, Name: t.name, Sub: t.sub, DryRun: t.dryRun}
}

func (s *Server) create(w web.ResponseWriter, r *web.Request, t target) error {
	obj, err := readObject(r, t.res)
	if err != nil {
		return err
	}
	if err := checkObjectNamespace(obj, t); err != nil {
		return err
	}
	rt := t.registryTarget()
	rt.User, _ = auth.UserFrom(r.Context())
	stored, err := s.objects.Create(rt, obj)
	if err != nil {
		return err
	}
	t.rep.writeObject(w, web.StatusCreated, t.res, stored)
	return nil
}

func (s *Server) update(w web.ResponseWriter, r *web.Request, t target) error {
	obj, err := readObject(r, t.res)
	if err != nil {
		return err
	}
	if name := object.MetaString(obj, "name"); name != t.name {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, t.name))
	}
	if err := checkObjectNamespace(obj, t); err != nil {
		return err
	}
	// A copy per attempt: the registry may run the update again on a newer object.
	stored, created, err := s.objects.Update(t.registryTarget(), func(object.Object) (object.Object, error) { return object.DeepCopy(obj), nil })
	if err != nil {
		return err
	}
	t.rep.writeObject(w, updatedCode(created), t.res, stored)
	return nil
}

func updatedCode(created bool) int {
	if created {
		return web.StatusCreated
	}
	return web.StatusOK
}

// patch applies a JSON merge patch (RFC 7386). The other patch types come with the
// writes work.
func (s *Server) patch(w web.ResponseWriter, r *web.Request, t target) error {
	mt := r.Header.Get("Content-Type")
	if i := bytes.IndexByte([]byte(mt), ';'); i >= 0 {
		mt = mt[:i]
	}
	if mt != "application/merge-patch+json" {
		return apierrors.New(web.StatusUnsupportedMediaType, "UnsupportedMediaType",
			"the body of the request was in an unknown format - accepted media types include: application/merge-patch+json", nil)
	}
	body, err := readBody(r)
	if err != nil {
		return err
	}
	// kube first reads the patch into a map of floats (its field validation):
	// numbers no float64 holds are an error there.
	var check map[string]any
	if err := json.Unmarshal(body, &check); err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
	}
	var p any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&p); err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
	}
	stored, created, err := s.objects.Update(t.registryTarget(), func(old object.Object) (object.Object, error) {
		if old == nil {
			return nil, apierrors.NewNotFound(t.res.Group, t.res.Plural, t.name)
		}
		current := object.DeepCopy(old)
		current["kind"], current["apiVersion"] = t.res.Kind, t.res.APIVersion()
		patched, ok := mergePatch(current, p).(map[string]any)
		if !ok {
			return nil, apierrors.NewBadRequest("the patch does not describe an object")
		}
		if patched, err = decodePatched(t.res, patched); err != nil {
			return nil, err
		}
		if object.MetaString(patched, "name") != t.name {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", object.MetaString(patched, "name"), t.name))
		}
		return patched, nil
	})
	if err != nil {
		return err
	}
	t.rep.writeObject(w, updatedCode(created), t.res, stored)
	return nil
}

// decodePatched reads a patched object into its kind's Go type as kube does:
// from its JSON (keys sorted, as the merge patch library writes it), an error
// being an invalid patch that shows that JSON.
func decodePatched(res *schema.Resource, patched object.Object) (object.Object, error) {
	if !protobufServed(res) {
		return patched, nil
	}
	doc, err := json.Marshal(patched)
	if err != nil {
		return nil, apierrors.NewInternal(err)
	}
	obj, err := protobuf.DecodeJSON(res.APIVersion(), res.Kind, doc)
	if err != nil {
		return nil, apierrors.NewInvalid("", "", "", field.ErrorList{field.Invalid(field.NewPath("patch"), string(doc), err.Error())})
	}
	return obj, nil
}

// mergePatch applies an RFC 7386 merge patch to target.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}

// deleteOptions is metav1.DeleteOptions as a request carries it: what the
// registry honours, and a dry run.
type deleteOptions struct {
	registry.DeleteOptions
	DryRun []string `json:"dryRun"`
}

// readDeleteOptions reads a delete's body: the options the registry honours, and
// whether it asks for a dry run.
func readDeleteOptions(r *web.Request, res *schema.Resource) (registry.DeleteOptions, bool, error) {
	var o deleteOptions
	body, err := readBody(r)
	if err != nil {
		return o.DeleteOptions, false, err
	}
	if len(body) > 0 && !isJSONBody(r) {
		// YAML, CBOR or protobuf (client-go's protobuf clients send DeleteOptions
		// so): read it into the JSON form first.
		obj, err := decodeBodyAs(r, res, "v1", "meta.k8s.io/v1", "DeleteOptions", body)
		if err != nil {
			return o.DeleteOptions, false, err
		}
		if body, err = json.Marshal(obj); err != nil {
			return o.DeleteOptions, false, apierrors.NewBadRequest(err.Error())
		}
	}
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, &o); err != nil {
			return o.DeleteOptions, false, apierrors.NewBadRequest(fmt.Sprintf("error decoding DeleteOptions: %v", err))
		}
	}
	dry, st := parseDryRun(o.DryRun, "delete")
	if st != nil {
		return o.DeleteOptions, false, st
	}
	return o.DeleteOptions, dry, nil
}

func (s *Server) delete(w web.ResponseWriter, r *web.Request, t target) error {
	opts, dry, err := readDeleteOptions(r, t.res)
	if err != nil {
		return err
	}
	t.dryRun = t.dryRun || dry
	stored, gone, err := s.objects.Delete(t.registryTarget(), opts)
	if err != nil {
		return err
	}
	if !gone || t.res.ReturnDeleted {
		t.rep.writeObject(w, web.StatusOK, t.res, stored)
		return nil
	}
	uid := ""
	if obj, err := object.Decode(stored); err == nil {
		uid = object.MetaString(obj, "uid")
	}
	t.rep.sendStatus(w, web.StatusOK, apierrors.Success(&apierrors.StatusDetails{Name: t.name, Group: t.res.Group, Kind: t.res.Plural, UID: uid}))
	return nil
}

func (s *Server) deleteCollection(w web.ResponseWriter, r *web.Request, t target) error {
	o, err := parseListOptions(r.URL.Query(), t.res)
	if err != nil {
		return err
	}
	opts, dry, err := readDeleteOptions(r, t.res)
	if err != nil {
		return err
	}
	t.dryRun = t.dryRun || dry
	items, rev, err := s.objects.DeleteCollection(t.registryTarget(), o.filter(), opts)
	if err != nil {
		return err
	}
	t.rep.writeList(w, t.res, listMeta{ResourceVersion: strconv.FormatInt(rev, 10)}, items)
	return nil
}

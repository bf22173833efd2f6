package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"kubeplay/core/apierrors"
	"kubeplay/core/auth"
	"kubeplay/core/object"
	"kubeplay/core/patch"
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
	return registry.Target{Res: t.res, Namespace: t.namespace, Name: t.name, Sub: t.sub, DryRun: t.dryRun, Manager: t.manager}
}

func (s *Server) create(w web.ResponseWriter, r *web.Request, t target) error {
	obj, err := readObject(r, t.answerResource(), t.validation)
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
	if t.sub == "binding" { // kube answers a Binding with a Status
		st := apierrors.Success(nil)
		st.Code = web.StatusCreated
		t.rep.sendStatus(w, web.StatusCreated, st)
		return nil
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
	pt, err := patch.ParseType(r.Header.Get("Content-Type"), protobufServed(t.res))
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
	stored, created, err := s.objects.Update(t.registryTarget(), func(old object.Object) (object.Object, error) {
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
		switch name := object.MetaString(patched, "name"); name {
		case t.name:
		case "":
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s based on URL) was undeterminable: name must be provided", t.name))
		default:
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, t.name))
		}
		return patched, nil
	})
	if err != nil {
		return err
	}
	t.rep.writeObject(w, updatedCode(created), res, stored)
	return nil
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

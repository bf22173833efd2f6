package apiserver

import (
	"fmt"

	"kubeplay/core/apierrors"
	"kubeplay/core/apply"
	"kubeplay/core/object"
	"kubeplay/core/web"
)

// apply is a server-side apply (core/apply): the body is a configuration the
// field manager merges into the object, which it creates when missing; the
// result must be the object the URL names.
func (s *Server) apply(w web.ResponseWriter, r *web.Request, t target, mediaType string) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	config, err := apply.ReadConfig(mediaType, body)
	if err != nil {
		return err
	}
	force := false
	if v, ok := param(r.URL.Query(), "force"); ok {
		force, _ = parseBool("force", v)
	}
	rt := t.registryTarget(r)
	rt.Apply = true
	stored, created, err := s.store.Update(rt, func(old object.Object) (object.Object, error) {
		obj, err := apply.FieldManager{Kinds: s.store.Schema()}.Apply(t.res, t.sub, t.manager, s.cfg.Clock.Now(), old, config, force)
		if err != nil {
			return nil, err
		}
		if uid := object.MetaString(obj, "uid"); old == nil && uid != "" {
			return nil, apierrors.NewConflict(t.res.Group, t.res.Plural, t.name,
				fmt.Sprintf("uid mismatch: the provided object specified uid %s, and no existing object was found", uid))
		}
		if err := t.validation.ApplyConfiguration(r.Context(), mediaType == apply.YAMLPatch, body); err != nil {
			return nil, err
		}
		if err := checkObjectNamespace(obj, t); err != nil {
			return nil, err
		}
		switch name := object.MetaString(obj, "name"); name {
		case t.name:
			return obj, nil
		case "":
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s based on URL) was undeterminable: name must be provided", t.name))
		default:
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, t.name))
		}
	})
	if err != nil {
		return err
	}
	t.rep.writeObject(w, updatedCode(created), t.res, stored)
	return nil
}

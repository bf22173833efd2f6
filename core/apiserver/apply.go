package apiserver

import (
	"fmt"

	"kubeplay/core/apierrors"
	"kubeplay/core/apply"
	"kubeplay/core/encoding"
	"kubeplay/core/fieldvalidation"
	"kubeplay/core/object"
	"kubeplay/core/web"
)

// applyStrictErrors is what kube's apply does, once the configuration is
// merged, with the keys a YAML configuration gives twice in a mapping: with
// fieldValidation Strict a 400 quoting sigs.k8s.io/yaml's strict read, with
// Warn (the default) a warning for each.
func applyStrictErrors(r *web.Request, t target, mediaType string, body []byte) error {
	if mediaType != apply.YAMLPatch || !t.validation.Checks() {
		return nil
	}
	err := encoding.YAMLStrictError(body)
	if err == nil {
		return nil
	}
	err = fmt.Errorf("error converting YAML to JSON: %w", err)
	if t.validation == fieldvalidation.Strict {
		return apierrors.NewBadRequest("error strict decoding YAML: " + err.Error())
	}
	return t.validation.Apply(r.Context(), []error{err})
}

// isApply says whether a patch's media type is a server-side apply's.
func isApply(mediaType string) bool {
	return mediaType == apply.YAMLPatch || mediaType == apply.CBORPatch
}

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
		if err := applyStrictErrors(r, t, mediaType, body); err != nil {
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

package registry

import (
	"encoding/json"

	"kubeplay/core/apierrors"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/selector"
)

// The scale subresource (autoscaling/v1 Scale) of Deployments, ReplicaSets and
// StatefulSets is a view of the parent: its spec.replicas, status.replicas and
// label selector (as a string). Reading it reads the parent; writing it
// writes the parent's spec.replicas through Update, so a scale write has a
// parent write's preconditions, admission, dry run and conflicts.

// ScaleOf is the Scale of a stored parent object, in stored form (no kind or
// apiVersion).
func ScaleOf(parent object.Object) object.Object {
	meta := object.Meta(parent)
	sm := map[string]any{}
	for _, f := range []string{"name", "namespace", "uid", "resourceVersion", "creationTimestamp"} {
		if v, ok := meta[f]; ok {
			sm[f] = v
		}
	}
	spec := map[string]any{}
	if r := object.Path(parent, "spec", "replicas"); r != nil {
		spec["replicas"] = r
	}
	replicas := object.Path(parent, "status", "replicas")
	if replicas == nil {
		replicas = json.Number("0")
	}
	status := map[string]any{"replicas": replicas}
	sel, _ := object.Path(parent, "spec", "selector").(map[string]any)
	if s, _ := selector.FormatLabelSelector(sel); s != "" {
		status["selector"] = s
	}
	return object.Object{"metadata": sm, "spec": spec, "status": status}
}

// scaleInfo turns an update of the Scale into an update of the parent: info
// computes the new Scale from the current one, whose replicas (and
// resourceVersion, a precondition) the parent takes.
func scaleInfo(t Target, info UpdatedObjectInfo) UpdatedObjectInfo {
	return func(old object.Object) (object.Object, error) {
		scale := ScaleOf(old)
		scale["kind"], scale["apiVersion"] = "Scale", "autoscaling/v1"
		next, err := info(scale)
		if err != nil {
			return nil, err
		}
		replicas := object.Path(next, "spec", "replicas")
		if replicas == nil {
			replicas = json.Number("0")
		}
		if n, err := replicas.(json.Number).Int64(); err == nil && n < 0 {
			return nil, apierrors.NewInvalid("autoscaling", "Scale", t.Name, field.ErrorList{
				field.Invalid(field.NewPath("spec", "replicas"), n, "must be greater than or equal to 0")})
		}
		obj := object.DeepCopy(old)
		spec, _ := obj["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
			obj["spec"] = spec
		}
		spec["replicas"] = replicas
		if rv := object.MetaString(next, "resourceVersion"); rv != "" {
			object.Meta(obj)["resourceVersion"] = rv
		}
		return obj, nil
	}
}

// scaleAnswer is what a scale write answers: the Scale of the parent stored.
func scaleAnswer(stored []byte) ([]byte, error) {
	obj, err := object.Decode(stored)
	if err != nil {
		return nil, apierrors.NewInternal(err)
	}
	return object.Encode(ScaleOf(obj))
}

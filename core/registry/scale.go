package registry

import (
	"encoding/json"
	"fmt"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/field"
	"kubeplay/core/object"
)

// The scale subresource (autoscaling/v1 Scale) of Deployments, ReplicaSets and
// StatefulSets is a view of the parent: its spec.replicas, status.replicas and
// label selector (as a string). Reading it reads the parent; writing it
// writes the parent's spec.replicas through Update, so a scale write has a
// parent write's preconditions, admission, dry run and conflicts.

// builtinScale are where the built-in kinds keep what their Scale shows
// (their selector is their descriptor's to show: ScaleSelector).
var builtinScale = api.ScalePaths{SpecReplicas: ".spec.replicas", StatusReplicas: ".status.replicas"}

// scalePaths are where res's objects keep what their Scale shows.
func scalePaths(res *api.Resource) api.ScalePaths {
	if res.Custom != nil && res.Custom.Scale != nil {
		return *res.Custom.Scale
	}
	return builtinScale
}

// ScaleOf is the Scale of a stored parent object of res, in stored form (no
// kind or apiVersion). A custom resource without the replicas its scale
// subresource names has none: kube's 500.
func ScaleOf(res *api.Resource, parent object.Object) (object.Object, error) {
	meta := object.Meta(parent)
	sm := map[string]any{}
	for _, f := range []string{"name", "namespace", "uid", "resourceVersion", "creationTimestamp"} {
		if v, ok := meta[f]; ok {
			sm[f] = v
		}
	}
	paths := scalePaths(res)
	spec := map[string]any{}
	if r := pathValue(parent, paths.SpecReplicas); r != nil {
		spec["replicas"] = r
	} else if res.Custom != nil {
		return nil, apierrors.NewInternal(fmt.Errorf("the spec replicas field %q does not exist", paths.SpecReplicas))
	}
	replicas := pathValue(parent, paths.StatusReplicas)
	if replicas == nil {
		replicas = json.Number("0")
	}
	status := map[string]any{"replicas": replicas}
	if res.Custom == nil {
		if s := res.ScaleSelector; s != nil && s(parent) != "" {
			status["selector"] = s(parent)
		}
	} else if s, ok := pathValue(parent, paths.LabelSelector).(string); ok && paths.LabelSelector != "" && s != "" {
		status["selector"] = s
	}
	return object.Object{"metadata": sm, "spec": spec, "status": status}, nil
}

// scaleInfo turns an update of the Scale into an update of the parent: info
// computes the new Scale from the current one, whose replicas (and
// resourceVersion, a precondition) the parent takes.
func scaleInfo(t Target, info UpdatedObjectInfo) UpdatedObjectInfo {
	return func(old object.Object) (object.Object, error) {
		scale, err := ScaleOf(t.Res, old)
		if err != nil {
			// Written all the same, as kube writes a custom resource's.
			scale = object.Object{"metadata": map[string]any{"name": t.Name, "namespace": t.Namespace, "resourceVersion": object.MetaString(old, "resourceVersion")}, "spec": map[string]any{}}
		}
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
		setPathValue(obj, scalePaths(t.Res).SpecReplicas, replicas)
		if rv := object.MetaString(next, "resourceVersion"); rv != "" {
			object.Meta(obj)["resourceVersion"] = rv
		}
		return obj, nil
	}
}

// scaleAnswer is what a scale write answers: the Scale of the parent stored.
func scaleAnswer(res *api.Resource, stored []byte) ([]byte, error) {
	obj, err := object.Decode(stored)
	if err != nil {
		return nil, apierrors.NewInternal(err)
	}
	scale, err := ScaleOf(res, obj)
	if err != nil {
		return nil, err
	}
	return object.Encode(scale)
}

package registry

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"kubeplay/core/crd"
	"kubeplay/core/field"
	"kubeplay/core/object"
)

// crdFinalizer holds a deleted CustomResourceDefinition until its objects
// are gone (core/crd's controller deletes them, then removes it).
const crdFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// crdStrategy: a CustomResourceDefinition's defaults, status and validation
// are core/crd's; its first delete only marks it, as kube's REST does.
type crdStrategy struct{ resourceStrategy }

func (crdStrategy) Canonicalize(obj object.Object)     { crd.Canonicalize(obj) }
func (crdStrategy) PrepareForCreate(obj object.Object) { crd.PrepareForCreate(obj) }

func (s crdStrategy) PrepareForUpdate(obj, old object.Object, sub string) object.Object {
	out := s.resourceStrategy.PrepareForUpdate(obj, old, sub)
	if sub == "" {
		crd.PrepareForUpdate(out, old)
	}
	return out
}

func (crdStrategy) Validate(obj object.Object) field.ErrorList {
	errs, _ := crd.Validate(obj)
	return errs
}

func (crdStrategy) ValidateUpdate(obj, old object.Object, sub string) field.ErrorList {
	if sub != "" {
		return nil
	}
	errs, _ := crd.Validate(obj)
	return append(errs, crd.ValidateUpdate(obj, old)...)
}

// WarningsOnCreate are what writing the definition warns of.
func (crdStrategy) WarningsOnCreate(obj object.Object) []string {
	_, warnings := crd.Validate(obj)
	return warnings
}

// WarningsOnUpdate: the same as a create's.
func (s crdStrategy) WarningsOnUpdate(obj, _ object.Object) []string { return s.WarningsOnCreate(obj) }

// BeginDelete is kube's CustomResourceDefinition REST deletion: the first
// delete marks the definition Terminating and holds it with the cleanup
// finalizer; once marked, the generic deletion goes on.
func (crdStrategy) BeginDelete(t Target, obj object.Object, opts *DeleteOptions, now time.Time) (deleteHow, error) {
	meta := object.Meta(obj)
	if err := checkPreconditionsAsStorage(t, meta, opts.Preconditions); err != nil {
		return 0, err
	}
	if meta["deletionTimestamp"] != nil {
		return deleteGeneric, nil
	}
	meta["deletionTimestamp"] = object.Timestamp(now)
	if finalizers := object.Strings(meta, "finalizers"); !contains(finalizers, crdFinalizer) {
		object.SetStrings(meta, "finalizers", append(finalizers, crdFinalizer))
	}
	setCondition(obj, map[string]any{"type": "Terminating", "status": "True", "lastTransitionTime": object.Timestamp(now),
		"reason": "InstanceDeletionPending", "message": "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon"})
	return deleteLater, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// setCondition sets a condition in status.conditions, replacing one of its
// type.
func setCondition(obj object.Object, cond map[string]any) {
	status, _ := obj["status"].(map[string]any)
	if status == nil {
		status = map[string]any{}
		obj["status"] = status
	}
	conds, _ := status["conditions"].([]any)
	for i, c := range conds {
		if object.Path(c, "type") == cond["type"] {
			conds[i] = cond
			return
		}
	}
	status["conditions"] = append(conds, cond)
}

// customStrategy: a custom resource's objects are pruned, defaulted and
// validated by their version's schema; a new one has no status when the
// status subresource owns it.
type customStrategy struct{ resourceStrategy }

func (s customStrategy) Canonicalize(obj object.Object) {
	s.res.Custom.Schema.Prune(obj)
	s.res.Custom.Schema.Default(map[string]any(obj))
}

func (s customStrategy) PrepareForCreate(obj object.Object) {
	if s.res.Sub("status") != nil {
		delete(obj, "status")
	}
}

func (s customStrategy) Validate(obj object.Object) field.ErrorList {
	errs := s.res.Custom.Schema.Validate(obj)
	if sc := s.res.Custom.Scale; sc != nil {
		for _, p := range []string{sc.SpecReplicas, sc.StatusReplicas} {
			v := pathValue(obj, p)
			if n, ok := v.(json.Number); v != nil && (!ok || strings.ContainsAny(string(n), ".eE")) {
				errs = append(errs, field.Invalid(field.NewPath(p), 0, fmt.Sprintf("%s accessor error: %v is of the type %s, expected int64", p, v, goTypeName(v))))
			}
		}
	}
	return errs
}

func (s customStrategy) ValidateUpdate(obj, _ object.Object, _ string) field.ErrorList {
	return s.Validate(obj)
}

// goTypeName is the Go type kube's unstructured objects hold v as.
func goTypeName(v any) string {
	switch v := v.(type) {
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			return "float64"
		}
		return "int64"
	case map[string]any:
		return "map[string]interface {}"
	case []any:
		return "[]interface {}"
	}
	return fmt.Sprintf("%T", v)
}

// pathValue is the value at a simple JSON path (".spec.replicas") of obj.
func pathValue(obj object.Object, path string) any {
	return object.Path(map[string]any(obj), strings.Split(strings.TrimPrefix(path, "."), ".")...)
}

// setPathValue sets the value at a simple JSON path, making the maps on the
// way.
func setPathValue(obj object.Object, path string, v any) {
	parts := strings.Split(strings.TrimPrefix(path, "."), ".")
	m := map[string]any(obj)
	for _, p := range parts[:len(parts)-1] {
		next, _ := m[p].(map[string]any)
		if next == nil {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
}

package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"kubeplay/core/api"
	"kubeplay/core/field"
	"kubeplay/core/object"
)

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
	return s.validate(obj, nil)
}

// validate checks obj (old: the stored object on update, nil on create):
// its schema, its scale paths, then, when those leave nothing that would
// make them meaningless, its rules (kube's x-kubernetes-validations).
func (s customStrategy) validate(obj, old object.Object) field.ErrorList {
	errs := s.res.Custom.Schema.Validate(obj)
	if sc := s.res.Custom.Scale; sc != nil {
		for _, p := range []string{sc.SpecReplicas, sc.StatusReplicas} {
			v := pathValue(obj, p)
			if n, ok := v.(json.Number); v != nil && (!ok || strings.ContainsAny(string(n), ".eE")) {
				errs = append(errs, field.Invalid(field.NewPath(p), 0, fmt.Sprintf("%s accessor error: %v is of the type %s, expected int64", p, v, goTypeName(v))))
			}
		}
	}
	rules := s.res.Custom.Rules
	if rules == nil || s.cel == nil {
		return errs
	}
	if blocking(errs) {
		e := field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")
		e.Field = "<nil>" // kube's name of no path
		return append(errs, e)
	}
	ruleErrs, warnings := s.cel.ValidateCustom(context.Background(), api.ValidateCustom{Rules: rules, Object: obj, Old: old})
	s.warn(warnings)
	return append(errs, ruleErrs...)
}

// blocking says whether errs hold an error kube evaluates no rule after.
func blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

func (s customStrategy) ValidateUpdate(obj, old object.Object, _ string) field.ErrorList {
	return s.validate(obj, old)
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

package registry

import (
	"encoding/json"
	"fmt"
	"strings"

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

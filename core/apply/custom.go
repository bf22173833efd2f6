package apply

import (
	"sync"

	smdschema "sigs.k8s.io/structured-merge-diff/v4/schema"
	"sigs.k8s.io/structured-merge-diff/v4/typed"

	"kubeplay/core/api"
)

// customTypes are the structured-merge-diff types of custom resources, by
// resource (a definition's new version is a new resource).
var customTypes sync.Map // *api.Resource → typed.ParseableType

// customType is the type a custom resource's openAPIV3Schema gives its
// objects, as kube's apiextensions builds it: objects are maps of their
// properties (or of additionalProperties), lists are atomic unless
// x-kubernetes-list-type says set or map (keyed by
// x-kubernetes-list-map-keys), x-kubernetes-map-type atomic makes a map
// atomic, unknown fields kept (x-kubernetes-preserve-unknown-fields) are
// deduced, and metadata is ObjectMeta.
func customType(res *api.Resource) (typed.ParseableType, error) {
	if t, ok := customTypes.Load(res); ok {
		return t.(typed.ParseableType), nil
	}
	p, err := parser()
	if err != nil {
		return typed.ParseableType{}, err
	}
	root := smdType(res.Custom.OpenAPI, true)
	cp := &typed.Parser{}
	cp.Schema.Types = append(append([]smdschema.TypeDef(nil), p.Schema.Types...), smdschema.TypeDef{Name: "__custom_root_", Atom: root.Inlined})
	t := cp.Type("__custom_root_")
	customTypes.Store(res, t)
	return t, nil
}

// named refers to a type of the schema by name.
func named(name string) smdschema.TypeRef { return smdschema.TypeRef{NamedType: &name} }

// smdType is the type of one schema of an openAPIV3Schema.
func smdType(s map[string]any, root bool) smdschema.TypeRef {
	if s == nil || !root && s["x-kubernetes-preserve-unknown-fields"] == true && s["properties"] == nil {
		return named("__untyped_deduced_") // the root stays an object: its metadata is ObjectMeta
	}
	if s["x-kubernetes-int-or-string"] == true {
		return smdschema.TypeRef{Inlined: smdschema.Atom{Scalar: ptr(smdschema.Scalar("untyped"))}}
	}
	switch s["type"] {
	case "object":
		m := &smdschema.Map{ElementRelationship: smdschema.Separable}
		props, _ := s["properties"].(map[string]any)
		for name, p := range props {
			ps, _ := p.(map[string]any)
			t := smdType(ps, false)
			if root && name == "metadata" {
				t = named("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
			}
			m.Fields = append(m.Fields, smdschema.StructField{Name: name, Type: t})
		}
		if root {
			for _, f := range []string{"apiVersion", "kind"} {
				if props[f] == nil {
					m.Fields = append(m.Fields, smdschema.StructField{Name: f, Type: smdschema.TypeRef{Inlined: smdschema.Atom{Scalar: ptr(smdschema.String)}}})
				}
			}
			if props["metadata"] == nil {
				m.Fields = append(m.Fields, smdschema.StructField{Name: "metadata", Type: named("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")})
			}
		}
		switch ap := s["additionalProperties"].(type) {
		case map[string]any:
			m.ElementType = smdType(ap, false)
		default:
			if s["x-kubernetes-preserve-unknown-fields"] == true {
				m.ElementType = named("__untyped_deduced_")
			}
		}
		if s["x-kubernetes-map-type"] == "atomic" {
			m.ElementRelationship = smdschema.Atomic
		}
		return smdschema.TypeRef{Inlined: smdschema.Atom{Map: m}}
	case "array":
		items, _ := s["items"].(map[string]any)
		l := &smdschema.List{ElementType: smdType(items, false), ElementRelationship: smdschema.Atomic}
		switch s["x-kubernetes-list-type"] {
		case "set":
			l.ElementRelationship = smdschema.Associative
		case "map":
			l.ElementRelationship = smdschema.Associative
			for _, k := range s["x-kubernetes-list-map-keys"].([]any) {
				l.Keys = append(l.Keys, k.(string))
			}
		}
		return smdschema.TypeRef{Inlined: smdschema.Atom{List: l}}
	case "string":
		return smdschema.TypeRef{Inlined: smdschema.Atom{Scalar: ptr(smdschema.String)}}
	case "integer", "number":
		return smdschema.TypeRef{Inlined: smdschema.Atom{Scalar: ptr(smdschema.Numeric)}}
	case "boolean":
		return smdschema.TypeRef{Inlined: smdschema.Atom{Scalar: ptr(smdschema.Boolean)}}
	}
	return named("__untyped_atomic_")
}

func ptr[T any](v T) *T { return &v }

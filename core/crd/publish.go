package crd

import (
	"maps"
	"slices"

	"kubeplay/core/api"
)

// How kube's apiextensions OpenAPI builder publishes a served version: its
// structural schema (what kube's structural schema keeps of the
// openAPIV3Schema) with apiVersion, kind and metadata, its
// group-version-kind and its selectable fields, and a list kind. The v2
// document (merged into /openapi/v2) gets it in the form kubectl's v2 readers
// cope with, without defaults.

// structuralKeys are the keys of an openAPIV3Schema a structural schema keeps
// (besides properties, items and additionalProperties, walked below).
var structuralKeys = []string{"type", "format", "description", "title", "default", "nullable", "required", "enum",
	"maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern",
	"maxItems", "minItems", "uniqueItems", "multipleOf", "maxProperties", "minProperties",
	"allOf", "oneOf", "anyOf", "not", "x-kubernetes-list-map-keys", "x-kubernetes-list-type",
	"x-kubernetes-map-type", "x-kubernetes-validations"}

// trueKeys are the extensions kube writes only when true.
var trueKeys = []string{"x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource", "x-kubernetes-int-or-string"}

// junctors are the value validations v2 drops.
var junctors = []string{"allOf", "oneOf", "anyOf", "not"}

// published is a schema as kube publishes it, v2's form when v2.
func published(in map[string]any, v2 bool) map[string]any {
	out := map[string]any{}
	for _, k := range structuralKeys {
		if v, ok := in[k]; ok && v != nil {
			out[k] = v
		}
	}
	for _, k := range trueKeys {
		if in[k] == true {
			out[k] = true
		}
	}
	if out["x-kubernetes-int-or-string"] == true && out["anyOf"] == nil && out["allOf"] == nil {
		out["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
	}
	if props, ok := in["properties"].(map[string]any); ok {
		p := map[string]any{}
		for k, v := range props {
			if m, ok := v.(map[string]any); ok {
				p[k] = published(m, v2)
			}
		}
		out["properties"] = p
	}
	if items, ok := in["items"].(map[string]any); ok {
		out["items"] = published(items, v2)
	}
	switch ap := in["additionalProperties"].(type) {
	case map[string]any:
		out["additionalProperties"] = published(ap, v2)
	case bool:
		out["additionalProperties"] = ap
	}
	if v2 {
		toV2(out, in)
	}
	addEmbedded(out, v2)
	return out
}

// toV2 is kube's ToStructuralOpenAPIV2 of one schema s, published from in
// (what it holds is already converted: in says which were nullable), and its
// pruning of defaults.
func toV2(s, in map[string]any) {
	delete(s, "default")
	for _, k := range junctors {
		delete(s, k)
	}
	if s["nullable"] == true {
		delete(s, "type")
		delete(s, "nullable")
		delete(s, "items")
		delete(s, "properties")
	}
	preserve := s["x-kubernetes-preserve-unknown-fields"] == true
	if preserve {
		delete(s, "items")
		delete(s, "properties")
	}
	if s["items"] == nil && s["type"] == "array" {
		delete(s, "type")
	}
	if preserve && s["type"] == "object" {
		delete(s, "type")
	}
	props, _ := in["properties"].(map[string]any)
	if req, ok := s["required"].([]any); ok {
		req = slices.DeleteFunc(slices.Clone(req), func(r any) bool {
			name, _ := r.(string)
			p, _ := props[name].(map[string]any)
			return p != nil && p["nullable"] == true
		})
		if ap, _ := in["additionalProperties"].(map[string]any); ap != nil && ap["nullable"] == true {
			req = nil
		}
		if len(req) == 0 {
			delete(s, "required")
		} else {
			s["required"] = req
		}
	}
}

// refTo is a property referring to a schema of the document, described:
// v2 puts the $ref beside the description, v3 in an allOf.
func refTo(name, description string, v2 bool) map[string]any {
	if v2 {
		return map[string]any{"description": description, "$ref": "#/definitions/" + name}
	}
	return map[string]any{"description": description, "allOf": []any{map[string]any{"$ref": "#/components/schemas/" + name}}}
}

const (
	objectMeta     = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	listMeta       = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
	descListMeta   = "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
	descEmbeddedAV = "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	descEmbeddedK  = "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)

// addEmbedded gives an x-kubernetes-embedded-resource object its apiVersion,
// kind and metadata, required apiVersion and kind (but in v2 under preserved
// unknown fields).
func addEmbedded(s map[string]any, v2 bool) {
	if v2 && s["x-kubernetes-preserve-unknown-fields"] == true || s["x-kubernetes-embedded-resource"] != true {
		return
	}
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		s["properties"] = props
	}
	props["apiVersion"] = map[string]any{"type": "string", "description": descEmbeddedAV}
	props["kind"] = map[string]any{"type": "string", "description": descEmbeddedK}
	props["metadata"] = refTo(objectMeta, descMetadata, v2)
	req, _ := s["required"].([]any)
	for _, k := range []string{"kind", "apiVersion"} {
		if !slices.Contains(req, any(k)) {
			req = append(req, k)
		}
	}
	s["required"] = req
}

// typeMeta gives a schema the apiVersion and kind properties of kube's
// TypeMeta.
func typeMeta(props map[string]any) {
	props["apiVersion"] = map[string]any{"type": "string", "description": descAPIVersion}
	props["kind"] = map[string]any{"type": "string", "description": descKind}
}

// gvk is the x-kubernetes-group-version-kind of kind in r's group version.
func gvk(r *api.Resource, kind string) []any {
	return []any{map[string]any{"group": r.Group, "kind": kind, "version": r.Version}}
}

// selectable is the x-kubernetes-selectable-fields of r: kube's builder
// writes the list, empty when the version has none.
func selectable(r *api.Resource) []any {
	out := []any{}
	for _, f := range r.Custom.Selectable {
		out = append(out, map[string]any{"fieldPath": f})
	}
	return out
}

// kindSchema is the schema of r's kind: its structural schema with kube's
// apiVersion, kind and metadata; in v2 only {type: object} when it preserves
// unknown fields at its root (kubectl would refuse what it does not list).
func kindSchema(r *api.Resource, v2 bool) map[string]any {
	var s map[string]any
	raw := r.Custom.OpenAPI
	switch {
	case raw == nil || v2 && raw["x-kubernetes-preserve-unknown-fields"] == true:
		s = map[string]any{"type": "object"}
	default:
		s = published(raw, v2)
		props, _ := s["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			s["properties"] = props
		}
		props["metadata"] = refTo(objectMeta, descMetadata, v2)
		typeMeta(props)
	}
	s["x-kubernetes-group-version-kind"] = gvk(r, r.Kind)
	s["x-kubernetes-selectable-fields"] = selectable(r)
	return s
}

// listSchema is the schema of r's list kind.
func listSchema(r *api.Resource, v2 bool) map[string]any {
	item := map[string]any{"$ref": "#/components/schemas/" + schemaName(r.Group, r.Version, r.Kind)}
	if v2 {
		item = map[string]any{"$ref": "#/definitions/" + schemaName(r.Group, r.Version, r.Kind)}
	}
	props := map[string]any{
		"items": map[string]any{"type": "array", "items": item,
			"description": "List of " + r.Plural + ". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"},
		"metadata": refTo(listMeta, descListMeta, v2),
	}
	typeMeta(props)
	return map[string]any{
		"description": r.ListKind() + " is a list of " + r.Kind, "type": "object", "required": []any{"items"},
		"properties": props, "x-kubernetes-group-version-kind": gvk(r, r.ListKind()),
		"x-kubernetes-selectable-fields": selectable(r),
	}
}

// V2 is what /openapi/v2 holds for a group version of custom resources: each
// served kind's paths, and its schema's and its list's definitions, by name;
// false for a group version of other resources.
func V2(_ api.GroupVersion, resources []*api.Resource) (paths, definitions map[string]any, ok bool) {
	paths, definitions = map[string]any{}, map[string]any{}
	for _, r := range resources {
		if r.Custom == nil {
			return nil, nil, false
		}
		maps.Copy(paths, pathsV2(r))
		definitions[schemaName(r.Group, r.Version, r.Kind)] = kindSchema(r, true)
		definitions[schemaName(r.Group, r.Version, r.ListKind())] = listSchema(r, true)
	}
	return paths, definitions, true
}

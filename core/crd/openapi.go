package crd

import (
	"encoding/json"
	"slices"
	"strings"

	"kubeplay/core/schema"
)

// metaRef is a reference to one of meta/v1's schemas, which the built-in
// documents define (core/openapi copies them into the document).
func metaRef(name string) map[string]any {
	return map[string]any{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1." + name}
}

// Descriptions kube gives a custom resource's apiVersion, kind and metadata.
const (
	descAPIVersion = "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	descKind       = "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
	descMetadata   = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)

// The list schema and the paths of a kind, NAME its schema's name.
const (
	listTemplate = `{"type":"object","required":["items"],"properties":{` +
		`"apiVersion":{"type":"string","description":"` + descAPIVersion + `"},"kind":{"type":"string","description":"` + descKind + `"},` +
		`"items":{"type":"array","items":{"$ref":"#/components/schemas/NAME"}},` +
		`"metadata":{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"}]}},` +
		`"x-kubernetes-group-version-kind":[{"group":"GROUP","kind":"KINDList","version":"VERSION"}]}`
	okTemplate         = `"responses":{"200":{"description":"OK","content":{"application/json":{"schema":{"$ref":"#/components/schemas/NAME"}}}}}`
	collectionTemplate = `{"get":{"operationId":"listKIND","responses":{"200":{"description":"OK","content":{"application/json":{"schema":{"$ref":"#/components/schemas/NAMEList"}}}}}}}`
	itemTemplate       = `{"get":{"operationId":"readKIND",` + okTemplate + `},"patch":{"operationId":"patchKIND",` + okTemplate + `,` +
		`"parameters":[{"name":"fieldManager","in":"query","schema":{"type":"string","uniqueItems":true}},{"name":"fieldValidation","in":"query","schema":{"type":"string","uniqueItems":true}}],` +
		`"requestBody":{"content":{"application/apply-patch+yaml":{"schema":{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"}},` +
		`"application/json-patch+json":{"schema":{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"}},` +
		`"application/merge-patch+json":{"schema":{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"}}},"required":true}}}`
)

// schemaName is the name of a kind's schema in a document, as kube's builder
// names it: the group reversed, the version, the kind.
func schemaName(group, version, kind string) string {
	parts := strings.Split(group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + version + "." + kind
}

// Document is the OpenAPI v3 document of a group version of custom
// resources, as kube's apiextensions builder makes it, reduced to what
// clients read: each kind's schema (its openAPIV3Schema, with apiVersion,
// kind and metadata, and its group-version-kind) and list schema, and the
// get and patch operations of its paths (kubectl reads the fieldValidation
// parameter of the patch).
func Document(gv schema.GroupVersion, resources []*schema.Resource) ([]byte, bool) {
	schemas := map[string]any{}
	paths := map[string]any{}
	for _, r := range resources {
		if r.Custom == nil {
			return nil, false
		}
		name := schemaName(r.Group, r.Version, r.Kind)
		s := map[string]any{"type": "object"}
		for k, v := range r.Custom.OpenAPI {
			s[k] = v
		}
		props := map[string]any{}
		if p, ok := s["properties"].(map[string]any); ok {
			for k, v := range p {
				props[k] = v
			}
		}
		props["apiVersion"] = map[string]any{"type": "string", "description": descAPIVersion}
		props["kind"] = map[string]any{"type": "string", "description": descKind}
		props["metadata"] = map[string]any{"description": descMetadata, "allOf": []any{metaRef("ObjectMeta")}}
		s["properties"] = props
		s["x-kubernetes-group-version-kind"] = []any{map[string]any{"group": r.Group, "kind": r.Kind, "version": r.Version}}
		schemas[name] = s
		fill := strings.NewReplacer("NAME", name, "GROUP", r.Group, "VERSION", r.Version, "KIND", r.Kind).Replace
		var list any
		_ = json.Unmarshal([]byte(fill(listTemplate)), &list)
		schemas[name+"List"] = list
		base := "/apis/" + r.Group + "/" + r.Version + "/"
		if r.Namespaced {
			base += "namespaces/{namespace}/"
		}
		var collection, item any
		_ = json.Unmarshal([]byte(fill(collectionTemplate)), &collection)
		_ = json.Unmarshal([]byte(fill(itemTemplate)), &item)
		paths[base+r.Plural], paths[base+r.Plural+"/{name}"] = collection, item
	}
	doc := map[string]any{"openapi": "3.0.0", "info": map[string]any{"title": "Kubernetes CRD Swagger", "version": "v0.1.0"},
		"paths": paths, "components": map[string]any{"schemas": schemas}}
	b, err := json.Marshal(doc)
	return b, err == nil
}

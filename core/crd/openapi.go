package crd

import (
	"encoding/json"
	"slices"
	"strings"

	"kubeplay/core/api"
)

// Descriptions kube gives a custom resource's apiVersion, kind and metadata.
const (
	descAPIVersion = "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	descKind       = "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
	descMetadata   = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)

// The document, a kind's schema (before its openAPIV3Schema's), its list
// schema and its paths, NAME its schema's name.
const (
	documentTemplate = `{"openapi":"3.0.0","info":{"title":"Kubernetes CRD Swagger","version":"v0.1.0"},"paths":{},"components":{"schemas":{}}}`
	kindTemplate     = `{"type":"object","properties":{` +
		`"apiVersion":{"type":"string","description":"` + descAPIVersion + `"},"kind":{"type":"string","description":"` + descKind + `"},` +
		`"metadata":{"description":"` + descMetadata + `","allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]}},` +
		`"x-kubernetes-group-version-kind":[{"group":"GROUP","kind":"KIND","version":"VERSION"}]}`
	listTemplate = `{"type":"object","required":["items"],"properties":{` +
		`"apiVersion":{"type":"string","description":"` + descAPIVersion + `"},"kind":{"type":"string","description":"` + descKind + `"},` +
		`"items":{"type":"array","items":{"$ref":"#/components/schemas/NAME"}},` +
		`"metadata":{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"}]}},` +
		`"x-kubernetes-group-version-kind":[{"group":"GROUP","kind":"KINDList","version":"VERSION"}]}`
	okTemplate         = `"responses":{"200":{"description":"OK","content":{"application/json":{"schema":{"$ref":"#/components/schemas/NAME"}}}}}`
	gvkTemplate        = `"x-kubernetes-group-version-kind":{"group":"GROUP","version":"VERSION","kind":"KIND"}`
	collectionTemplate = `{"get":{"operationId":"listKIND","x-kubernetes-action":"list",` + gvkTemplate + `,"responses":{"200":{"description":"OK","content":{"application/json":{"schema":{"$ref":"#/components/schemas/NAMEList"}}}}}}}`
	itemTemplate       = `{"get":{"operationId":"readKIND","x-kubernetes-action":"get",` + gvkTemplate + `,` + okTemplate + `},` +
		`"patch":{"operationId":"patchKIND","x-kubernetes-action":"patch",` + gvkTemplate + `,` + okTemplate + `,` +
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
func Document(gv api.GroupVersion, resources []*api.Resource) ([]byte, bool) {
	var doc struct {
		Paths      map[string]any `json:"paths"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	_ = json.Unmarshal([]byte(documentTemplate), &doc)
	for _, r := range resources {
		if r.Custom == nil {
			return nil, false
		}
		name := schemaName(r.Group, r.Version, r.Kind)
		fill := strings.NewReplacer("NAME", name, "GROUP", r.Group, "VERSION", r.Version, "KIND", r.Kind).Replace
		var kind map[string]any
		var list, collection, item any
		_ = json.Unmarshal([]byte(fill(kindTemplate)), &kind)
		_ = json.Unmarshal([]byte(fill(listTemplate)), &list)
		_ = json.Unmarshal([]byte(fill(collectionTemplate)), &collection)
		_ = json.Unmarshal([]byte(fill(itemTemplate)), &item)
		props := kind["properties"].(map[string]any)
		for k, v := range r.Custom.OpenAPI {
			if k != "properties" {
				kind[k] = v
			}
		}
		if p, ok := r.Custom.OpenAPI["properties"].(map[string]any); ok {
			for k, v := range p {
				if props[k] == nil {
					props[k] = v
				}
			}
		}
		doc.Components.Schemas[name], doc.Components.Schemas[name+"List"] = kind, list
		base := "/apis/" + r.Group + "/" + r.Version + "/"
		doc.Paths[base+r.Plural] = collection
		if r.Namespaced {
			base += "namespaces/{namespace}/"
		}
		doc.Paths[base+r.Plural], doc.Paths[base+r.Plural+"/{name}"] = collection, item
	}
	var out map[string]any
	_ = json.Unmarshal([]byte(documentTemplate), &out)
	out["paths"], out["components"] = doc.Paths, map[string]any{"schemas": doc.Components.Schemas}
	b, err := json.Marshal(out)
	return b, err == nil
}

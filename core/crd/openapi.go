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

// The document, and its paths, NAME the kind's schema's name.
const (
	documentTemplate   = `{"openapi":"3.0.0","info":{"title":"Kubernetes CRD Swagger","version":"v0.1.0"},"paths":{},"components":{"schemas":{}}}`
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
// resources, as kube's apiextensions builder makes it, its paths reduced to
// what clients read: each kind's schema and list schema as kube publishes
// them (publish.go), and the get and patch operations of its paths (kubectl
// reads the fieldValidation parameter of the patch).
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
		var collection, item any
		_ = json.Unmarshal([]byte(fill(collectionTemplate)), &collection)
		_ = json.Unmarshal([]byte(fill(itemTemplate)), &item)
		doc.Components.Schemas[name] = kindSchema(r, false)
		doc.Components.Schemas[schemaName(r.Group, r.Version, r.ListKind())] = listSchema(r, false)
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

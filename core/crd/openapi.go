package crd

import (
	"encoding/json"
	"maps"
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

// documentTemplate is a group version's document before its paths and
// schemas.
const documentTemplate = `{"openapi":"3.0.0","info":{"title":"Kubernetes CRD Swagger","version":"v0.1.0"},"paths":{},"components":{"schemas":{}}}`

// deleteOptionsVersions are the group versions kube's builder names
// DeleteOptions in (those of client-go's scheme), where the built-in
// documents name kube-apiserver's.
const deleteOptionsVersions = "v1 admissionregistration.k8s.io/v1 admissionregistration.k8s.io/v1alpha1 admissionregistration.k8s.io/v1beta1 apps/v1 apps/v1beta1 apps/v1beta2 authentication.k8s.io/v1 authentication.k8s.io/v1alpha1 authentication.k8s.io/v1beta1 authorization.k8s.io/v1 authorization.k8s.io/v1beta1 autoscaling/v1 autoscaling/v2 autoscaling/v2beta1 autoscaling/v2beta2 batch/v1 batch/v1beta1 certificates.k8s.io/v1 certificates.k8s.io/v1alpha1 certificates.k8s.io/v1beta1 coordination.k8s.io/v1 coordination.k8s.io/v1alpha2 coordination.k8s.io/v1beta1 discovery.k8s.io/v1 discovery.k8s.io/v1beta1 events.k8s.io/v1 events.k8s.io/v1beta1 extensions/v1beta1 flowcontrol.apiserver.k8s.io/v1 flowcontrol.apiserver.k8s.io/v1beta1 flowcontrol.apiserver.k8s.io/v1beta2 flowcontrol.apiserver.k8s.io/v1beta3 internal.apiserver.k8s.io/v1alpha1 networking.k8s.io/v1 networking.k8s.io/v1alpha1 networking.k8s.io/v1beta1 node.k8s.io/v1 node.k8s.io/v1alpha1 node.k8s.io/v1beta1 policy/v1 policy/v1beta1 rbac.authorization.k8s.io/v1 rbac.authorization.k8s.io/v1alpha1 rbac.authorization.k8s.io/v1beta1 resource.k8s.io/v1alpha3 resource.k8s.io/v1beta1 scheduling.k8s.io/v1 scheduling.k8s.io/v1alpha1 scheduling.k8s.io/v1beta1 storage.k8s.io/v1 storage.k8s.io/v1alpha1 storage.k8s.io/v1beta1 storagemigration.k8s.io/v1alpha1"

// deleteOptionsGVK is DeleteOptions' x-kubernetes-group-version-kind in a
// custom resources' document.
func deleteOptionsGVK() []any {
	var out []any
	for _, gv := range strings.Fields(deleteOptionsVersions) {
		group, version, ok := strings.Cut(gv, "/")
		if !ok {
			group, version = "", gv
		}
		out = append(out, map[string]any{"group": group, "kind": "DeleteOptions", "version": version})
	}
	return out
}

// schemaName is the name of a kind's schema in a document, as kube's builder
// names it: the group reversed, the version, the kind.
func schemaName(group, version, kind string) string {
	parts := strings.Split(group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + version + "." + kind
}

// Document is the OpenAPI v3 document of a group version of custom
// resources, as kube's apiextensions builder makes it: each kind's paths and
// its schema and list schema (publish.go, paths.go).
func Document(_ api.GroupVersion, resources []*api.Resource) ([]byte, bool) {
	var doc map[string]any
	_ = json.Unmarshal([]byte(documentTemplate), &doc)
	paths, schemas := map[string]any{}, map[string]any{}
	for _, r := range resources {
		if r.Custom == nil {
			return nil, false
		}
		maps.Copy(paths, pathsV3(r))
		schemas[schemaName(r.Group, r.Version, r.Kind)] = kindSchema(r, false)
		schemas[schemaName(r.Group, r.Version, r.ListKind())] = listSchema(r, false)
	}
	// The document's own DeleteOptions: the rest of it is the built-in one's.
	schemas["io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"] = map[string]any{"x-kubernetes-group-version-kind": deleteOptionsGVK()}
	doc["paths"], doc["components"] = paths, map[string]any{"schemas": schemas}
	b, err := json.Marshal(doc)
	return b, err == nil
}

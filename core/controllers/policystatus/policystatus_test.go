package policystatus

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestK8S_VAP_SchemaReferencesResolved: a kind's schema as the type checker
// reads it has its references ($ref, a single allOf reference, with the
// referring schema's own members kept) replaced by what they name; a
// reference back into a schema being resolved ends there (no type, as
// a recursive JSONSchemaProps has none to give), and a built-in
// int-or-string is marked as a custom resource's is.
func TestK8S_VAP_SchemaReferencesResolved(t *testing.T) {
	var schemas map[string]any
	if err := json.Unmarshal([]byte(`{
		"Kind": {"type": "object", "properties": {
			"spec": {"allOf": [{"$ref": "#/components/schemas/Spec"}], "default": {}, "description": "the spec"},
			"tree": {"$ref": "#/components/schemas/Tree"}}},
		"Spec": {"type": "object", "properties": {"surge": {"allOf": [{"$ref": "#/components/schemas/IntOrString"}]}, "n": {"type": "integer"}}},
		"IntOrString": {"type": "string", "format": "int-or-string"},
		"Tree": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/components/schemas/Tree"}}}}
	}`), &schemas); err != nil {
		t.Fatal(err)
	}
	got := resolve(schemas["Kind"], schemas, map[string]bool{"Kind": true})
	var want any
	if err := json.Unmarshal([]byte(`{"type": "object", "properties": {
		"spec": {"type": "object", "default": {}, "properties": {
			"surge": {"type": "string", "format": "int-or-string", "x-kubernetes-int-or-string": true}, "n": {"type": "integer"}}},
		"tree": {"type": "object", "properties": {"children": {"type": "array", "items": {}}}}}}`), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		t.Errorf("resolved: %s", g)
	}
}

// TestK8S_VAP_GroupVersionKindPrinted: kinds are named as kube prints a
// GroupVersionKind, the core group's with its leading slash.
func TestK8S_VAP_GroupVersionKindPrinted(t *testing.T) {
	for k, want := range map[gvk]string{{"apps", "v1", "Deployment"}: "apps/v1, Kind=Deployment", {"", "v1", "Pod"}: "/v1, Kind=Pod"} {
		if got := k.String(); got != want {
			t.Errorf("%v: %q, want %q", k, got, want)
		}
	}
}

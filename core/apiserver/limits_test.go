package apiserver

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

// Size limits as kube-apiserver 1.32.13 answers them (recorded against it): a
// ConfigMap's or Secret's values over 1 MiB are a 422 naming "[]" or "data";
// anything else over etcd's request limit is etcd's own 500.
func TestK8S_WRITE_5_SizeLimits(t *testing.T) {
	s := newTestServer(t, testConfig{})
	mib := strings.Repeat("x", 1<<20)
	before := s.srv.Store().Revision()

	s.do("POST", "/api/v1/namespaces/default/configmaps", map[string]any{
		"metadata": map[string]any{"name": "big"}, "data": map[string]any{"a": mib}, "binaryData": map[string]any{"b": "eA=="},
	}).wantStatus(t, 422, "Invalid", `ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes`)
	r := s.do("POST", "/api/v1/namespaces/default/secrets", map[string]any{
		"metadata": map[string]any{"name": "big"}, "stringData": map[string]any{"a": mib + "x"},
	}).wantStatus(t, 422, "Invalid", `Secret "big" is invalid: data: Too long: may not be more than 1048576 bytes`)
	if c := r.Obj["details"].(map[string]any)["causes"].([]any)[0].(map[string]any); c["reason"] != "FieldValueTooLong" || c["field"] != "data" {
		t.Fatalf("cause %v", c)
	}
	pod := map[string]any{"metadata": map[string]any{"name": "big"}, "spec": map[string]any{"containers": []any{
		map[string]any{"name": "c", "image": "x", "env": []any{map[string]any{"name": "A", "value": strings.Repeat("x", 1600<<10)}}},
	}}}
	r = s.do("POST", "/api/v1/namespaces/default/pods", pod).must(t, 500)
	if r.str("message") != "etcdserver: request is too large" || r.str("reason") != "" {
		t.Fatalf("%s", r.Body)
	}
	if after := s.srv.Store().Revision(); after != before {
		t.Fatalf("revision moved from %d to %d", before, after)
	}

	// Exactly 1 MiB of values is allowed; keys do not count.
	s.do("POST", "/api/v1/namespaces/default/configmaps", map[string]any{
		"metadata": map[string]any{"name": "edge"}, "data": map[string]any{"ab": mib[1:]},
	}).must(t, 201)
	// An update over the limit is refused too, and leaves the object as it was.
	s.do("PUT", "/api/v1/namespaces/default/configmaps/edge", map[string]any{
		"metadata": map[string]any{"name": "edge"}, "data": map[string]any{"ab": mib + "x"},
	}).wantStatus(t, 422, "Invalid", `ConfigMap "edge" is invalid: []: Too long: may not be more than 1048576 bytes`)
	s.do("PATCH", "/api/v1/namespaces/default/configmaps/edge", `{"data":{"more":"`+mib+`"}}`, "Content-Type", "application/merge-patch+json").
		wantStatus(t, 422, "Invalid", `ConfigMap "edge" is invalid: []: Too long: may not be more than 1048576 bytes`)
	if got := s.do("GET", "/api/v1/namespaces/default/configmaps/edge", nil).must(t, 200); len(got.str("data", "ab")) != 1<<20-1 {
		t.Fatal("object changed by a refused update")
	}
}

// TestK8S_WRITE_5_SecretStringDataMerged: a Secret's stringData is written into its
// data on every write, as kube's conversion does; the stored Secret has none.
func TestK8S_WRITE_5_SecretStringDataMerged(t *testing.T) {
	s := newTestServer(t, testConfig{})
	r := s.do("POST", "/api/v1/namespaces/default/secrets", map[string]any{
		"metadata": map[string]any{"name": "s"}, "data": map[string]any{"a": "YQ==", "b": "Yg=="}, "stringData": map[string]any{"b": "over", "c": "sea"},
	}).must(t, 201)
	data, _ := r.Obj["data"].(map[string]any)
	if _, has := r.Obj["stringData"]; has || data["a"] != "YQ==" || data["b"] != base64.StdEncoding.EncodeToString([]byte("over")) || data["c"] != "c2Vh" {
		t.Fatalf("%s", r.Body)
	}
	r = s.do("PUT", "/api/v1/namespaces/default/secrets/s", map[string]any{
		"metadata": map[string]any{"name": "s"}, "stringData": map[string]any{"d": "dee"},
	}).must(t, 200)
	if data, _ := r.Obj["data"].(map[string]any); len(data) != 1 || data["d"] != "ZGVl" {
		t.Fatalf("%s", r.Body)
	}
}

// nested is value nested in depth objects of one field a: {"a":{"a":…value…}}.
func nested(depth int, value string) string {
	return strings.Repeat(`{"a":`, depth) + value + strings.Repeat(`}`, depth)
}

// deepDefinition is a definition of kind Deep whose schema nests depth
// objects with a property a, the innermost a string.
func deepDefinition(depth int) string {
	return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"deeps.example.com"},` +
		`"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"deeps","kind":"Deep","listKind":"DeepList","singular":"deep"},` +
		`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":` +
		strings.Repeat(`{"type":"object","properties":{"a":`, depth) + `{"type":"string"}` + strings.Repeat(`}}`, depth) + `}}]}}`
}

// TestROB_1_NestingAsKube: how deep a request may nest, as kube-apiserver
// 1.32.13 answers (recorded against it). No schema depth is checked: a
// definition is refused only past the JSON (or YAML) decoders' limit of 10,000
// nested objects and arrays, which holds every body, built-in kinds' included
// (a ConfigMap with a field it does not have nested 10,001 deep is refused
// too, however little the decoder keeps of it); within it, objects as deep as
// their schema are checked, and their errors named, as kube names them.
// (kube also stores a custom object whose own nesting passes but whose
// managedFields nest past 10,000, and then cannot read it back: 500 on
// create, get and delete; kubeplay serves it.)
func TestROB_1_NestingAsKube(t *testing.T) {
	s := newTestServer(t, testConfig{})
	unrecognized := func(kind, c, body string) string {
		return fmt.Sprintf("the object provided is unrecognized (must be of type %s): couldn't get version/kind; json parse error: "+
			"invalid character '%s' exceeded max depth (%s ...)", kind, c, body[:30])
	}
	// A definition 4,997 levels deep is 10,000 deep as JSON (or YAML); one
	// more level is refused.
	def := deepDefinition(4997)
	s.do("POST", crdPath+"?dryRun=All", def).must(t, 201)
	def = deepDefinition(4998)
	s.do("POST", crdPath, def).wantStatus(t, 400, "BadRequest", unrecognized("CustomResourceDefinition", "{", def))
	s.do("POST", crdPath, def, "Content-Type", "application/yaml").wantStatus(t, 400, "BadRequest",
		"the object provided is unrecognized (must be of type CustomResourceDefinition): yaml: exceeded max depth of 10000 ("+def[:30]+" ...)")

	// A built-in kind: what it does not have counts as well.
	const cms = "/api/v1/namespaces/default/configmaps"
	body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"foo":` + nested(9999, "1") + `}`
	s.do("POST", cms+"?dryRun=All", body).must(t, 201)
	body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"foo":` + nested(10000, "1") + `}`
	s.do("POST", cms, body).wantStatus(t, 400, "BadRequest", unrecognized("ConfigMap", "{", body))
	body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"foo":` + nested(9999, "[]") + `}`
	s.do("POST", cms, body).wantStatus(t, 400, "BadRequest", unrecognized("ConfigMap", "[", body))

	// Custom objects, as deep as their schema: errors at the bottom are
	// named by their whole path.
	s.do("POST", crdPath, deepDefinition(1000)).must(t, 201)
	const deeps = "/apis/example.com/v1/namespaces/default/deeps"
	s.established(t, "deeps.example.com", deeps)
	obj := func(value string) string {
		return `{"apiVersion":"example.com/v1","kind":"Deep","metadata":{"name":"x"},"a":` + nested(999, value) + `}`
	}
	s.do("POST", deeps+"?dryRun=All", obj(`"s"`)).must(t, 201)
	path := strings.Repeat("a.", 999) + "a"
	s.do("POST", deeps, obj("1")).wantStatus(t, 422, "Invalid",
		`Deep.example.com "x" is invalid: `+path+`: Invalid value: "integer": `+path+` in body must be of type string: "integer"`)
	s.do("POST", deeps+"?fieldValidation=Strict", obj(`{"b":1}`)).wantStatus(t, 400, "BadRequest",
		`Deep in version "v1" cannot be handled as a Deep: strict decoding error: unknown field "`+path+`.b"`)
	// Past the limit, whatever the schema.
	body = `{"apiVersion":"example.com/v1","kind":"Deep","metadata":{"name":"x"},"a":` + nested(10000, "1") + `}`
	s.do("POST", deeps, body).wantStatus(t, 400, "BadRequest", unrecognized("Deep", "{", body))
}

package apiserver

import (
	"encoding/base64"
	"strings"
	"testing"
)

// Size limits as kube-apiserver 1.32.13 answers them (recorded against it): a
// ConfigMap's or Secret's values over 1 MiB are a 422 naming "[]" or "data";
// anything else over etcd's request limit is etcd's own 500.
func TestK8S_WRITE_5_SizeLimits(t *testing.T) {
	s := newTestServer(t, Config{})
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
	s := newTestServer(t, Config{})
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

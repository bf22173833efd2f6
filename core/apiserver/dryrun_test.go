package apiserver

import (
	"testing"
)

// TestK8S_WRITE_3_DryRunRefusedUntilImplemented: until dry run exists, a write
// that asks for one is a 400 and changes nothing — no object created, updated,
// patched or deleted, no revision spent, no watch event.
func TestK8S_WRITE_3_DryRunRefusedUntilImplemented(t *testing.T) {
	s := newTestServer(t, Config{})
	s.createCM("default", "keep", map[string]string{"app": "web"})
	w := s.watch("/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=" + s.do("GET", "/api/v1/namespaces/default/configmaps", nil).must(t, 200).str("metadata", "resourceVersion"))
	before := s.srv.Store().Revision()
	const msg = "dryRun is not supported by kubeplay yet: the request was not performed"
	for _, c := range []struct {
		method, path, contentType string
		body                      any
	}{
		{"POST", "/api/v1/namespaces/default/configmaps?dryRun=All", "", cm("drytest", nil, map[string]string{"a": "b"})},
		{"PUT", "/api/v1/namespaces/default/configmaps/keep?dryRun=All", "", cm("keep", nil, map[string]string{"k": "changed"})},
		{"PATCH", "/api/v1/namespaces/default/configmaps/keep?dryRun=All", "application/merge-patch+json", `{"data":{"k":"patched"}}`},
		{"DELETE", "/api/v1/namespaces/default/configmaps/keep?dryRun=All", "", nil},
		{"DELETE", "/api/v1/namespaces/default/configmaps?dryRun=All", "", nil},
		{"DELETE", "/api/v1/namespaces/default/configmaps/keep?dryRun=", "", nil},
		{"DELETE", "/api/v1/namespaces/default/configmaps/keep", "", map[string]any{"kind": "DeleteOptions", "apiVersion": "v1", "dryRun": []string{"All"}}},
		{"PUT", "/api/v1/namespaces/default?dryRun=All", "", map[string]any{"metadata": map[string]any{"name": "default"}}},
	} {
		var headers []string
		if c.contentType != "" {
			headers = []string{"Content-Type", c.contentType}
		}
		s.do(c.method, c.path, c.body, headers...).wantStatus(t, 400, "BadRequest", msg)
	}
	if after := s.srv.Store().Revision(); after != before {
		t.Fatalf("revision moved from %d to %d", before, after)
	}
	got := s.do("GET", "/api/v1/namespaces/default/configmaps/keep", nil).must(t, 200)
	if got.str("data", "k") != "v" {
		t.Fatalf("object changed: %s", got.Body)
	}
	s.do("GET", "/api/v1/namespaces/default/configmaps/drytest", nil).must(t, 404)
	w.quiet(200 * 1e6)
	// Reads ignore the parameter, as kube does.
	s.do("GET", "/api/v1/namespaces/default/configmaps/keep?dryRun=All", nil).must(t, 200)
}

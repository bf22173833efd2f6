package apiserver

import (
	"testing"
)

// TestK8S_WRITE_3_DryRun: dryRun=All runs every stage but storage, as
// kube-apiserver 1.32.13 answers it (recorded against it): a create shows the
// object with its generated uid, name and timestamp and no resourceVersion; an
// update shows the new object at the current resourceVersion; a delete answers as
// if it deleted. Nothing changes: no revision, no watch event, the object as it
// was. Other values are a 422 on the verb's options kind.
func TestK8S_WRITE_3_DryRun(t *testing.T) {
	s := newTestServer(t, testConfig{})
	s.createCM("default", "keep", map[string]string{"app": "web"})
	w := s.watch("/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=" + s.do("GET", "/api/v1/namespaces/default/configmaps", nil).must(t, 200).str("metadata", "resourceVersion"))
	before := s.srv.Store().Revision()
	rv := s.do("GET", "/api/v1/namespaces/default/configmaps/keep", nil).str("metadata", "resourceVersion")

	created := s.do("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", map[string]any{
		"metadata": map[string]any{"generateName": "dry-"}, "data": map[string]any{"a": "b"}}).must(t, 201)
	if created.str("metadata", "uid") == "" || created.str("metadata", "creationTimestamp") == "" ||
		len(created.str("metadata", "name")) != len("dry-")+5 || created.str("metadata", "resourceVersion") != "" {
		t.Fatalf("dry-run create: %s", created.Body)
	}
	again := s.do("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", map[string]any{
		"metadata": map[string]any{"generateName": "dry-"}}).must(t, 201)
	if again.str("metadata", "uid") == created.str("metadata", "uid") || again.str("metadata", "name") == created.str("metadata", "name") {
		t.Fatal("K8S-GEN-1: generated values repeat between runs")
	}
	s.do("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", cm("keep", nil, nil)).
		wantStatus(t, 409, "AlreadyExists", `configmaps "keep" already exists`)
	updated := s.do("PUT", "/api/v1/namespaces/default/configmaps/keep?dryRun=All", cm("keep", nil, map[string]string{"k": "changed"})).must(t, 200)
	if updated.str("data", "k") != "changed" || updated.str("metadata", "resourceVersion") != rv {
		t.Fatalf("dry-run update: %s", updated.Body)
	}
	s.do("PATCH", "/api/v1/namespaces/default/configmaps/keep?dryRun=All", `{"data":{"k":"patched"}}`, "Content-Type", "application/merge-patch+json").must(t, 200)
	del := s.do("DELETE", "/api/v1/namespaces/default/configmaps/keep?dryRun=All", nil).must(t, 200)
	if del.str("status") != "Success" || del.str("details", "uid") == "" {
		t.Fatalf("dry-run delete: %s", del.Body)
	}
	s.do("DELETE", "/api/v1/namespaces/default/configmaps/keep", map[string]any{"kind": "DeleteOptions", "apiVersion": "v1", "dryRun": []string{"All"}}).must(t, 200)
	s.do("DELETE", "/api/v1/namespaces/default/configmaps?dryRun=All", nil).must(t, 200)
	s.do("PUT", "/api/v1/namespaces/default?dryRun=All", map[string]any{"metadata": map[string]any{"name": "default", "labels": map[string]any{"x": "y"}}}).must(t, 200)

	if after := s.srv.Store().Revision(); after != before {
		t.Fatalf("revision moved from %d to %d", before, after)
	}
	got := s.do("GET", "/api/v1/namespaces/default/configmaps/keep", nil).must(t, 200)
	if got.str("data", "k") != "v" || got.str("metadata", "resourceVersion") != rv {
		t.Fatalf("object changed: %s", got.Body)
	}
	if names := s.do("GET", "/api/v1/namespaces/default/configmaps", nil).names(); len(names) != 1 {
		t.Fatalf("objects after dry runs: %v", names)
	}
	w.quiet(200 * 1e6)

	for _, c := range []struct{ method, path, kind string }{
		{"POST", "/api/v1/namespaces/default/configmaps?dryRun=Foo", "CreateOptions"},
		{"PUT", "/api/v1/namespaces/default/configmaps/keep?dryRun=", "UpdateOptions"},
		{"DELETE", "/api/v1/namespaces/default/configmaps/keep?dryRun=all", "DeleteOptions"},
	} {
		bad := `[]string{"Foo"}`
		switch c.kind {
		case "UpdateOptions":
			bad = `[]string{""}`
		case "DeleteOptions":
			bad = `[]string{"all"}`
		}
		var body any = cm("keep", nil, nil)
		if c.method == "DELETE" {
			body = nil // a delete's options come from its body, else from the query
		}
		s.do(c.method, c.path, body).wantStatus(t, 422, "Invalid",
			c.kind+`.meta.k8s.io "" is invalid: dryRun: Unsupported value: `+bad+`: supported values: "All"`)
	}
	// Reads ignore the parameter, as kube does.
	s.do("GET", "/api/v1/namespaces/default/configmaps/keep?dryRun=All", nil).must(t, 200)
}

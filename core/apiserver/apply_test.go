package apiserver

import (
	"strings"
	"testing"
)

// TestK8S_WRITE_2_BadApplyWritesNothing: every bad apply is refused with
// kube-apiserver's code and reason (its exact messages are checked by
// TestK8S_WRITE_2_ManagedFieldsAsKube) and changes nothing: the store's
// revision and the object stay as they were.
func TestK8S_WRITE_2_BadApplyWritesNothing(t *testing.T) {
	s := newTestServer(t, testConfig{})
	const path = "/api/v1/namespaces/default/configmaps/c"
	const yaml = "application/apply-patch+yaml"
	cfg := func(extra string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n" + extra
	}
	s.do("PATCH", path+"?fieldManager=m", cfg("data:\n  a: \"1\"\n"), "Content-Type", yaml).must(t, 201)
	before := s.srv.Store().Revision()
	stored := string(s.do("GET", path, nil).must(t, 200).Body)

	for _, c := range []struct {
		name, method, path, contentType, body string
		code                                  int
		reason                                string
	}{
		{"no fieldManager", "PATCH", path, yaml, cfg("data:\n  a: \"2\"\n"), 422, "Invalid"},
		{"fieldManager too long", "PATCH", path + "?fieldManager=" + strings.Repeat("m", 129), yaml, cfg(""), 422, "Invalid"},
		{"force on a merge patch", "PATCH", path + "?force=true", "application/merge-patch+json", `{}`, 422, "Invalid"},
		{"bad YAML", "PATCH", path + "?fieldManager=m", yaml, "a: [b", 400, "BadRequest"},
		{"a list", "PATCH", path + "?fieldManager=m", yaml, "- a", 400, "BadRequest"},
		{"bad CBOR", "PATCH", path + "?fieldManager=m", "application/apply-patch+cbor", "not cbor", 400, "BadRequest"},
		{"another kind", "PATCH", path + "?fieldManager=m", yaml, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: c\n", 400, "BadRequest"},
		{"another apiVersion", "PATCH", path + "?fieldManager=m", yaml, "apiVersion: v2\nkind: ConfigMap\nmetadata:\n  name: c\n", 400, "BadRequest"},
		{"another name", "PATCH", path + "?fieldManager=m", yaml, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n", 400, "BadRequest"},
		{"no name for a new object", "PATCH", "/api/v1/namespaces/default/configmaps/new?fieldManager=m", yaml, "apiVersion: v1\nkind: ConfigMap\n", 400, "BadRequest"},
		{"another namespace", "PATCH", path + "?fieldManager=m", yaml, cfg("  namespace: kube-system\n"), 400, "BadRequest"},
		{"managedFields", "PATCH", path + "?fieldManager=m", yaml, cfg("  managedFields: []\n"), 400, "BadRequest"},
		{"another uid", "PATCH", path + "?fieldManager=m", yaml, cfg("  uid: abc\n"), 422, "Invalid"},
		{"a stale resourceVersion", "PATCH", path + "?fieldManager=m", yaml, cfg("  resourceVersion: \"1\"\n"), 409, "Conflict"},
		{"a conflict", "PATCH", path + "?fieldManager=other", yaml, cfg("data:\n  a: \"2\"\n"), 409, "Conflict"},
		// kube answers these with a 500 and no reason (structured-merge-diff's
		// error): kubeplay answers as kube does.
		{"a value of the wrong type", "PATCH", path + "?fieldManager=m", yaml, cfg("data:\n  a: 1\n"), 500, ""},
		{"an unknown field", "PATCH", path + "?fieldManager=m", yaml, cfg("foo: bar\n"), 500, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := s.do(c.method, c.path, c.body, "Content-Type", c.contentType)
			if r.Code != c.code || r.str("reason") != c.reason || r.str("kind") != "Status" {
				t.Fatalf("got %d %q, want %d %q: %s", r.Code, r.str("reason"), c.code, c.reason, r.Body)
			}
			if after := s.srv.Store().Revision(); after != before {
				t.Fatalf("revision moved from %d to %d", before, after)
			}
			if now := string(s.do("GET", path, nil).Body); now != stored {
				t.Fatalf("object changed:\n%s\nwas\n%s", now, stored)
			}
		})
	}
	s.do("GET", "/api/v1/namespaces/default/configmaps/new", nil).must(t, 404)
}

// TestK8S_WRITE_2_ApplyCreatesWhateverTheKind: an apply to a missing object
// creates it (201), even for a kind PUT does not create; then it updates
// (200); an apply to a missing object's subresource is 404.
func TestK8S_WRITE_2_ApplyCreatesWhateverTheKind(t *testing.T) {
	s := newTestServer(t, testConfig{})
	body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":"1"}}`
	s.do("PUT", "/api/v1/namespaces/default/configmaps/x", body).wantStatus(t, 404, "NotFound", `configmaps "x" not found`)
	s.do("PATCH", "/api/v1/namespaces/default/configmaps/x?fieldManager=m", body, "Content-Type", "application/apply-patch+yaml").must(t, 201)
	s.do("PATCH", "/api/v1/namespaces/default/configmaps/x?fieldManager=m", body, "Content-Type", "application/apply-patch+yaml").must(t, 200)
	s.do("PATCH", "/apis/apps/v1/namespaces/default/deployments/d/status?fieldManager=m",
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"status":{"replicas":1}}`,
		"Content-Type", "application/apply-patch+yaml").wantStatus(t, 404, "NotFound", `deployments.apps "d" not found`)
}

// TestK8S_WRITE_3_DryRunApply: an apply with dryRun=All answers with the object
// it would store (created, or merged, with its managedFields) and stores
// nothing: no revision, no watch event, the object as it was.
func TestK8S_WRITE_3_DryRunApply(t *testing.T) {
	s := newTestServer(t, testConfig{})
	const path = "/api/v1/namespaces/default/configmaps/c"
	body := func(v string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"` + v + `"}}`
	}
	created := s.do("PATCH", path+"?fieldManager=alice&dryRun=All", body("1"), "Content-Type", "application/apply-patch+yaml").must(t, 201)
	mf, _ := created.Obj["metadata"].(map[string]any)["managedFields"].([]any)
	if created.str("metadata", "uid") == "" || created.str("metadata", "resourceVersion") != "" || len(mf) != 1 {
		t.Fatalf("dry-run create: %s", created.Body)
	}
	s.do("GET", path, nil).must(t, 404)
	s.do("PATCH", path+"?fieldManager=alice", body("1"), "Content-Type", "application/apply-patch+yaml").must(t, 201)
	stored := string(s.do("GET", path, nil).must(t, 200).Body)
	before := s.srv.Store().Revision()
	w := s.watch("/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=" + s.do("GET", path, nil).str("metadata", "resourceVersion"))
	forced := s.do("PATCH", path+"?fieldManager=bob&force=true&dryRun=All", body("2"), "Content-Type", "application/apply-patch+yaml").must(t, 200)
	if forced.str("data", "a") != "2" {
		t.Fatalf("dry-run apply: %s", forced.Body)
	}
	s.do("PATCH", path+"?fieldManager=bob&dryRun=All", body("2"), "Content-Type", "application/apply-patch+yaml").wantStatus(t, 409, "Conflict",
		`Apply failed with 1 conflict: conflict with "alice": .data.a`)
	if after := s.srv.Store().Revision(); after != before {
		t.Fatalf("revision moved from %d to %d", before, after)
	}
	if now := string(s.do("GET", path, nil).Body); now != stored {
		t.Fatalf("object changed:\n%s\nwas\n%s", now, stored)
	}
	w.quiet(200 * 1e6)
}

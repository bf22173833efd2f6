package apiserver

import (
	"strings"
	"testing"
)

func TestK8S_VERB_1_CRUD(t *testing.T) {
	s := newTestServer(t, testConfig{})
	const coll = "/api/v1/namespaces/default/configmaps"
	created := s.createCM("default", "a", map[string]string{"app": "x"})
	if created.str("kind") != "ConfigMap" || created.str("apiVersion") != "v1" || created.str("data", "k") != "v" {
		t.Fatalf("create: %s", created.Body)
	}
	got := s.do("GET", coll+"/a", nil).must(t, 200)
	if string(got.Body) != string(created.Body) {
		t.Fatalf("get differs from create:\n%s\n%s", got.Body, created.Body)
	}
	if names := s.do("GET", coll, nil).must(t, 200).names(); len(names) != 1 || names[0] != "a" {
		t.Fatalf("list: %v", names)
	}

	// Update with the current resourceVersion bumps it; a stale one conflicts.
	body := got.Obj
	body["data"] = map[string]any{"k": "v2"}
	upd := s.do("PUT", coll+"/a", body).must(t, 200)
	if upd.str("data", "k") != "v2" || upd.str("metadata", "resourceVersion") == got.str("metadata", "resourceVersion") {
		t.Fatalf("update: %s", upd.Body)
	}
	s.do("PUT", coll+"/a", body).wantStatus(t, 409, "Conflict",
		`Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again`)
	// An update that changes nothing keeps the resourceVersion.
	same := s.do("PUT", coll+"/a", upd.Obj).must(t, 200)
	if same.str("metadata", "resourceVersion") != upd.str("metadata", "resourceVersion") {
		t.Fatal("no-op update bumped resourceVersion")
	}
	// PUT to a missing ConfigMap does not create it (kube allows that only for
	// some kinds, such as Events and Leases).
	s.do("PUT", coll+"/missing", cm("missing", nil, nil)).wantStatus(t, 404, "NotFound", `configmaps "missing" not found`)
	ev := map[string]any{"apiVersion": "v1", "kind": "Event", "metadata": map[string]any{"name": "e1"},
		"involvedObject": map[string]any{"kind": "ConfigMap", "name": "a", "namespace": "default"}}
	s.do("PUT", "/api/v1/namespaces/default/events/e1", ev).must(t, 201)
	// The URL's name wins and must match the body's.
	s.do("PUT", coll+"/a", cm("b", nil, nil)).wantStatus(t, 400, "BadRequest",
		"the name of the object (b) does not match the name on the URL (a)")

	// Merge patch.
	p := s.do("PATCH", coll+"/a", `{"data":{"extra":"1"}}`, "Content-Type", "application/merge-patch+json").must(t, 200)
	if p.str("data", "extra") != "1" || p.str("data", "k") != "v2" {
		t.Fatalf("patch: %s", p.Body)
	}

	// Delete answers a success Status for ConfigMaps.
	del := s.do("DELETE", coll+"/a", nil).must(t, 200)
	if del.str("kind") != "Status" || del.str("status") != "Success" || del.str("details", "name") != "a" || del.str("details", "kind") != "configmaps" {
		t.Fatalf("delete: %s", del.Body)
	}
	s.do("GET", coll+"/a", nil).wantStatus(t, 404, "NotFound", `configmaps "a" not found`)
	s.do("DELETE", coll+"/a", nil).wantStatus(t, 404, "NotFound", `configmaps "a" not found`)

	// Delete collection, with a selector.
	for _, n := range []string{"x1", "x2", "y1"} {
		app := "x"
		if strings.HasPrefix(n, "y") {
			app = "y"
		}
		s.createCM("default", n, map[string]string{"app": app})
	}
	dc := s.do("DELETE", coll+"?labelSelector=app%3Dx", nil).must(t, 200)
	if dc.str("kind") != "ConfigMapList" || len(dc.items()) != 2 {
		t.Fatalf("deletecollection: %s", dc.Body)
	}
	if names := s.do("GET", coll, nil).names(); len(names) != 1 || names[0] != "y1" {
		t.Fatalf("after deletecollection: %v", names)
	}
}

func TestK8S_VERB_1_DeleteFinalizersAndPreconditions(t *testing.T) {
	s := newTestServer(t, testConfig{})
	const path = "/api/v1/namespaces/default/configmaps/f"
	body := cm("f", nil, nil)
	body["metadata"].(map[string]any)["finalizers"] = []string{"example.com/hold"}
	created := s.do("POST", "/api/v1/namespaces/default/configmaps", body).must(t, 201)

	s.do("DELETE", path, map[string]any{"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": map[string]any{"uid": "nope"}}).
		wantStatus(t, 409, "Conflict", `Operation cannot be fulfilled on ConfigMap "f": the UID in the precondition (nope) does not match the UID in record (`+created.str("metadata", "uid")+`). The object might have been deleted and then recreated`)

	// With a finalizer, delete only marks the object.
	marked := s.do("DELETE", path, nil).must(t, 200)
	if marked.str("kind") != "ConfigMap" || marked.str("metadata", "deletionTimestamp") == "" {
		t.Fatalf("finalizer delete: %s", marked.Body)
	}
	s.do("GET", path, nil).must(t, 200)
	// Removing the last finalizer completes the deletion.
	obj := marked.Obj
	obj["metadata"].(map[string]any)["finalizers"] = []any{}
	s.do("PUT", path, obj).must(t, 200)
	s.do("GET", path, nil).wantStatus(t, 404, "NotFound", "")
}

func TestK8S_VERB_1_MethodNotAllowed(t *testing.T) {
	s := newTestServer(t, testConfig{})
	cases := []struct{ method, path, allow string }{
		{"POST", "/api/v1/namespaces/default/configmaps/a", "DELETE, GET, PATCH, PUT"},
		{"PUT", "/api/v1/namespaces/default/configmaps", "GET, POST, DELETE"},
		{"POST", "/api/v1/configmaps", "GET"},
		{"DELETE", "/api/v1/watch/namespaces/default/configmaps", "GET"},
	}
	for _, c := range cases {
		r := s.do(c.method, c.path, "{}").wantStatus(t, 405, "MethodNotAllowed", "the server does not allow this method on the requested resource")
		if got := r.Header.Get("Allow"); got != c.allow {
			t.Errorf("%s %s: Allow %q, want %q", c.method, c.path, got, c.allow)
		}
	}
}

func TestK8S_VERB_2_SingleObjectOnly(t *testing.T) {
	s := newTestServer(t, testConfig{})
	rev := s.srv.Store().Revision()
	list := `{"kind":"ConfigMapList","apiVersion":"v1","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`
	s.do("POST", "/api/v1/namespaces/default/configmaps", list).wantStatus(t, 400, "BadRequest", "")
	s.do("POST", "/api/v1/namespaces/default/configmaps", `[{"metadata":{"name":"a"}}]`).wantStatus(t, 400, "BadRequest", "")
	if s.srv.Store().Revision() != rev {
		t.Fatal("a rejected multi-object body changed the store")
	}
}

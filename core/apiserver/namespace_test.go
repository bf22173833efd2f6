package apiserver

import (
	"slices"
	"testing"
	"time"

	"kubeplay/core/clock"
	"kubeplay/core/object"
)

func TestK8S_NS_1_SystemNamespaces(t *testing.T) {
	s := newTestServer(t, testConfig{})
	names := s.do("GET", "/api/v1/namespaces", nil).must(t, 200).names()
	for _, want := range []string{"default", "kube-node-lease", "kube-public", "kube-system"} {
		if !slices.Contains(names, want) {
			t.Fatalf("missing namespace %s in %v", want, names)
		}
	}
	ns := s.do("GET", "/api/v1/namespaces/default", nil).must(t, 200)
	if ns.str("status", "phase") != "Active" {
		t.Fatalf("default: %s", ns.Body)
	}
	// The system namespaces cannot be deleted.
	s.do("DELETE", "/api/v1/namespaces/kube-system", nil).
		wantStatus(t, 403, "Forbidden", `namespaces "kube-system" is forbidden: this namespace may not be deleted`)
}

func TestK8S_NS_1_CreateIntoMissingNamespace(t *testing.T) {
	s := newTestServer(t, testConfig{})
	s.do("POST", "/api/v1/namespaces/nope/configmaps", cm("a", nil, nil)).
		wantStatus(t, 404, "NotFound", `namespaces "nope" not found`)
}

func TestK8S_NS_1_DeleteCascades(t *testing.T) {
	s := newTestServer(t, testConfig{})
	s.do("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "team"}}).must(t, 201)
	for _, n := range []string{"a", "b", "c"} {
		s.createCM("team", n, nil)
	}
	s.createCM("default", "keep", nil)
	w := s.watch("/api/v1/namespaces/team/configmaps?watch=1&resourceVersion=" + s.do("GET", "/api/v1/namespaces/team/configmaps", nil).str("metadata", "resourceVersion"))

	del := s.do("DELETE", "/api/v1/namespaces/team", nil).must(t, 200)
	if del.str("kind") != "Namespace" || del.str("status", "phase") != "Terminating" || del.str("metadata", "deletionTimestamp") == "" {
		t.Fatalf("delete answer: %s", del.Body)
	}
	// While it terminates, nothing new may be created in it.
	r := s.do("POST", "/api/v1/namespaces/team/configmaps", cm("late", nil, nil))
	if r.Code == 403 {
		r.wantStatus(t, 403, "Forbidden", `configmaps "late" is forbidden: unable to create new content in namespace team because it is being terminated`)
		if object.Path(r.Obj, "details", "causes").([]any)[0].(map[string]any)["reason"] != "NamespaceTerminating" {
			t.Fatalf("cause: %s", r.Body)
		}
	} else if r.Code != 404 { // the controller may already have finished
		t.Fatalf("create in terminating namespace: %d %s", r.Code, r.Body)
	}
	// Its contents are deleted (seen by a watcher), then the namespace is gone.
	deleted := map[string]bool{}
	for len(deleted) < 3 {
		e := w.next()
		if e.Type != "DELETED" {
			t.Fatalf("event %s %s", e.Type, e.name())
		}
		deleted[e.name()] = true
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.do("GET", "/api/v1/namespaces/team", nil).Code != 404 {
		if time.Now().After(deadline) {
			t.Fatal("namespace not removed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(s.do("GET", "/api/v1/namespaces/team/configmaps", nil).items()); n != 0 {
		t.Fatalf("%d objects left in deleted namespace", n)
	}
	s.do("GET", "/api/v1/namespaces/default/configmaps/keep", nil).must(t, 200)
	// The name can be used again.
	s.do("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "team"}}).must(t, 201)
}

func TestK8S_NS_1_FinalizerHoldsNamespace(t *testing.T) {
	clk := clock.NewFake(time.Now())
	s := newTestServer(t, testConfig{Config: Config{Clock: clk}})
	s.do("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "held"}}).must(t, 201)
	s.do("POST", "/api/v1/namespaces/held/configmaps", map[string]any{
		"metadata": map[string]any{"name": "pinned", "finalizers": []string{"example.com/hold"}},
	}).must(t, 201)
	s.do("DELETE", "/api/v1/namespaces/held", nil).must(t, 200)
	// The object's finalizer holds it, and it holds the namespace.
	deadline := time.Now().Add(10 * time.Second)
	for s.do("GET", "/api/v1/namespaces/held/configmaps/pinned", nil).str("metadata", "deletionTimestamp") == "" {
		if time.Now().After(deadline) {
			t.Fatal("the namespace controller never deleted the content")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The controller looks again every second, by its clock: still held.
	for range 3 {
		clk.Step(time.Second)
		time.Sleep(10 * time.Millisecond)
	}
	if r := s.do("GET", "/api/v1/namespaces/held", nil).must(t, 200); r.str("status", "phase") != "Terminating" {
		t.Fatalf("namespace: %s", r.Body)
	}
	// Releasing the finalizer lets the next look finish the namespace.
	s.do("PATCH", "/api/v1/namespaces/held/configmaps/pinned", `{"metadata":{"finalizers":null}}`,
		"Content-Type", "application/merge-patch+json").must(t, 200)
	deadline = time.Now().Add(10 * time.Second)
	for s.do("GET", "/api/v1/namespaces/held", nil).Code != 404 {
		if time.Now().After(deadline) {
			t.Fatal("namespace not removed after its content's finalizer was released")
		}
		clk.Step(time.Second)
		time.Sleep(5 * time.Millisecond)
	}
}

// TestK8S_NS_1_FinalizeSubresource: PUT namespaces/NAME/finalize changes
// spec.finalizers and nothing else, as kube's finalize strategy does.
func TestK8S_NS_1_FinalizeSubresource(t *testing.T) {
	s := newTestServer(t, testConfig{})
	ns := s.do("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "fin"}}).must(t, 201)
	body := ns.Obj
	body["spec"] = map[string]any{"finalizers": []any{"kubernetes", "example.com/extra"}}
	object.Meta(body)["labels"] = map[string]any{"ignored": "yes"}
	r := s.do("PUT", "/api/v1/namespaces/fin/finalize", body).must(t, 200)
	if f := object.Strings(r.Obj["spec"].(map[string]any), "finalizers"); len(f) != 2 || f[1] != "example.com/extra" {
		t.Fatalf("%s", r.Body)
	}
	if r.str("metadata", "labels", "ignored") != "" {
		t.Fatalf("finalize changed labels: %s", r.Body)
	}
	s.do("GET", "/api/v1/namespaces/fin/finalize", nil).must(t, 405)
}

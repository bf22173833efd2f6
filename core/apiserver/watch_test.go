package apiserver

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/storage"
)

const cmWatch = "/api/v1/namespaces/default/configmaps?watch=1"

func (s *testServer) listRV(path string) string {
	s.t.Helper()
	return s.do("GET", path, nil).must(s.t, 200).str("metadata", "resourceVersion")
}

func TestK8S_WATCH_1_ListThenWatch(t *testing.T) {
	s := newTestServer(t, testConfig{})
	s.createCM("default", "a", nil)
	rv := s.listRV("/api/v1/namespaces/default/configmaps")
	w := s.watch(cmWatch + "&resourceVersion=" + rv)
	if ct := w.resp.Header.Get("Content-Type"); ct != "application/json" || w.resp.StatusCode != 200 {
		t.Fatalf("watch answer %d %q", w.resp.StatusCode, ct)
	}
	b := s.createCM("default", "b", nil)
	a := s.do("GET", "/api/v1/namespaces/default/configmaps/a", nil).Obj
	a["data"] = map[string]any{"k": "changed"}
	s.do("PUT", "/api/v1/namespaces/default/configmaps/a", a).must(t, 200)
	s.do("DELETE", "/api/v1/namespaces/default/configmaps/b", nil).must(t, 200)

	want := []struct{ typ, name string }{{"ADDED", "b"}, {"MODIFIED", "a"}, {"DELETED", "b"}}
	last := 0
	for _, wnt := range want {
		e := w.next()
		if e.Type != wnt.typ || e.name() != wnt.name {
			t.Fatalf("got %s %s, want %s %s", e.Type, e.name(), wnt.typ, wnt.name)
		}
		if e.Object["kind"] != "ConfigMap" || e.Object["apiVersion"] != "v1" {
			t.Fatalf("event object lacks its type: %v", e.Object)
		}
		n, _ := strconv.Atoi(e.rv())
		if n <= last {
			t.Fatalf("resourceVersions not increasing: %d after %d", n, last)
		}
		last = n
	}
	if e := b.str("metadata", "resourceVersion"); e == "" {
		t.Fatal("no rv")
	}
	w.quiet(100 * time.Millisecond)
}

func TestK8S_WATCH_2_StartSemantics(t *testing.T) {
	s := newTestServer(t, testConfig{})
	s.createCM("default", "a", nil)
	s.createCM("default", "b", nil)
	rv := s.listRV("/api/v1/namespaces/default/configmaps")

	// Unset and "0": synthetic ADDED for the current state, then changes.
	for _, q := range []string{"", "&resourceVersion=0"} {
		w := s.watch(cmWatch + q)
		got := map[string]bool{}
		for i := 0; i < 2; i++ {
			e := w.next()
			if e.Type != "ADDED" {
				t.Fatalf("%q: initial event %s", q, e.Type)
			}
			got[e.name()] = true
		}
		if !got["a"] || !got["b"] {
			t.Fatalf("%q: initial state %v", q, got)
		}
		w.quiet(50 * time.Millisecond)
		w.close()
	}
	// An exact resourceVersion: no synthetic events, only what follows it.
	w := s.watch(cmWatch + "&resourceVersion=" + rv)
	w.quiet(50 * time.Millisecond)
	s.createCM("default", "c", nil)
	if e := w.next(); e.Type != "ADDED" || e.name() != "c" {
		t.Fatalf("got %s %s", e.Type, e.name())
	}
	// Starting from an older revision replays what happened since.
	first := s.do("GET", "/api/v1/namespaces/default/configmaps/a", nil).str("metadata", "resourceVersion")
	r := s.watch(cmWatch + "&resourceVersion=" + first)
	for _, want := range []string{"b", "c"} {
		if e := r.next(); e.Type != "ADDED" || e.name() != want {
			t.Fatalf("replay: got %s %s, want ADDED %s", e.Type, e.name(), want)
		}
	}
}

func TestK8S_WATCH_3_TooOldResourceVersion(t *testing.T) {
	s := newTestServer(t, testConfig{Storage: storage.Config{HistoryLimit: 5}})
	first := s.createCM("default", "a", nil).str("metadata", "resourceVersion")
	for i := 0; i < 20; i++ {
		s.createCM("default", "x"+strconv.Itoa(i), nil)
	}
	if _, err := s.srv.Store().Compact(s.srv.Store().Revision()); err != nil {
		t.Fatal(err)
	}
	w := s.watch(cmWatch + "&resourceVersion=" + first)
	if w.resp.StatusCode != 200 {
		t.Fatalf("code %d", w.resp.StatusCode)
	}
	e := w.next()
	if e.Type != "ERROR" || e.Object["kind"] != "Status" || e.Object["reason"] != "Expired" || e.Object["code"] != float64(410) {
		t.Fatalf("got %s %v", e.Type, e.Object)
	}
	want := "too old resource version: " + first + " (" + strconv.FormatInt(s.srv.Store().CompactedRevision(), 10) + ")"
	if e.Object["message"] != want {
		t.Fatalf("message %q, want %q", e.Object["message"], want)
	}
	if !w.ended(5 * time.Second) {
		t.Fatal("stream not ended after ERROR")
	}
	// A list at an exact compacted revision is 410 too.
	s.do("GET", "/api/v1/namespaces/default/configmaps?resourceVersionMatch=Exact&resourceVersion="+first, nil).
		wantStatus(t, 410, "Expired", "The resourceVersion for the provided list is too old.")
}

func TestK8S_WATCH_4_Bookmarks(t *testing.T) {
	s := newTestServer(t, testConfig{Config: Config{BookmarkInterval: 20 * time.Millisecond}})
	rv := s.listRV("/api/v1/namespaces/default/configmaps")
	w := s.watch(cmWatch + "&allowWatchBookmarks=true&resourceVersion=" + rv)
	s.createCM("default", "a", nil)
	sawAdd := false
	for i := 0; i < 10; i++ {
		e := w.next()
		if e.Type == "ADDED" {
			sawAdd = true
			continue
		}
		if e.Type != "BOOKMARK" {
			t.Fatalf("event %s", e.Type)
		}
		meta := e.Object["metadata"].(map[string]any)
		if e.Object["kind"] != "ConfigMap" || e.Object["apiVersion"] != "v1" || meta["resourceVersion"] == "" || len(e.Object) != 3 {
			t.Fatalf("bookmark object: %v", e.Object)
		}
		if sawAdd {
			return
		}
	}
	t.Fatal("no bookmark after the change")
}

func TestK8S_WATCH_4_NoBookmarksUnlessAsked(t *testing.T) {
	s := newTestServer(t, testConfig{Config: Config{BookmarkInterval: 10 * time.Millisecond}})
	rv := s.listRV("/api/v1/namespaces/default/configmaps")
	w := s.watch(cmWatch + "&resourceVersion=" + rv)
	w.quiet(100 * time.Millisecond)
}

func TestK8S_WATCH_5_SendInitialEvents(t *testing.T) {
	s := newTestServer(t, testConfig{})
	for _, n := range []string{"a", "b", "c"} {
		s.createCM("default", n, nil)
	}
	// Required companions.
	s.do("GET", cmWatch+"&sendInitialEvents=true", nil).wantStatus(t, 422, "Invalid", "")
	s.do("GET", "/api/v1/namespaces/default/configmaps?sendInitialEvents=true&resourceVersionMatch=NotOlderThan", nil).
		wantStatus(t, 422, "Invalid", `ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list]`)

	w := s.watch(cmWatch + "&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	seen := map[string]bool{}
	for {
		e := w.next()
		if e.Type == "BOOKMARK" {
			ann, _ := object.Path(e.Object, "metadata", "annotations").(map[string]any)
			if ann["k8s.io/initial-events-end"] != "true" {
				t.Fatalf("bookmark without initial-events-end: %v", e.Object)
			}
			if len(seen) != 3 {
				t.Fatalf("bookmark after %d of 3 objects", len(seen))
			}
			if e.rv() != s.listRV("/api/v1/namespaces/default/configmaps") {
				t.Fatalf("bookmark rv %s", e.rv())
			}
			break
		}
		if e.Type != "ADDED" {
			t.Fatalf("initial event %s", e.Type)
		}
		seen[e.name()] = true
	}
	s.createCM("default", "d", nil)
	if e := w.next(); e.Type != "ADDED" || e.name() != "d" {
		t.Fatalf("after initial events: %s %s", e.Type, e.name())
	}

	// An empty collection ends its initial events at once.
	e := s.watch("/api/v1/namespaces/kube-public/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true").next()
	if e.Type != "BOOKMARK" {
		t.Fatalf("empty initial events: %s", e.Type)
	}
	// sendInitialEvents=false: changes only.
	f := s.watch(cmWatch + "&sendInitialEvents=false&resourceVersionMatch=NotOlderThan")
	f.quiet(50 * time.Millisecond)
}

// TestK8S_FID_1_K8S_WATCH_5_LegacyWatchEndsInitialEvents: a watch from "" or
// "0" asking for bookmarks is a streaming one in kube 1.32 (its WatchList
// defaults): its initial events end with the annotated bookmark; without
// bookmarks nothing follows them.
func TestK8S_FID_1_K8S_WATCH_5_LegacyWatchEndsInitialEvents(t *testing.T) {
	s := newTestServer(t, testConfig{})
	s.createCM("default", "a", nil)
	for _, rv := range []string{"", "&resourceVersion=0"} {
		w := s.watch(cmWatch + "&allowWatchBookmarks=true" + rv)
		if e := w.next(); e.Type != "ADDED" || e.name() != "a" {
			t.Fatalf("%q: first event %s %s", rv, e.Type, e.name())
		}
		e := w.next()
		ann, _ := object.Path(e.Object, "metadata", "annotations").(map[string]any)
		if e.Type != "BOOKMARK" || ann["k8s.io/initial-events-end"] != "true" || ann["kubernetes.io/initial-events-list-blueprint"] == nil {
			t.Fatalf("%q: after the initial events: %s %v", rv, e.Type, e.Object)
		}
		w = s.watch(cmWatch + rv)
		w.next()
		w.quiet(50 * time.Millisecond)
	}
}

func TestK8S_WATCH_6_Selectors(t *testing.T) {
	s := newTestServer(t, testConfig{})
	rv := s.listRV("/api/v1/namespaces/default/configmaps")
	w := s.watch(cmWatch + "&labelSelector=app%3Dweb&resourceVersion=" + rv)
	named := s.watch(cmWatch + "&fieldSelector=metadata.name%3Dn&resourceVersion=" + rv)
	pathNamed := s.watch("/api/v1/watch/namespaces/default/configmaps/n?resourceVersion=" + rv)

	s.createCM("default", "other", map[string]string{"app": "db"})
	s.createCM("default", "n", map[string]string{"app": "web"})
	if e := w.next(); e.Type != "ADDED" || e.name() != "n" {
		t.Fatalf("label watch: %s %s", e.Type, e.name())
	}
	for _, x := range []*watchStream{named, pathNamed} {
		if e := x.next(); e.Type != "ADDED" || e.name() != "n" {
			t.Fatalf("name watch: %s %s", e.Type, e.name())
		}
	}
	// The object stops matching: the label watcher sees DELETED, then ADDED when
	// it matches again.
	obj := s.do("GET", "/api/v1/namespaces/default/configmaps/n", nil).Obj
	obj["metadata"].(map[string]any)["labels"] = map[string]any{"app": "db"}
	moved := s.do("PUT", "/api/v1/namespaces/default/configmaps/n", obj).must(t, 200)
	if e := w.next(); e.Type != "DELETED" || e.name() != "n" || e.rv() != moved.str("metadata", "resourceVersion") {
		t.Fatalf("leaving the selector: %s %s %s", e.Type, e.name(), e.rv())
	}
	obj = moved.Obj
	obj["metadata"].(map[string]any)["labels"] = map[string]any{"app": "web"}
	s.do("PUT", "/api/v1/namespaces/default/configmaps/n", obj).must(t, 200)
	if e := w.next(); e.Type != "ADDED" || e.name() != "n" {
		t.Fatalf("re-entering the selector: %s %s", e.Type, e.name())
	}
	// Pod field selectors kube supports.
	pods := s.watch("/api/v1/pods?watch=1&fieldSelector=spec.nodeName%3Dnode-1&resourceVersion=" + rv)
	for _, node := range []string{"node-2", "node-1"} {
		s.do("POST", "/api/v1/namespaces/default/pods", map[string]any{
			"metadata": map[string]any{"name": "p-" + node},
			"spec":     map[string]any{"nodeName": node, "containers": []any{map[string]any{"name": "c", "image": "nginx"}}},
		}).must(t, 201)
	}
	if e := pods.next(); e.name() != "p-node-1" {
		t.Fatalf("pod field selector: %s", e.name())
	}
	s.do("GET", "/api/v1/pods?fieldSelector=status.phase%3DPending", nil).must(t, 200)
	s.do("GET", "/api/v1/configmaps?fieldSelector=spec.nodeName%3Dx", nil).
		wantStatus(t, 400, "BadRequest", `"spec.nodeName" is not a known field selector: only "metadata.name", "metadata.namespace"`)
	s.do("GET", "/api/v1/pods?fieldSelector=spec.bogus%3Dx", nil).wantStatus(t, 400, "BadRequest", "field label not supported: spec.bogus")
}

func TestK8S_WATCH_7_TimeoutAndDisconnect(t *testing.T) {
	s := newTestServer(t, testConfig{})
	w := s.watch(cmWatch + "&timeoutSeconds=1&resourceVersion=" + s.listRV("/api/v1/namespaces/default/configmaps"))
	if !w.ended(10 * time.Second) {
		t.Fatal("watch outlived timeoutSeconds")
	}
	base := s.srv.Store().Watchers()
	// A client that goes away frees its watcher.
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", s.hs.URL+cmWatch, nil)
	resp, err := s.hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.srv.Store().Watchers(); n != base+1 {
		t.Fatalf("watchers %d, want %d", n, base+1)
	}
	cancel()
	resp.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for s.srv.Store().Watchers() != base {
		if time.Now().After(deadline) {
			t.Fatal("watcher not freed after the client left")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

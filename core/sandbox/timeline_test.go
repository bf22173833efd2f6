package sandbox

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"kubeplay/core/object"
	"kubeplay/core/timeline"
)

// send is a request with a body of its own content type, sent as it is.
func (e *env) send(method, path, contentType, body string, h http.Header) resp {
	e.t.Helper()
	r := e.raw(method, path, contentType, []byte(body), h)
	if r.Obj == nil {
		r.Obj, _ = object.Decode(r.Body)
	}
	return r
}

// header is a's headers as an http.Header.
func (a as) header() http.Header {
	h := http.Header{}
	for k, v := range a {
		h.Set(k, v)
	}
	return h
}

func (e *env) timeline(query string) timeline.Page {
	e.t.Helper()
	r := e.do("GET", timeline.Path+query, nil, admin)
	if r.Code != 200 {
		e.t.Fatalf("timeline%s: %d %s", query, r.Code, r.Body)
	}
	var p timeline.Page
	if err := json.Unmarshal(r.Body, &p); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// TestLEARN_5_Timeline: the timeline names every change history keeps,
// newest first, with the revision its write answered, the watch event, the
// object, the field manager the write recorded and the user and client of
// the request that made it; its filters select by kind, namespace, name,
// user and "only my changes"; it pages; the state at each revision reads
// back through the API (a list at resourceVersionMatch=Exact); after a
// compaction it says how far back it reaches and a read before that is 410.
func TestLEARN_5_Timeline(t *testing.T) {
	e := newEnv(t, Config{}) // with its controllers: the root CA publisher writes to every namespace
	if r := e.do("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "shop"}}, admin); r.Code != 201 {
		t.Fatalf("namespace: %d %s", r.Code, r.Body)
	}
	alice, bob := impersonating("alice", "system:masters"), impersonating("bob", "system:masters")
	const cms = "/api/v1/namespaces/shop/configmaps"
	created := e.send("POST", cms+"?fieldManager=alice-tool", "application/json", `{"metadata":{"name":"app"},"data":{"color":"red"}}`, alice)
	patched := e.send("PATCH", cms+"/app?fieldManager=bob-tool", "application/merge-patch+json", `{"data":{"color":"blue"}}`, bob)
	applied := e.send("PATCH", cms+"/app?fieldManager=tutor", "application/apply-patch+yaml", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app"},"data":{"size":"3"}}`, alice)
	deleted := e.send("DELETE", cms+"/app", "application/json", ``, bob)
	for _, r := range []resp{created, patched, applied, deleted} {
		if r.Code >= 300 {
			t.Fatalf("write: %d %s", r.Code, r.Body)
		}
	}
	rv := func(r resp) int64 {
		n, _ := strconv.ParseInt(object.MetaString(r.Obj, "resourceVersion"), 10, 64)
		return n
	}
	p := e.timeline("?namespace=shop&name=app")
	if len(p.Items) == 0 || p.Items[0].Revision <= rv(applied) {
		t.Fatalf("timeline of shop/app: %+v", p.Items)
	}
	revs := []int64{rv(created), rv(patched), rv(applied), p.Items[0].Revision} // a delete answers with a Status
	type want struct {
		typ, verb, user, manager, op string
	}
	wants := []want{
		{"DELETED", "delete", "bob", "", ""},
		{"MODIFIED", "patch", "alice", "tutor", "Apply"},
		{"MODIFIED", "patch", "bob", "bob-tool", "Update"},
		{"ADDED", "create", "alice", "alice-tool", "Update"},
	}
	if len(p.Items) != len(wants) {
		t.Fatalf("timeline of shop/app: %d entries, want %d: %+v", len(p.Items), len(wants), p.Items)
	}
	for i, w := range wants {
		got := p.Items[i]
		if got.Revision != revs[len(revs)-1-i] || got.Type != w.typ || got.Verb != w.verb || got.User != w.user || got.Manager != w.manager || got.Operation != w.op ||
			got.Kind != "ConfigMap" || got.APIVersion != "v1" || got.Namespace != "shop" || got.Name != "app" || got.Collection != cms || got.Internal || got.Request == 0 || got.Time.IsZero() {
			t.Errorf("entry %d: %+v, want %+v at revision %d", i, got, w, revs[len(revs)-1-i])
		}
	}
	if p.Revision < revs[3] || p.Continue != 0 {
		t.Errorf("page: revision %d continue %d, want at least %d and 0", p.Revision, p.Continue, revs[3])
	}
	// "What caused this": the entry's request is the log's, with its bodies.
	if r := e.do("GET", "/debug/kubeplay/requests/"+strconv.FormatInt(p.Items[2].Request, 10), nil, admin); r.Code != 200 ||
		object.String(object.Path(r.Obj, "entry", "method")) != "PATCH" || object.String(r.Obj["requestBody"]) != `{"data":{"color":"blue"}}` {
		t.Errorf("the patch's request: %d %s", r.Code, r.Body)
	}

	// Filters.
	if p := e.timeline("?namespace=shop&user=alice"); len(p.Items) != 2 || p.Items[0].Revision != revs[2] || p.Items[1].Revision != revs[0] {
		t.Errorf("user=alice: %+v", p.Items)
	}
	e.eventually("the root CA publisher's ConfigMap", func() bool { return e.do("GET", cms+"/kube-root-ca.crt", nil, admin).Code == 200 })
	all := e.timeline("?namespace=shop&kind=configmap")
	mine := e.timeline("?namespace=shop&kind=ConfigMap&mine=true")
	var root bool
	for _, it := range all.Items {
		if it.Name == "kube-root-ca.crt" {
			root = true
			if !it.Internal || it.User == "" || it.Client == "" {
				t.Errorf("the root CA publisher's change: %+v", it)
			}
		}
	}
	if !root || len(mine.Items) != 4 || len(all.Items) != 5 {
		t.Errorf("kind=ConfigMap: %d entries (root CA's: %v), mine=true: %d, want 5 and 4", len(all.Items), root, len(mine.Items))
	}
	// Pages: one at a time, each older than the last.
	first := e.timeline("?namespace=shop&name=app&limit=1")
	if len(first.Items) != 1 || first.Items[0].Revision != revs[3] || first.Continue != revs[3] {
		t.Fatalf("limit=1: %+v continue %d", first.Items, first.Continue)
	}
	if next := e.timeline("?namespace=shop&name=app&limit=1&before=" + strconv.FormatInt(first.Continue, 10)); len(next.Items) != 1 || next.Items[0].Revision != revs[2] {
		t.Errorf("the next page: %+v", next.Items)
	}

	// The state at each revision, read through the API.
	at := func(rev int64) resp {
		return e.do("GET", cms+"?fieldSelector=metadata.name%3Dapp&resourceVersionMatch=Exact&resourceVersion="+strconv.FormatInt(rev, 10), nil, admin)
	}
	for i, want := range []string{`{"color":"red"}`, `{"color":"blue"}`, `{"color":"blue","size":"3"}`, ``} {
		r := at(revs[i])
		items, _ := r.Obj["items"].([]any)
		got := ""
		if len(items) == 1 {
			b, _ := json.Marshal(object.Path(items[0], "data"))
			got = string(b)
		}
		if r.Code != 200 || got != want {
			t.Errorf("app at revision %d: %d %s, want data %s", revs[i], r.Code, got, want)
		}
	}

	// Compacted: the timeline says how far back it reaches, and a read
	// before that is kube's 410.
	if r := e.do("POST", "/debug/kubeplay/compact?resourceVersion="+strconv.FormatInt(revs[1], 10), nil, admin); r.Code != 200 {
		t.Fatalf("compact: %d %s", r.Code, r.Body)
	}
	p = e.timeline("?namespace=shop&name=app")
	if p.CompactedRevision != revs[1] || len(p.Items) != 2 || p.Items[1].Revision != revs[2] {
		t.Errorf("after compacting to %d: compacted %d, %+v", revs[1], p.CompactedRevision, p.Items)
	}
	if r := at(revs[0]); r.Code != 410 || object.String(r.Obj["reason"]) != "Expired" {
		t.Errorf("a list before the history: %d %s", r.Code, r.Body)
	}

	// Bad input.
	for _, q := range []string{"?before=x", "?before=0", "?limit=0", "?limit=1001", "?mine=yes"} {
		if r := e.do("GET", timeline.Path+q, nil, admin); r.Code != 400 || object.String(r.Obj["reason"]) != "BadRequest" {
			t.Errorf("%s: %d %s", q, r.Code, r.Body)
		}
	}
	if r := e.do("POST", timeline.Path, nil, admin); r.Code != 405 {
		t.Errorf("POST: %d %s", r.Code, r.Body)
	}
}

package apiserver

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"kubeplay/core/object"
)

// rvFixture: a (rv1), b (rv2), a modified (rv3), c (rv4).
type rvFixture struct {
	s                  *testServer
	rv1, rv2, rv3, rv4 string
}

func newRVFixture(t *testing.T) *rvFixture {
	s := newTestServer(t, testConfig{FreshnessWait: 50 * time.Millisecond, NoGarbageCollector: true})
	f := &rvFixture{s: s}
	a := s.createCM("default", "a", nil)
	f.rv1 = a.str("metadata", "resourceVersion")
	f.rv2 = s.createCM("default", "b", nil).str("metadata", "resourceVersion")
	a.Obj["data"] = map[string]any{"k": "new"}
	f.rv3 = s.do("PUT", "/api/v1/namespaces/default/configmaps/a", a.Obj).must(t, 200).str("metadata", "resourceVersion")
	f.rv4 = s.createCM("default", "c", nil).str("metadata", "resourceVersion")
	return f
}

func TestK8S_RV_1_Get(t *testing.T) {
	f := newRVFixture(t)
	const a = "/api/v1/namespaces/default/configmaps/a"
	for _, q := range []string{"", "?resourceVersion=0", "?resourceVersion=" + f.rv1, "?resourceVersion=" + f.rv4} {
		r := f.s.do("GET", a+q, nil).must(t, 200)
		if r.str("data", "k") != "new" || r.str("metadata", "resourceVersion") != f.rv3 {
			t.Fatalf("get%s: %s", q, r.Body)
		}
	}
}

// TestK8S_RV_2_WatchCacheRevision: lists served by kube's watch cache answer at
// the cache's revision: not older than the listed resource's last change nor
// than a revision asked for, not newer than the store's, and the store's for
// a consistent list; the items are those of the store, and a watch from that
// revision misses nothing. (Which revision between those bounds depends on
// the consistent lists of other clients, the server's own controllers among
// them: core/storage's TestK8S_RV_2_CacheRevision pins it down.)
func TestK8S_RV_2_WatchCacheRevision(t *testing.T) {
	f := newRVFixture(t)
	const coll = "/api/v1/namespaces/default/configmaps"
	num := func(rv string) int64 {
		n, err := strconv.ParseInt(rv, 10, 64)
		if err != nil {
			t.Fatalf("resourceVersion %q: %v", rv, err)
		}
		return n
	}
	secret := func(name string) int64 {
		return num(f.s.do("POST", "/api/v1/namespaces/default/secrets", map[string]any{"metadata": map[string]any{"name": name}}).
			must(t, 201).str("metadata", "resourceVersion"))
	}
	listRV := func(query string, low, high int64) int64 {
		t.Helper()
		r := f.s.do("GET", coll+"?"+query, nil).must(t, 200)
		if names := r.names(); !slices.Equal(names, []string{"a", "b", "c"}) {
			t.Fatalf("%q: items %v", query, names)
		}
		got := num(r.str("metadata", "resourceVersion"))
		if got < low || got > high {
			t.Errorf("%q: list rv %d, want %d…%d", query, got, low, high)
		}
		return got
	}
	s1 := secret("s1") // the store moves on; ConfigMaps do not
	listRV("resourceVersion=0", num(f.rv4), s1)
	listRV("resourceVersion="+f.rv2, num(f.rv4), s1)
	listRV("resourceVersion="+strconv.FormatInt(s1, 10), s1, s1)
	s2 := secret("s2")
	listRV("", s2, s2)
	at0 := listRV("resourceVersion=0&limit=1", s2, s2) // every item: the cache ignores a limit at 0
	// A watch from the cache's revision sees the next ConfigMap change.
	w := f.s.watch(coll + "?watch=1&resourceVersion=" + strconv.FormatInt(at0, 10))
	d := f.s.createCM("default", "d", nil).str("metadata", "resourceVersion")
	if ev := w.next(); ev.Type != "ADDED" || ev.name() != "d" || ev.rv() != d {
		t.Fatalf("watch from %d: %+v, want d ADDED at %s", at0, ev, d)
	}
	// A watch from the newest revision (no resourceVersion) brings the
	// cache there, as kube-apiserver 1.32.13's (a ReplicaSet list at 0 after
	// one answered at the newest revision); one from 0 leaves it.
	s3 := secret("s3")
	at0List := func() int64 {
		return num(f.s.do("GET", coll+"?resourceVersion=0", nil).must(t, 200).str("metadata", "resourceVersion"))
	}
	// A watch's initial events from 0 are the cache's, at its revision.
	w = f.s.watch(coll + "?watch=1&resourceVersion=0&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	ev := w.next()
	for ev.Type != "BOOKMARK" {
		ev = w.next()
	}
	if ev.rv() != d {
		t.Errorf("a watch from 0 ended its initial events at %s, want the cache's revision %s (the store is at %d)", ev.rv(), d, s3)
	}
	f.s.watch(coll + "?watch=1&resourceVersion=0").next()
	if got := at0List(); got != num(d) {
		t.Errorf("after a watch from 0: list at 0 answers at %d, want the last ConfigMap change %s", got, d)
	}
	f.s.watch(coll + "?watch=1").next()
	if got := at0List(); got != s3 {
		t.Errorf("after a watch from the newest revision: list at 0 answers at %d, want the store's %d", got, s3)
	}
}

func TestK8S_RV_2_ListTable(t *testing.T) {
	f := newRVFixture(t)
	const coll = "/api/v1/namespaces/default/configmaps"
	current := f.rv4
	type want struct {
		code  int
		rv    string   // the list's resourceVersion
		names []string // items
		aData string   // a's data.k: "v" at rv1/rv2, "new" from rv3
	}
	recent := want{200, current, []string{"a", "b", "c"}, "new"}
	atRV2 := want{200, f.rv2, []string{"a", "b"}, "v"}
	invalid := want{code: 422}
	cases := []struct {
		query string
		want  want
	}{
		// resourceVersionMatch unset, limit unset.
		{"", recent},
		{"resourceVersion=0", recent},                     // Any: the watch cache's (the last ConfigMap change)
		{"resourceVersion=" + f.rv2, recent},              // Not older than
		{"resourceVersion=" + f.rv2 + "&limit=10", atRV2}, // with limit: Exact
		{"limit=10", recent},
		{"resourceVersion=0&limit=10", recent},
		// resourceVersionMatch=Exact.
		{"resourceVersionMatch=Exact", invalid},
		{"resourceVersionMatch=Exact&resourceVersion=0", invalid},
		{"resourceVersionMatch=Exact&resourceVersion=" + f.rv2, atRV2},
		{"resourceVersionMatch=Exact&resourceVersion=" + f.rv2 + "&limit=10", atRV2},
		{"resourceVersionMatch=Exact&limit=10", invalid},
		// resourceVersionMatch=NotOlderThan.
		{"resourceVersionMatch=NotOlderThan", invalid},
		{"resourceVersionMatch=NotOlderThan&resourceVersion=0", recent},
		{"resourceVersionMatch=NotOlderThan&resourceVersion=" + f.rv2, recent},
		{"resourceVersionMatch=NotOlderThan&resourceVersion=" + f.rv2 + "&limit=10", recent},
		{"resourceVersionMatch=NotOlderThan&limit=10", invalid},
		// Unknown match.
		{"resourceVersionMatch=Newest&resourceVersion=1", invalid},
	}
	for _, c := range cases {
		r := f.s.do("GET", coll+"?"+c.query, nil)
		if c.want.code != 200 {
			r.wantStatus(t, c.want.code, "Invalid", "")
			continue
		}
		r.must(t, 200)
		if got := r.str("metadata", "resourceVersion"); got != c.want.rv {
			t.Errorf("%q: list rv %s, want %s", c.query, got, c.want.rv)
		}
		if names := r.names(); !slices.Equal(names, c.want.names) {
			t.Errorf("%q: items %v, want %v", c.query, names, c.want.names)
		}
		if got := r.items()[0]["data"].(map[string]any)["k"]; got != c.want.aData {
			t.Errorf("%q: a.data.k %v, want %s", c.query, got, c.want.aData)
		}
	}
	// The exact list at rv2 shows each object as it was then.
	r := f.s.do("GET", coll+"?resourceVersionMatch=Exact&resourceVersion="+f.rv1, nil).must(t, 200)
	if !slices.Equal(r.names(), []string{"a"}) || object.Path(r.items()[0], "metadata", "resourceVersion") != f.rv1 {
		t.Fatalf("exact at rv1: %s", r.Body)
	}

	// Continue tokens: with resourceVersion unset or "0" they are followed, with
	// another resourceVersion they are a 400.
	page := f.s.do("GET", coll+"?limit=1", nil).must(t, 200)
	token := page.str("metadata", "continue")
	for _, q := range []string{"", "&resourceVersion=0"} {
		next := f.s.do("GET", coll+"?limit=1&continue="+token+q, nil).must(t, 200)
		if !slices.Equal(next.names(), []string{"b"}) || next.str("metadata", "resourceVersion") != current {
			t.Fatalf("continue%s: %s", q, next.Body)
		}
	}
	f.s.do("GET", coll+"?limit=1&continue="+token+"&resourceVersion="+f.rv2, nil).
		wantStatus(t, 400, "BadRequest", "specifying resource version is not allowed when using continue")
	f.s.do("GET", coll+"?limit=1&continue="+token+"&resourceVersionMatch=Exact&resourceVersion="+f.rv2, nil).
		wantStatus(t, 422, "Invalid", "")
}

func TestK8S_RV_3_TooLarge(t *testing.T) {
	f := newRVFixture(t)
	cur, _ := strconv.ParseInt(f.rv4, 10, 64)
	future := strconv.FormatInt(cur+100, 10)
	for _, p := range []string{
		"/api/v1/namespaces/default/configmaps/a?resourceVersion=" + future,
		"/api/v1/namespaces/default/configmaps?resourceVersion=" + future,
		"/api/v1/namespaces/default/configmaps?resourceVersionMatch=Exact&resourceVersion=" + future,
	} {
		r := f.s.do("GET", p, nil).wantStatus(t, 504, "Timeout",
			"Timeout: Too large resource version: "+future+", current: "+f.rv4)
		if r.Header.Get("Retry-After") != "1" || object.Path(r.Obj, "details", "retryAfterSeconds") != float64(1) {
			t.Fatalf("%s: Retry-After %q, details %v", p, r.Header.Get("Retry-After"), r.Obj["details"])
		}
	}
	// Events have no watch cache: etcd answers at once, and asks no retry.
	r := f.s.do("GET", "/api/v1/namespaces/default/events?resourceVersion="+future, nil).wantStatus(t, 504, "Timeout",
		"Timeout: Too large resource version: "+future+", current: "+f.rv4)
	if r.Header.Get("Retry-After") != "" || object.Path(r.Obj, "details", "retryAfterSeconds") != nil {
		t.Fatalf("events: Retry-After %q, details %v", r.Header.Get("Retry-After"), r.Obj["details"])
	}
	// A read that waits for a revision the store reaches meanwhile succeeds.
	patient := newTestServer(t, testConfig{FreshnessWait: 10 * time.Second})
	next := strconv.FormatInt(patient.srv.Store().Revision()+1, 10)
	done := make(chan *response)
	go func() {
		done <- patient.do("GET", "/api/v1/namespaces/default/configmaps?resourceVersion="+next, nil)
	}()
	time.Sleep(20 * time.Millisecond)
	patient.createCM("default", "d", nil)
	r = (<-done).must(t, 200)
	if got, _ := strconv.ParseInt(r.str("metadata", "resourceVersion"), 10, 64); got < patient.srv.Store().Revision() {
		t.Fatalf("waiting read answered at %s, want at least %s", r.str("metadata", "resourceVersion"), next)
	}
	if !slices.Contains(r.names(), "d") {
		t.Fatalf("waiting read does not show the write it waited for: %v", r.names())
	}
	// A watch from a future revision waits for it rather than failing.
	w := f.s.watch(cmWatch + "&resourceVersion=" + strconv.FormatInt(cur+1, 10))
	f.s.createCM("default", "e", nil)
	f.s.createCM("default", "g", nil)
	if e := w.next(); e.name() != "g" {
		t.Fatalf("future watch got %s %s", e.Type, e.name())
	}
}

func TestK8S_RV_4_Malformed(t *testing.T) {
	s := newTestServer(t, testConfig{})
	rev := s.srv.Store().Revision()
	for _, p := range []string{
		"/api/v1/namespaces/default/configmaps?resourceVersion=abc",
		"/api/v1/namespaces/default/configmaps?resourceVersion=-1",
		"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1.5",
		"/api/v1/namespaces/default/configmaps/a?resourceVersion=x",
	} {
		s.do("GET", p, nil).wantStatus(t, 400, "BadRequest", "")
	}
	r := s.do("GET", "/api/v1/namespaces/default/configmaps?resourceVersion=abc", nil)
	if want := `resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`; r.str("message") != want {
		t.Fatalf("message %q", r.str("message"))
	}
	// A malformed precondition resourceVersion on update is a conflict-free 400 or
	// 409 as kube decides, never a write.
	s.createCM("default", "a", nil)
	bad := cm("a", nil, nil)
	bad["metadata"].(map[string]any)["resourceVersion"] = "zzz"
	if c := s.do("PUT", "/api/v1/namespaces/default/configmaps/a", bad).Code; c < 400 || c >= 500 {
		t.Fatalf("PUT with malformed resourceVersion: %d", c)
	}
	if s.srv.Store().Revision() != rev+1 {
		t.Fatal("malformed requests changed the store")
	}
}

// TestK8S_RV_2_OneKeyIsNotExact: a list whose field selector names one object
// reads that key alone (kube's MatchesSingle), and a resourceVersion with a
// limit asks no exact revision of it (etcd3's GetList reads one key as not
// older than the revision): a at rv1 answers as a is now.
func TestK8S_RV_2_OneKeyIsNotExact(t *testing.T) {
	f := newRVFixture(t)
	r := f.s.do("GET", "/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Da&limit=1&resourceVersion="+f.rv1, nil).must(t, 200)
	if names := r.names(); !slices.Equal(names, []string{"a"}) || object.Path(r.items()[0], "data", "k") != "new" || r.str("metadata", "continue") != "" {
		t.Fatalf("one key at %s with a limit: %s", f.rv1, r.Body)
	}
	// A collection's list at rv1 with a limit is exact.
	r = f.s.do("GET", "/api/v1/namespaces/default/configmaps?limit=5&resourceVersion="+f.rv1, nil).must(t, 200)
	if names := r.names(); !slices.Equal(names, []string{"a"}) || r.str("metadata", "resourceVersion") != f.rv1 {
		t.Fatalf("the collection at %s with a limit: %s", f.rv1, r.Body)
	}
}

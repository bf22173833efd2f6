package client_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kubeplay/core/apiserver"
	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/kinds"
	"kubeplay/core/object"
	"kubeplay/core/sandbox"
	"kubeplay/core/storage"
	"kubeplay/core/user"
	"kubeplay/core/web"
)

// newServer is a core with a filter that records who each request came from.
func newServer(t *testing.T) (*sandbox.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var users []string
	record := func(next web.Handler) web.Handler {
		return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
			if u, ok := user.From(r.Context()); ok {
				mu.Lock()
				users = append(users, u.Name+" "+r.UserAgent())
				mu.Unlock()
			}
			next.ServeHTTP(w, r)
		})
	}
	srv, err := sandbox.NewServer(sandbox.Config{API: apiserver.Config{Filters: []apiserver.Filter{record}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(users)
	}
}

func cm(name string) object.Object {
	return object.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name}, "data": map[string]any{"k": "v"}}
}

const cms = "/api/v1/namespaces/default/configmaps"

// The client speaks to the handler in process, as its caller, and gets kube's
// answers: objects, and Status errors as *Error.
func TestClientVerbsAndErrors(t *testing.T) {
	srv, users := newServer(t)
	c := client.New(srv, user.ServiceAccount("kube-system", "tester"), "tester/1.0")
	ctx := context.Background()
	created, err := c.Create(ctx, cms, cm("a"))
	if err != nil || object.MetaString(created, "uid") == "" {
		t.Fatalf("create: %v %v", created, err)
	}
	if _, err := c.Create(ctx, cms, cm("a")); !client.IsConflict(err) {
		t.Fatalf("second create: %v", err)
	}
	got, err := c.Get(ctx, cms+"/a")
	if err != nil || object.MetaString(got, "resourceVersion") != object.MetaString(created, "resourceVersion") {
		t.Fatalf("get: %v %v", got, err)
	}
	got["data"] = map[string]any{"k": "w"}
	if _, err := c.Update(ctx, cms+"/a", got); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Update(ctx, cms+"/a", got); !client.IsConflict(err) {
		t.Fatalf("stale update: %v", err)
	}
	if _, err := c.Delete(ctx, cms+"/a"); err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(ctx, cms+"/a")
	if !client.IsNotFound(err) || err.Error() != `404 NotFound: configmaps "a" not found` {
		t.Fatalf("get after delete: %v", err)
	}
	if !slices.Contains(users(), "system:serviceaccount:kube-system:tester tester/1.0") {
		t.Fatalf("requests came from %v", users())
	}
}

// A watch streams events as they happen; stopping it ends the handler's watch.
func TestClientWatchStreams(t *testing.T) {
	srv, _ := newServer(t)
	c := client.New(srv, user.User{Name: "w"}, "w")
	ctx := context.Background()
	w, err := c.Watch(ctx, cms, "resourceVersion="+fmt.Sprint(srv.Storage().Revision()))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"x", "y"} {
		if _, err := c.Create(ctx, cms, cm(n)); err != nil {
			t.Fatal(err)
		}
		ev, err := w.Next()
		if err != nil || ev.Type != "ADDED" || object.MetaString(ev.Object, "name") != n {
			t.Fatalf("event %v %v", ev, err)
		}
	}
	// The server's controllers keep watches of their own: the namespace,
	// CustomResourceDefinition, clusterrole aggregation and
	// ValidatingAdmissionPolicy status controllers and the Events' expiry
	// one each, the aggregator's four (definitions,
	// APIServices, Services, Endpoints), the ServiceAccount controller's two
	// (namespaces, accounts), the garbage collector one per kind it can
	// delete (in its group's preferred version).
	controllers := 11
	seen := map[string]bool{}
	for _, r := range kinds.All() {
		if key := r.Group + "/" + r.Plural; r.HasVerb("delete") && r.HasVerb("list") && r.HasVerb("watch") && !seen[key] {
			seen[key] = true
			controllers++
		}
	}
	waitWatchers(t, srv.Storage(), controllers+1)
	w.Stop()
	waitWatchers(t, srv.Storage(), controllers)
}

// waitWatchers waits until st has n watchers.
func waitWatchers(t *testing.T, st *storage.Store, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for st.Watchers() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d watchers, want %d", st.Watchers(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// The informer lists, then follows changes; its index finds objects by label;
// after the history it watches from is compacted (410) it lists again and tells
// the handler what changed meanwhile.
func TestInformerListsWatchesIndexesAndRelists(t *testing.T) {
	var cut atomic.Bool
	srv, err := sandbox.NewServer(sandbox.Config{API: apiserver.Config{Filters: []apiserver.Filter{cutWatches(&cut)}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c := client.New(srv, user.User{Name: "i"}, "i")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := c.Create(ctx, cms, cm("before")); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	note := func(s string) { mu.Lock(); seen = append(seen, s); mu.Unlock() }
	byApp := func(obj object.Object) []string {
		if app := object.Labels(obj)["app"]; app != "" {
			return []string{app}
		}
		return nil
	}
	inf := client.NewInformer(c, cms, client.Handler{
		Add:    func(o object.Object) { note("add " + object.MetaString(o, "name")) },
		Update: func(_, o object.Object) { note("update " + object.MetaString(o, "name")) },
		Delete: func(o object.Object) { note("delete " + object.MetaString(o, "name")) },
	}, map[string]client.IndexFunc{"app": byApp}, clock.Real)
	go inf.Run(ctx)
	<-inf.Synced()
	waitFor := func(what string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			mu.Lock()
			n := len(seen)
			last := ""
			if n > 0 {
				last = seen[n-1]
			}
			mu.Unlock()
			if last == what {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("never saw %q: %v", what, seen)
			}
			time.Sleep(time.Millisecond)
		}
	}
	waitFor("add before")
	labelled := cm("web-1")
	object.Meta(labelled)["labels"] = map[string]any{"app": "web"}
	if _, err := c.Create(ctx, cms, labelled); err != nil {
		t.Fatal(err)
	}
	waitFor("add web-1")
	if got := inf.ByIndex("app", "web"); len(got) != 1 || object.MetaString(got[0], "name") != "web-1" {
		t.Fatalf("index: %v", got)
	}
	if _, err := c.Delete(ctx, cms+"/before"); err != nil {
		t.Fatal(err)
	}
	waitFor("delete before")

	// Cut the informer's watch off while its history is gone (the next watch is
	// answered as kube answers a too old resourceVersion): it lists again and tells
	// the handler what it missed.
	cut.Store(true)
	if _, err := c.Create(ctx, cms, cm("missed")); err != nil {
		t.Fatal(err)
	}
	waitFor("add missed")
	cut.Store(false)
	if _, err := c.Create(ctx, cms, cm("after")); err != nil {
		t.Fatal(err)
	}
	waitFor("add after")
	if _, ok := inf.Get("default/missed"); !ok || len(inf.List()) != 3 {
		t.Fatalf("copy: %v", inf.List())
	}
}

// cutWatches, while cut is set, fails the writes of open watches (their clients
// see the stream end) and answers new ones with kube's ERROR event for a
// resourceVersion older than history.
func cutWatches(cut *atomic.Bool) apiserver.Filter {
	return func(next web.Handler) web.Handler {
		return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
			if r.URL.Query().Get("watch") == "" {
				next.ServeHTTP(w, r)
				return
			}
			if cut.Load() {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(200)
				_, _ = w.Write([]byte(`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (2)","reason":"Expired","code":410}}` + "\n"))
				return
			}
			next.ServeHTTP(cuttable{w, cut}, r)
		})
	}
}

type cuttable struct {
	web.ResponseWriter
	cut *atomic.Bool
}

func (c cuttable) Write(b []byte) (int, error) {
	if c.cut.Load() {
		return 0, errors.New("cut")
	}
	return c.ResponseWriter.Write(b)
}

func (c cuttable) Flush() { _ = web.Flush(c.ResponseWriter) }

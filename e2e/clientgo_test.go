package e2e

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"kubeplay/core/apiserver"
	"kubeplay/core/request"
	"kubeplay/core/sandbox"
	"kubeplay/core/storage"
)

// The client-go tests drive the core with client-go v0.32.3 (kubectl 1.32's
// release) over JSON: informers (list+watch, relist after 410, WatchList) and a
// raw watch, checking that nothing a real controller depends on is lost.

const cgNamespace = "default"

// cgDriverAgent is the User-Agent of the clientset a test writes and checks
// with; the recorder leaves its requests out, keeping only the informer's.
const cgDriverAgent = "kubeplay-e2e-driver"

// cgClientset is a client-go clientset speaking JSON to url, without client-side
// rate limiting so that bursts of writes are not throttled.
func cgClientset(t *testing.T, url, userAgent string) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(&rest.Config{
		Host:        url,
		UserAgent:   userAgent,
		BearerToken: "kubeplay",
		ContentConfig: rest.ContentConfig{
			ContentType:        "application/json",
			AcceptContentTypes: "application/json",
		},
		QPS: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// cgRequest is one request as the server saw it.
type cgRequest struct {
	Verb     string
	Resource string
	Query    url.Values
	Driver   bool // made by the test's own clientset, not the informer's
}

// cgRecorder is a server filter that records resource requests and, for the
// informer's watches, whether the stream carried a 410 Expired ERROR event.
type cgRecorder struct {
	mu      sync.Mutex
	reqs    []cgRequest
	expired int // watch streams that sent an ERROR with reason Expired
}

func (rec *cgRecorder) filter(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := request.RequestInfoFrom(r.Context())
		if info == nil || !info.IsResourceRequest || fromTheServer(r) {
			next.ServeHTTP(w, r)
			return
		}
		driver := r.UserAgent() == cgDriverAgent
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, cgRequest{Verb: info.Verb, Resource: info.Resource, Query: r.URL.Query(), Driver: driver})
		rec.mu.Unlock()
		if info.Verb != "watch" || driver {
			next.ServeHTTP(w, r)
			return
		}
		sw := &cgSniffWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if sw.sawExpired() {
			rec.mu.Lock()
			rec.expired++
			rec.mu.Unlock()
		}
	})
}

// count returns how many of the informer's requests on resource have verb and
// satisfy match (nil matches all).
func (rec *cgRecorder) count(verb, resource string, match func(url.Values) bool) int {
	return rec.countOf(false, verb, resource, match)
}

// countOf is count for the driver's requests (driver) or the informer's.
func (rec *cgRecorder) countOf(driver bool, verb, resource string, match func(url.Values) bool) int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	n := 0
	for _, r := range rec.reqs {
		if r.Driver == driver && r.Verb == verb && r.Resource == resource && (match == nil || match(r.Query)) {
			n++
		}
	}
	return n
}

func (rec *cgRecorder) expiredWatches() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.expired
}

func (rec *cgRecorder) describe(resource string) string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var b strings.Builder
	for _, r := range rec.reqs {
		if !r.Driver && r.Resource == resource && (r.Verb == "list" || r.Verb == "watch") {
			fmt.Fprintf(&b, "  %s ?%s\n", r.Verb, r.Query.Encode())
		}
	}
	return b.String()
}

// cgSniffWriter keeps the watch stream it passes on, bounded, to look for an
// ERROR event afterwards. It forwards flushes through Unwrap.
type cgSniffWriter struct {
	http.ResponseWriter
	mu   sync.Mutex
	head bytes.Buffer // the first bytes of the stream
	tail []byte       // the last bytes of the stream
}

func (s *cgSniffWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	if s.head.Len() < 4096 {
		s.head.Write(b)
	}
	s.tail = append(s.tail, b...)
	if len(s.tail) > 4096 {
		s.tail = append([]byte(nil), s.tail[len(s.tail)-4096:]...)
	}
	s.mu.Unlock()
	return s.ResponseWriter.Write(b)
}

func (s *cgSniffWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (s *cgSniffWriter) sawExpired() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range [][]byte{s.head.Bytes(), s.tail} {
		if bytes.Contains(b, []byte(`"type":"ERROR"`)) && bytes.Contains(b, []byte(`"reason":"Expired"`)) &&
			bytes.Contains(b, []byte(`"code":410`)) {
			return true
		}
	}
	return false
}

// cgWatchGate is a server filter that can cut every open watch and hold new ones
// back, as a network partition between a reflector and the server would.
type cgWatchGate struct {
	mu      sync.Mutex
	kill    chan struct{} // closed to end the open watches
	release chan struct{} // nil when open; closed to let held watches through
	held    int           // watch requests waiting on release
}

func newCGWatchGate() *cgWatchGate { return &cgWatchGate{kill: make(chan struct{})} }

func (g *cgWatchGate) filter(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := request.RequestInfoFrom(r.Context())
		if info == nil || info.Verb != "watch" {
			next.ServeHTTP(w, r)
			return
		}
		g.mu.Lock()
		release := g.release
		if release != nil {
			g.held++
		}
		g.mu.Unlock()
		if release != nil {
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		g.mu.Lock()
		kill := g.kill
		g.mu.Unlock()
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		go func() {
			select {
			case <-kill:
				cancel()
			case <-ctx.Done():
			}
		}()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// cut ends every open watch and holds new ones until open is called.
func (g *cgWatchGate) cut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.release == nil {
		g.release = make(chan struct{})
	}
	close(g.kill)
	g.kill = make(chan struct{})
	g.held = 0
}

// open lets held watches (and new ones) through.
func (g *cgWatchGate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.release != nil {
		close(g.release)
		g.release = nil
	}
}

func (g *cgWatchGate) heldWatches() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.held
}

// cgTracker is an informer event handler that counts calls and keeps, per object,
// the resourceVersion of the last event it got.
type cgTracker struct {
	mu                     sync.Mutex
	adds, updates, deletes int
	rv                     map[string]string
	outOfOrder             []string
}

func newCGTracker() *cgTracker { return &cgTracker{rv: map[string]string{}} }

func (tr *cgTracker) handler() cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			cm := obj.(*corev1.ConfigMap)
			tr.mu.Lock()
			defer tr.mu.Unlock()
			tr.adds++
			tr.rv[cm.Name] = cm.ResourceVersion
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, cm := oldObj.(*corev1.ConfigMap), newObj.(*corev1.ConfigMap)
			tr.mu.Lock()
			defer tr.mu.Unlock()
			tr.updates++
			if cgRV(cm.ResourceVersion) < cgRV(old.ResourceVersion) {
				tr.outOfOrder = append(tr.outOfOrder, fmt.Sprintf("%s: %s after %s", cm.Name, cm.ResourceVersion, old.ResourceVersion))
			}
			tr.rv[cm.Name] = cm.ResourceVersion
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			cm := obj.(*corev1.ConfigMap)
			tr.mu.Lock()
			defer tr.mu.Unlock()
			tr.deletes++
			delete(tr.rv, cm.Name)
		},
	}
}

func (tr *cgTracker) counts() (adds, updates, deletes int) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.adds, tr.updates, tr.deletes
}

func (tr *cgTracker) state() map[string]string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	out := make(map[string]string, len(tr.rv))
	for k, v := range tr.rv {
		out[k] = v
	}
	return out
}

func cgRV(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// cgServerState lists the namespace's ConfigMaps: name → resourceVersion.
func cgServerState(t *testing.T, ctx context.Context, cs kubernetes.Interface) (map[string]string, string) {
	t.Helper()
	list, err := cs.CoreV1().ConfigMaps(cgNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	out := make(map[string]string, len(list.Items))
	for _, cm := range list.Items {
		out[cm.Name] = cm.ResourceVersion
	}
	return out, list.ResourceVersion
}

// cgStoreState is the informer cache: name → resourceVersion.
func cgStoreState(store cache.Store) map[string]string {
	out := map[string]string{}
	for _, obj := range store.List() {
		cm := obj.(*corev1.ConfigMap)
		out[cm.Name] = cm.ResourceVersion
	}
	return out
}

// cgDiff describes how got differs from want, "" when equal.
func cgDiff(want, got map[string]string) string {
	var d []string
	for k, v := range want {
		if g, ok := got[k]; !ok {
			d = append(d, fmt.Sprintf("missing %s@%s", k, v))
		} else if g != v {
			d = append(d, fmt.Sprintf("%s at %s, want %s", k, g, v))
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			d = append(d, fmt.Sprintf("extra %s@%s", k, v))
		}
	}
	sort.Strings(d)
	if len(d) > 10 {
		d = append(d[:10], fmt.Sprintf("... and %d more", len(d)-10))
	}
	return strings.Join(d, "; ")
}

// cgEventually polls cond until it reports "" or the generous bound passes; the
// bound only keeps a broken server from hanging the run.
func cgEventually(t *testing.T, ctx context.Context, what string, cond func() string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		msg := cond()
		if msg == "" {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: never happened: %s", what, msg)
		case <-tick.C:
		}
	}
}

// cgInformer starts a ConfigMap informer on the namespace with tr as its handler
// and waits for both to sync. It is shut down when the test ends.
func cgInformer(t *testing.T, ctx context.Context, cs kubernetes.Interface, tr *cgTracker) cache.SharedIndexInformer {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(cgNamespace))
	inf := factory.Core().V1().ConfigMaps().Informer()
	reg, err := inf.AddEventHandler(tr.handler())
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	t.Cleanup(func() {
		cancel()
		factory.Shutdown()
	})
	// The handler has synced once it has been called for every listed object.
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced, reg.HasSynced) {
		t.Fatal("informer never synced")
	}
	return inf
}

// cgWriter writes ConfigMaps in the namespace and keeps the latest object of each.
type cgWriter struct {
	t    *testing.T
	ctx  context.Context
	cs   kubernetes.Interface
	rnd  *rand.Rand
	objs map[string]*corev1.ConfigMap
	next int

	creates, updates, deletes int
}

func newCGWriter(t *testing.T, ctx context.Context, cs kubernetes.Interface, seed uint64) *cgWriter {
	return &cgWriter{t: t, ctx: ctx, cs: cs, rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), objs: map[string]*corev1.ConfigMap{}}
}

func (w *cgWriter) create() {
	w.t.Helper()
	name := fmt.Sprintf("cm-%05d", w.next)
	w.next++
	cm, err := w.cs.CoreV1().ConfigMaps(cgNamespace).Create(w.ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "cg"}},
		Data:       map[string]string{"v": "0"},
	}, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatalf("create %s: %v", name, err)
	}
	w.objs[name] = cm
	w.creates++
}

func (w *cgWriter) pick() *corev1.ConfigMap {
	names := make([]string, 0, len(w.objs))
	for n := range w.objs {
		names = append(names, n)
	}
	sort.Strings(names)
	return w.objs[names[w.rnd.IntN(len(names))]]
}

func (w *cgWriter) update() {
	w.t.Helper()
	cm := w.pick().DeepCopy()
	cm.Data["v"] = strconv.Itoa(cgAtoi(cm.Data["v"]) + 1)
	got, err := w.cs.CoreV1().ConfigMaps(cgNamespace).Update(w.ctx, cm, metav1.UpdateOptions{})
	if err != nil {
		w.t.Fatalf("update %s: %v", cm.Name, err)
	}
	if cgRV(got.ResourceVersion) <= cgRV(cm.ResourceVersion) {
		w.t.Fatalf("update %s: resourceVersion %s not after %s", cm.Name, got.ResourceVersion, cm.ResourceVersion)
	}
	w.objs[cm.Name] = got
	w.updates++
}

func (w *cgWriter) delete() {
	w.t.Helper()
	cm := w.pick()
	if err := w.cs.CoreV1().ConfigMaps(cgNamespace).Delete(w.ctx, cm.Name, metav1.DeleteOptions{}); err != nil {
		w.t.Fatalf("delete %s: %v", cm.Name, err)
	}
	delete(w.objs, cm.Name)
	w.deletes++
}

// mixed makes n writes: creates while there are few objects, then creates,
// updates and deletes at random.
func (w *cgWriter) mixed(n int) {
	w.t.Helper()
	for range n {
		switch p := w.rnd.IntN(10); {
		case len(w.objs) < 10 || p < 4:
			w.create()
		case p < 8:
			w.update()
		default:
			w.delete()
		}
	}
}

// state is what the writer believes the server holds: name → resourceVersion.
func (w *cgWriter) state() map[string]string {
	out := make(map[string]string, len(w.objs))
	for n, cm := range w.objs {
		out[n] = cm.ResourceVersion
	}
	return out
}

func cgAtoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// K8S-WATCH-1: an informer lists, then watches from the list's resourceVersion,
// and sees every one of 1,000 mixed writes: exactly one handler call per write,
// and a final cache and per-object resourceVersions equal to the server's.
func TestK8S_WATCH_1_ClientGoInformer(t *testing.T) {
	rec := &cgRecorder{}
	hs, _ := startServer(t, apiserver.Config{Filters: []apiserver.Filter{rec.filter}})
	ctx := t.Context()
	cs, ics := cgClientset(t, hs.URL, cgDriverAgent), cgClientset(t, hs.URL, "")

	// A few objects before the informer starts: they come from its list.
	w := newCGWriter(t, ctx, cs, 1)
	for range 5 {
		w.create()
	}
	tr := newCGTracker()
	inf := cgInformer(t, ctx, ics, tr)
	if adds, _, _ := tr.counts(); adds != 5 {
		t.Fatalf("after sync: %d adds, want 5 (the listed objects)", adds)
	}
	w.creates = 0

	const writes = 1000
	w.mixed(writes)
	if w.creates+w.updates+w.deletes != writes {
		t.Fatalf("made %d writes, want %d", w.creates+w.updates+w.deletes, writes)
	}
	t.Logf("%d creates, %d updates, %d deletes", w.creates, w.updates, w.deletes)

	want := w.state()
	server, _ := cgServerState(t, ctx, cs)
	if d := cgDiff(want, server); d != "" {
		t.Fatalf("server state differs from acknowledged writes: %s", d)
	}
	wantAdds, wantUpdates, wantDeletes := 5+w.creates, w.updates, w.deletes
	cgEventually(t, ctx, "informer sees every write", func() string {
		adds, updates, deletes := tr.counts()
		if adds < wantAdds || updates < wantUpdates || deletes < wantDeletes {
			return fmt.Sprintf("adds %d/%d, updates %d/%d, deletes %d/%d", adds, wantAdds, updates, wantUpdates, deletes, wantDeletes)
		}
		return ""
	})
	// No event lost, none doubled: one handler call per write, exactly.
	if adds, updates, deletes := tr.counts(); adds != wantAdds || updates != wantUpdates || deletes != wantDeletes {
		t.Errorf("handler calls: adds %d, updates %d, deletes %d; want %d, %d, %d", adds, updates, deletes, wantAdds, wantUpdates, wantDeletes)
	}
	if d := cgDiff(server, tr.state()); d != "" {
		t.Errorf("handler-observed state differs from the server: %s", d)
	}
	if d := cgDiff(server, cgStoreState(inf.GetStore())); d != "" {
		t.Errorf("informer cache differs from the server: %s", d)
	}
	if len(tr.outOfOrder) > 0 {
		t.Errorf("updates went back in time: %v", tr.outOfOrder)
	}
	// One list, then one unbroken watch from its resourceVersion.
	if n := rec.count("list", "configmaps", nil); n != 1 {
		t.Errorf("%d lists, want 1:\n%s", n, rec.describe("configmaps"))
	}
	if n := rec.count("watch", "configmaps", nil); n != 1 {
		t.Errorf("%d watches, want 1:\n%s", n, rec.describe("configmaps"))
	}
}

// K8S-WATCH-3: when the informer's watch is cut and the history it would resume
// from is compacted meanwhile, its re-watch gets an ERROR event with a 410
// Expired Status, the reflector relists, and the informer reaches the server's
// state and keeps following it.
func TestK8S_WATCH_3_ClientGoInformerRelistsAfter410(t *testing.T) {
	rec := &cgRecorder{}
	gate := newCGWatchGate()
	hs, srv := startCore(t, sandbox.Config{
		Storage: storage.Config{HistoryLimit: 50},
		API:     apiserver.Config{Filters: []apiserver.Filter{rec.filter, gate.filter}},
	})
	t.Cleanup(gate.open)
	ctx := t.Context()
	cs, ics := cgClientset(t, hs.URL, cgDriverAgent), cgClientset(t, hs.URL, "")

	w := newCGWriter(t, ctx, cs, 2)
	for range 20 {
		w.create()
	}
	tr := newCGTracker()
	inf := cgInformer(t, ctx, ics, tr)
	w.mixed(30)
	server, _ := cgServerState(t, ctx, cs)
	cgEventually(t, ctx, "informer follows the first writes", func() string { return cgDiff(server, cgStoreState(inf.GetStore())) })
	lastSeen := cgRV(inf.LastSyncResourceVersion())
	listsBefore := rec.count("list", "configmaps", nil)

	// Cut the watch and hold the reflector's re-watch while history moves on
	// far past what is retained.
	gate.cut()
	cgEventually(t, ctx, "reflector tries to re-watch", func() string {
		if gate.heldWatches() == 0 {
			return "no watch request held"
		}
		return ""
	})
	w.mixed(200)
	if c := srv.Storage().CompactedRevision(); c <= lastSeen {
		t.Fatalf("compacted revision %d not past the informer's %d: the history limit did not apply", c, lastSeen)
	}
	gate.open()

	cgEventually(t, ctx, "reflector relists after 410", func() string {
		if n := rec.count("list", "configmaps", nil); n <= listsBefore {
			return fmt.Sprintf("%d lists, still %d", n, listsBefore)
		}
		return ""
	})
	if rec.expiredWatches() == 0 {
		t.Errorf("no watch stream carried a 410 Expired ERROR event:\n%s", rec.describe("configmaps"))
	}
	server, _ = cgServerState(t, ctx, cs)
	cgEventually(t, ctx, "informer reaches the server state after relisting", func() string {
		return cgDiff(server, cgStoreState(inf.GetStore()))
	})

	// The informer is watching again: later writes arrive as events.
	w.mixed(30)
	want := w.state()
	server, _ = cgServerState(t, ctx, cs)
	if d := cgDiff(want, server); d != "" {
		t.Fatalf("server state differs from acknowledged writes: %s", d)
	}
	cgEventually(t, ctx, "informer follows writes after the relist", func() string {
		return cgDiff(server, cgStoreState(inf.GetStore()))
	})
	cgEventually(t, ctx, "handlers follow writes after the relist", func() string {
		return cgDiff(server, tr.state())
	})
	if len(tr.outOfOrder) > 0 {
		t.Errorf("updates went back in time: %v", tr.outOfOrder)
	}
}

// K8S-WATCH-5: with client-go's WatchListClient feature on, the reflector syncs
// through a streaming list (sendInitialEvents=true, resourceVersionMatch=
// NotOlderThan, bookmarks) ending at the initial-events-end bookmark, with no
// plain list at all, and then keeps watching on that stream.
func TestK8S_WATCH_5_ClientGoWatchList(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, true)
	rec := &cgRecorder{}
	hs, _ := startServer(t, apiserver.Config{Filters: []apiserver.Filter{rec.filter}})
	ctx := t.Context()
	cs, ics := cgClientset(t, hs.URL, cgDriverAgent), cgClientset(t, hs.URL, "")

	w := newCGWriter(t, ctx, cs, 3)
	w.mixed(60)
	before := w.state()

	tr := newCGTracker()
	inf := cgInformer(t, ctx, ics, tr)
	// HasSynced is true only once the initial-events-end bookmark arrived.
	if d := cgDiff(before, cgStoreState(inf.GetStore())); d != "" {
		t.Errorf("informer cache after sync differs from the server: %s", d)
	}
	if adds, updates, deletes := tr.counts(); adds != len(before) || updates != 0 || deletes != 0 {
		t.Errorf("after sync: adds %d, updates %d, deletes %d; want %d, 0, 0", adds, updates, deletes, len(before))
	}
	streaming := func(q url.Values) bool {
		return q.Get("sendInitialEvents") == "true" && q.Get("resourceVersionMatch") == "NotOlderThan" &&
			q.Get("allowWatchBookmarks") == "true"
	}
	if n := rec.count("watch", "configmaps", streaming); n != 1 {
		t.Errorf("%d streaming-list watches, want 1:\n%s", n, rec.describe("configmaps"))
	}
	if n := rec.count("list", "configmaps", nil); n != 0 {
		t.Errorf("%d plain lists, want none:\n%s", n, rec.describe("configmaps"))
	}

	// The stream goes on with live changes.
	w.mixed(100)
	server, _ := cgServerState(t, ctx, cs)
	if d := cgDiff(w.state(), server); d != "" {
		t.Fatalf("server state differs from acknowledged writes: %s", d)
	}
	cgEventually(t, ctx, "informer follows writes after the streaming list", func() string {
		return cgDiff(server, cgStoreState(inf.GetStore()))
	})
	cgEventually(t, ctx, "handlers follow writes after the streaming list", func() string {
		return cgDiff(server, tr.state())
	})
	if n := rec.count("list", "configmaps", nil); n != 0 {
		t.Errorf("%d plain lists, want none:\n%s", n, rec.describe("configmaps"))
	}
	if n := rec.count("watch", "configmaps", nil); n != 1 {
		t.Errorf("%d watches, want the streaming list's only:\n%s", n, rec.describe("configmaps"))
	}

	// client-go's typed List goes over WatchList too when the gate is on, and
	// needs the list blueprint on the initial-events-end bookmark: it got the
	// server state above without falling back to a plain list.
	if n := rec.countOf(true, "list", "configmaps", nil); n != 0 {
		t.Errorf("typed List fell back to %d plain lists", n)
	}
	if n := rec.countOf(true, "watch", "configmaps", streaming); n == 0 {
		t.Errorf("typed List made no streaming-list watch")
	}
	list, err := cs.CoreV1().ConfigMaps(cgNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if list.Kind != "" && list.Kind != "ConfigMapList" || cgRV(list.ResourceVersion) == 0 || len(list.Items) != len(server) {
		t.Errorf("typed List over WatchList: kind %q, resourceVersion %q, %d items; want ConfigMapList, a revision, %d items",
			list.Kind, list.ResourceVersion, len(list.Items), len(server))
	}
}

// K8S-WATCH-3 (and K8S-RV-2): through client-go, a watch from a compacted
// resourceVersion ends with an ERROR event whose Status is 410 Expired, and an
// Exact list at it is 410 Expired too.
func TestK8S_WATCH_3_ClientGoWatchExpired(t *testing.T) {
	hs, srv := startServer(t, apiserver.Config{})
	ctx := t.Context()
	cs := cgClientset(t, hs.URL, cgDriverAgent)

	w := newCGWriter(t, ctx, cs, 4)
	w.create()
	var first *corev1.ConfigMap
	for _, cm := range w.objs {
		first = cm
	}
	w.mixed(20)
	compacted, err := srv.Storage().Compact(srv.Storage().Revision())
	if err != nil {
		t.Fatal(err)
	}
	old := first.ResourceVersion
	if cgRV(old) >= compacted {
		t.Fatalf("resourceVersion %s not below the compacted revision %d", old, compacted)
	}

	wi, err := cs.CoreV1().ConfigMaps(cgNamespace).Watch(ctx, metav1.ListOptions{ResourceVersion: old})
	if err != nil {
		t.Fatalf("watch at a compacted resourceVersion: want a stream ending in ERROR, got %v", err)
	}
	defer wi.Stop()
	var got []watch.Event
	for ev := range wi.ResultChan() {
		got = append(got, ev)
	}
	if len(got) != 1 || got[0].Type != watch.Error {
		t.Fatalf("events %v, want exactly one ERROR", got)
	}
	st, ok := got[0].Object.(*metav1.Status)
	if !ok {
		t.Fatalf("ERROR object is %T, want *metav1.Status", got[0].Object)
	}
	if st.Code != http.StatusGone || st.Reason != metav1.StatusReasonExpired || st.Status != metav1.StatusFailure {
		t.Errorf("status %+v, want Failure 410 Expired", st)
	}
	if !strings.Contains(st.Message, "too old resource version") {
		t.Errorf("message %q, want kube's \"too old resource version: …\"", st.Message)
	}
	if err := apierrors.FromObject(st); !apierrors.IsResourceExpired(err) {
		t.Errorf("apierrors.IsResourceExpired(%v) = false", err)
	}

	// The compacted revision itself is still a valid start: no synthetic events,
	// and the next write arrives.
	wi2, err := cs.CoreV1().ConfigMaps(cgNamespace).Watch(ctx, metav1.ListOptions{ResourceVersion: strconv.FormatInt(compacted, 10)})
	if err != nil {
		t.Fatal(err)
	}
	defer wi2.Stop()
	w.create()
	select {
	case ev, ok := <-wi2.ResultChan():
		if !ok || ev.Type != watch.Added {
			t.Fatalf("watch at the compacted revision: got %v (open %v), want ADDED", ev, ok)
		}
	case <-time.After(15 * time.Second): // only so a broken server cannot hang the run
		t.Fatal("watch at the compacted revision: no event for a new write")
	}

	_, err = cs.CoreV1().ConfigMaps(cgNamespace).List(ctx, metav1.ListOptions{
		ResourceVersion: old, ResourceVersionMatch: metav1.ResourceVersionMatchExact,
	})
	if !apierrors.IsResourceExpired(err) {
		t.Errorf("Exact list at a compacted resourceVersion: %v, want 410 Expired", err)
	}
}

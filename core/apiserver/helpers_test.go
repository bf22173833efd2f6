package apiserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"kubeplay/core/aggregator"
	"kubeplay/core/auth"
	"kubeplay/core/cel/celapi"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/apply"
	"kubeplay/core/budget"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/controllers/gc"
	"kubeplay/core/crd"
	"kubeplay/core/kinds"
	"kubeplay/core/object"
	"kubeplay/core/registry"
	"kubeplay/core/storage"
)

// testServer is the real handler behind httptest, spoken to over HTTP.
type testServer struct {
	t   testing.TB
	srv *testCore
	hs  *httptest.Server
}

// testConfig is what a test's core is assembled from, as core/sandbox
// assembles it: the handler's Config, storage's, the registry's settings and
// the Events' time to live.
type testConfig struct {
	Config
	Storage        storage.Config
	Budget         budget.Limits
	ServiceIPRange string
	FreshnessWait  time.Duration
	EventTTL       time.Duration
	// Authorization, when set, is the authorization mode, with
	// authentication (Tokens) in front, in kube's order: authentication,
	// then authorization.
	Authorization string
	Tokens        auth.Tokens
	// Aggregator runs the aggregator's controllers too (they write as the
	// server starts).
	Aggregator bool
	// ServiceAccountAdmission turns kube's ServiceAccount admission on; it
	// is off otherwise, as in the refapi kit that recorded most of kube's
	// answers here (NO_SA_ADMISSION=1: no controller makes the accounts
	// it requires).
	ServiceAccountAdmission bool
	// CEL is the server's CEL: core/cel's, linked in, unless set.
	CEL api.CEL
	// ControlPlane says whether a scheduler and a controller manager run
	// (registry.Config's).
	ControlPlane func() bool
	// NoGarbageCollector leaves the garbage collector out: its informers
	// list every resource consistently when they start, which moves the
	// watch caches' revisions under a test that reads them.
	NoGarbageCollector bool
}

// testCore is the handler over the registry and storage, with the
// controllers of kube-apiserver's own process running: core/sandbox's
// Server, which this package's tests cannot import.
type testCore struct {
	*Server
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newCore(cfg testConfig) (*testCore, error) {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real
	}
	sc := cfg.Storage
	sc.Budget = storage.Budget{Objects: cfg.Budget.Objects, Bytes: cfg.Budget.Bytes, Watchers: cfg.Budget.Watches}
	served := api.NewRegistry(kinds.All()...)
	if cfg.CEL == nil {
		cfg.CEL = celapi.New()
	}
	store, err := registry.Open(registry.Config{Storage: sc, Schema: served, Clock: cfg.Clock,
		Fields: apply.FieldManager{Kinds: served}, Pods: cfg.Budget.Pods, ServiceIPRange: cfg.ServiceIPRange, FreshnessWait: cfg.FreshnessWait,
		Authorization: cfg.Authorization, NoServiceAccountAdmission: !cfg.ServiceAccountAdmission, CEL: cfg.CEL,
		ControlPlane: cfg.ControlPlane})
	if err != nil {
		return nil, err
	}
	if cfg.Authorization != "" {
		z := store.Authorizer()
		authn := auth.NewAuthenticator(auth.Options{Tokens: cfg.Tokens, Anonymous: true, Authorizer: z, ServiceAccounts: z})
		cfg.Config.Filters = append([]Filter{authn.Filter, auth.Authorization(z)}, cfg.Config.Filters...)
	}
	c := &testCore{Server: New(store, cfg.Config)}
	kinds := store.Schema()
	definitions := crd.NewController(c.Server, kinds, cfg.Clock)
	definitions.Restore(store.Decoded(kinds.ByGroupResource("apiextensions.k8s.io", "customresourcedefinitions")))
	var ctx context.Context
	ctx, c.cancel = context.WithCancel(context.Background())
	runs := []func(context.Context){controllers.NewNamespace(c.Server, cfg.Clock).Run, definitions.Run, store.EventTTL(cfg.EventTTL).Run}
	if !cfg.NoGarbageCollector {
		runs = append(runs, gc.New(c.Server, cfg.Clock).Run)
	}
	if cfg.Aggregator {
		runs = append(runs, aggregator.New(c.Server, kinds, cfg.Clock, nil).Run)
	}
	for _, run := range runs {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			run(ctx)
		}()
	}
	return c, nil
}

// Store is the storage under the registry.
func (c *testCore) Store() *storage.Store { return c.store.Storage() }

// Close stops the controllers and closes storage.
func (c *testCore) Close() error {
	c.cancel()
	err := c.store.Close()
	c.wg.Wait()
	return err
}

func newTestServer(t testing.TB, cfg testConfig) *testServer {
	t.Helper()
	srv, err := newCore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		srv.Close()
	})
	return &testServer{t: t, srv: srv, hs: hs}
}

// response is an answer with its body decoded as JSON (when it is JSON).
type response struct {
	Code   int
	Header http.Header
	Body   []byte
	Obj    map[string]any
}

func (r *response) str(path ...string) string {
	v, _ := object.Path(r.Obj, path...).(string)
	return v
}

func (r *response) items() []map[string]any {
	list, _ := r.Obj["items"].([]any)
	out := make([]map[string]any, len(list))
	for i, it := range list {
		out[i], _ = it.(map[string]any)
	}
	return out
}

func (r *response) names() []string {
	var out []string
	for _, it := range r.items() {
		n, _ := object.Path(it, "metadata", "name").(string)
		out = append(out, n)
	}
	return out
}

// do sends a request; body may be a string, []byte or any JSON-encodable value.
func (s *testServer) do(method, path string, body any, headers ...string) *response {
	s.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = strings.NewReader(string(b))
	default:
		data, err := json.Marshal(b)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = strings.NewReader(string(data))
	}
	req, err := http.NewRequest(method, s.hs.URL+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := s.hs.Client().Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	r := &response{Code: resp.StatusCode, Header: resp.Header, Body: data}
	_ = json.Unmarshal(data, &r.Obj)
	return r
}

// must checks the status code.
func (r *response) must(t testing.TB, code int) *response {
	t.Helper()
	if r.Code != code {
		t.Fatalf("got %d, want %d: %s", r.Code, code, r.Body)
	}
	return r
}

// wantPageNotFound checks r is the plain 404 of kube's mux for a path no API serves.
func (r *response) wantPageNotFound(t testing.TB) {
	t.Helper()
	if r.Code != 404 || string(r.Body) != "404 page not found\n" || r.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("got %d %s: %s, want the plain 404", r.Code, r.Header.Get("Content-Type"), r.Body)
	}
}

// wantStatus checks an error answer is a Status with code, reason and message.
func (r *response) wantStatus(t testing.TB, code int, reason, message string) *response {
	t.Helper()
	r.must(t, code)
	if r.str("kind") != "Status" || r.str("apiVersion") != "v1" || r.str("status") != "Failure" {
		t.Fatalf("not a failure Status: %s", r.Body)
	}
	if got := int(r.Obj["code"].(float64)); got != code {
		t.Fatalf("Status.code %d, want %d", got, code)
	}
	if r.str("reason") != reason {
		t.Fatalf("reason %q, want %q: %s", r.str("reason"), reason, r.Body)
	}
	if message != "" && r.str("message") != message {
		t.Fatalf("message\n got %q\nwant %q", r.str("message"), message)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q", ct)
	}
	return r
}

func cm(name string, labels map[string]string, data map[string]string) map[string]any {
	meta := map[string]any{"name": name}
	if labels != nil {
		meta["labels"] = labels
	}
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}
}

func (s *testServer) createCM(ns, name string, labels map[string]string) *response {
	s.t.Helper()
	return s.do("POST", "/api/v1/namespaces/"+ns+"/configmaps", cm(name, labels, map[string]string{"k": "v"})).must(s.t, 201)
}

// watchStream is an open watch, read one event at a time.
type watchStream struct {
	t      testing.TB
	resp   *http.Response
	cancel context.CancelFunc
	lines  chan []byte
}

type watchEvent struct {
	Type   string         `json:"type"`
	Object map[string]any `json:"object"`
}

func (e watchEvent) name() string {
	s, _ := object.Path(e.Object, "metadata", "name").(string)
	return s
}
func (e watchEvent) rv() string {
	s, _ := object.Path(e.Object, "metadata", "resourceVersion").(string)
	return s
}

func (s *testServer) watch(path string) *watchStream {
	s.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", s.hs.URL+path, nil)
	resp, err := s.hs.Client().Do(req)
	if err != nil {
		cancel()
		s.t.Fatal(err)
	}
	ws := &watchStream{t: s.t, resp: resp, cancel: cancel, lines: make(chan []byte, 1024)}
	go func() {
		defer close(ws.lines)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 4<<20)
		for sc.Scan() {
			ws.lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	s.t.Cleanup(ws.close)
	return ws
}

func (w *watchStream) close() {
	w.cancel()
	w.resp.Body.Close()
}

// next returns the next event, failing the test if none comes within 5s.
func (w *watchStream) next() watchEvent {
	w.t.Helper()
	select {
	case line, ok := <-w.lines:
		if !ok {
			w.t.Fatal("watch ended, want an event")
		}
		var e watchEvent
		if err := json.Unmarshal(line, &e); err != nil {
			w.t.Fatalf("bad frame %q: %v", line, err)
		}
		return e
	case <-time.After(5 * time.Second):
		w.t.Fatal("no watch event within 5s")
	}
	return watchEvent{}
}

// ended reports whether the stream ends within d without further events.
func (w *watchStream) ended(d time.Duration) bool {
	w.t.Helper()
	select {
	case line, ok := <-w.lines:
		if ok {
			w.t.Fatalf("unexpected event %s", line)
		}
		return true
	case <-time.After(d):
		return false
	}
}

// quiet checks no event arrives within d.
func (w *watchStream) quiet(d time.Duration) {
	w.t.Helper()
	select {
	case line, ok := <-w.lines:
		if ok {
			w.t.Fatalf("unexpected event %s", line)
		}
	case <-time.After(d):
	}
}

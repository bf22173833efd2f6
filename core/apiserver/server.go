// Package apiserver owns kubeplay's Kubernetes API: an http.Handler (core/web's Handler) that routes
// requests as kube-apiserver does, serves discovery, the verbs on every resource
// type of the schema registry, list/watch with kube's resourceVersion semantics,
// chunking, and answers every error as a metav1.Status.
//
// The handler is a chain of filters around the router, in kube-apiserver's generic
// server order: panic recovery, request info, request log, body limit, then the
// host's filters (authentication, API Priority and Fairness) and the router.
package apiserver

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/apply"
	"kubeplay/core/budget"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/controllers/gc"
	"kubeplay/core/crd"
	"kubeplay/core/kinds"
	"kubeplay/core/object"
	"kubeplay/core/openapi"
	"kubeplay/core/podlogs"
	"kubeplay/core/registry"
	"kubeplay/core/request"
	"kubeplay/core/schema"
	"kubeplay/core/storage"
	"kubeplay/core/user"
	"kubeplay/core/warning"
	"kubeplay/core/web"
)

// Filter wraps a handler, as kube-apiserver's filters do.
type Filter func(web.Handler) web.Handler

// Config configures a Server. The zero value serves an in-memory sandbox.
type Config struct {
	// Persister makes the store durable; nil keeps it in memory.
	Persister storage.Persister
	// SnapshotEvery is how many journaled commits trigger a snapshot (default 10,000).
	SnapshotEvery int
	// HistoryWindow, HistoryLimit and HistoryBytes bound the change history
	// (default 5m, 10,000 changes, 256 MiB).
	HistoryWindow time.Duration
	HistoryLimit  int
	HistoryBytes  int64
	// WatchBuffer and WatchBufferBytes are how far a watcher may lag before it is
	// closed (default 1,000 events, 64 MiB of objects).
	WatchBuffer      int
	WatchBufferBytes int64
	// BookmarkInterval is how often a watch with allowWatchBookmarks gets a BOOKMARK
	// (default 1m, as kube-apiserver's watch cache).
	BookmarkInterval time.Duration
	// MaxWatchTimeout caps a watch's life; 0 uses kube's 30–60 min. The browser host
	// sets it below the service worker's lifetime.
	MaxWatchTimeout time.Duration
	// FreshnessWait is how long a read waits for a newer resourceVersion than the
	// store has before 504 "Too large resource version" (default 3s, as kube).
	FreshnessWait time.Duration
	// MaxRequestBytes limits request bodies (default 3 MiB, as kube-apiserver).
	MaxRequestBytes int64
	// Filters run after request info and before the router, outermost first:
	// authentication, API Priority and Fairness.
	Filters []Filter
	// Logf, when set, gets one line per request.
	Logf func(format string, args ...any)
	// OpenAPIDocuments gives the built-in OpenAPI documents (core/openapi's
	// documents.bin) when they are first asked for; nil: the ones built into
	// the program (natively). A WebAssembly host hands them over.
	OpenAPIDocuments func() ([]byte, error)
	// Resources are kinds served beside the built-ins: the xDS group
	// (schema.XDS), with the host's check of Envoy resources.
	Resources []*schema.Resource
	// Clock is the server's time: timestamps, watch deadlines and bookmarks, the
	// history window, the controllers; nil is the wall clock. Tests drive a fake.
	Clock clock.Clock
	// ServiceIPRange is kube-apiserver's --service-cluster-ip-range (default
	// registry.DefaultServiceIPRange, 10.96.0.0/12).
	ServiceIPRange string
	// PodLogs answers for the kubelets (the log subresource of Pods); nil:
	// the logs of Pods are empty, as a cluster without kubelets has none.
	PodLogs podlogs.Kubelet
	// Budget bounds what the sandbox holds and opens (core/budget); the zero
	// value bounds nothing.
	Budget budget.Limits
	// EventTTL is how long an Event lives after its last write (default 1h,
	// kube-apiserver's --event-ttl).
	EventTTL time.Duration
	// DeferControllers: New starts no controllers, StartControllers does. A
	// host on one thread (WebAssembly) starts them once it serves, so their
	// first lists (the garbage collector's dozens) do not delay its start.
	DeferControllers bool
}

// Server is the API server core.
type Server struct {
	cfg     Config
	kinds   *schema.Registry   // the served kinds
	store   *registry.Store    // the objects: reads and writes
	fields  apply.FieldManager // managedFields, server-side apply
	handler web.Handler
	items   itemCache

	openAPI *openapi.Service

	definitions      *crd.Controller
	startControllers sync.Once

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New starts a server: it opens (or restores) the store, creates the system
// namespaces if they are missing, serves the custom resources of the stored
// CustomResourceDefinitions and starts the controllers: namespaces, the
// garbage collector, CustomResourceDefinitions.
func New(cfg Config) (*Server, error) {
	if cfg.BookmarkInterval <= 0 {
		cfg.BookmarkInterval = time.Minute
	}
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = 3 << 20
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real
	}
	s := &Server{cfg: cfg, kinds: schema.NewRegistry(append(kinds.All(), cfg.Resources...)...)}
	store, err := registry.Open(registry.Config{
		Storage: storage.Config{
			HistoryWindow:    cfg.HistoryWindow,
			HistoryLimit:     cfg.HistoryLimit,
			HistoryBytes:     cfg.HistoryBytes,
			WatchBuffer:      cfg.WatchBuffer,
			WatchBufferBytes: cfg.WatchBufferBytes,
			Persister:        cfg.Persister,
			SnapshotEvery:    cfg.SnapshotEvery,
			Budget:           storage.Budget{Objects: cfg.Budget.Objects, Bytes: cfg.Budget.Bytes, Watchers: cfg.Budget.Watches},
		},
		Schema:         s.kinds,
		Clock:          cfg.Clock,
		Fields:         s.fields,
		Pods:           cfg.Budget.Pods,
		ServiceIPRange: cfg.ServiceIPRange,
		FreshnessWait:  cfg.FreshnessWait,
	})
	if err != nil {
		return nil, err
	}
	s.store = store
	s.openAPI = openapi.New(s.kinds, openapi.Options{Clock: cfg.Clock, Documents: cfg.OpenAPIDocuments, Document: crd.Document})
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.handler = s.buildChain()
	s.definitions = crd.NewController(s, s.kinds, cfg.Clock)
	s.definitions.Restore(s.storedDefinitions())
	if !cfg.DeferControllers {
		s.StartControllers()
	}
	return s, nil
}

// StartControllers starts the controllers that run inside kube-apiserver's
// process here: namespaces, the garbage collector, CustomResourceDefinitions,
// and the Events' time to live (once; New does unless Config.DeferControllers).
func (s *Server) StartControllers() {
	s.startControllers.Do(func() {
		for _, run := range []func(context.Context){controllers.NewNamespace(s, s.cfg.Clock).Run, gc.New(s, s.cfg.Clock).Run, s.definitions.Run,
			s.store.EventTTL(s.cfg.EventTTL).Run} {
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				run(s.ctx)
			}()
		}
	})
}

// storedDefinitions are the CustomResourceDefinitions in the store.
func (s *Server) storedDefinitions() []object.Object {
	return s.store.Decoded(s.kinds.ByGroupResource("apiextensions.k8s.io", "customresourcedefinitions"))
}

// Close stops the controllers and closes the store (ending every watch).
func (s *Server) Close() error {
	s.cancel()
	err := s.store.Close()
	s.wg.Wait()
	return err
}

// Store is the server's storage, for hosts and tests.
func (s *Server) Store() *storage.Store { return s.store.Storage() }

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w web.ResponseWriter, r *web.Request) { s.handler.ServeHTTP(w, r) }

func (s *Server) buildChain() web.Handler {
	var h web.Handler = web.HandlerFunc(s.route)
	for i := len(s.cfg.Filters) - 1; i >= 0; i-- {
		h = s.cfg.Filters[i](h)
	}
	h = withMaxBody(h, s.cfg.MaxRequestBytes)
	h = warning.Filter(h)
	h = withStandardHeaders(h)
	if s.cfg.Logf != nil {
		h = withRequestLog(h, s.cfg.Logf, s.cfg.Clock)
	}
	h = withRequestInfo(h)
	return withPanicRecovery(h)
}

func withPanicRecovery(next web.Handler) web.Handler {
	return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == web.ErrAbortHandler {
					panic(v)
				}
				writeStatus(w, apierrors.NewInternal(fmt.Errorf("panic: %v", v)))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

func withRequestInfo(next web.Handler) web.Handler {
	return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		next.ServeHTTP(w, r.WithContext(request.WithRequestInfo(r.Context(), request.ParseRequestInfo(r))))
	})
}

// withStandardHeaders sets the headers kube-apiserver puts on every response.
func withStandardHeaders(next web.Handler) web.Handler {
	return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-cache, private")
		h.Set("Audit-Id", object.NewUID())
		next.ServeHTTP(w, r)
	})
}

// withMaxBody answers 413 for bodies over limit before anything reads them, and
// caps what a handler can read when the length is not announced.
func withMaxBody(next web.Handler, limit int64) web.Handler {
	return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		if r.ContentLength > limit {
			writeStatus(w, apierrors.NewRequestEntityTooLarge(limit))
			return
		}
		if r.Body != nil {
			r.Body = web.MaxBytesReader(w, r.Body, limit)
		}
		next.ServeHTTP(w, r)
	})
}

type statusRecorder struct {
	web.ResponseWriter
	code  int
	bytes int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = web.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(web.Flusher); ok {
		f.Flush()
	}
}

func (r *statusRecorder) Unwrap() web.ResponseWriter { return r.ResponseWriter }

func withRequestLog(next web.Handler, logf func(string, ...any), clk clock.Clock) web.Handler {
	return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		start := clk.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		info := request.RequestInfoFrom(r.Context())
		who := ""
		if u, ok := user.From(r.Context()); ok {
			who = " user=" + u.Name
		}
		logf("%s %s verb=%s code=%d bytes=%d%s in %s", r.Method, r.URL.RequestURI(), info.Verb, rec.code, rec.bytes, who,
			clk.Now().Sub(start).Round(time.Microsecond))
	})
}

// route dispatches to discovery, health, version or the resource handlers.
func (s *Server) route(w web.ResponseWriter, r *web.Request) {
	info := request.RequestInfoFrom(r.Context())
	if parts := request.SplitPath(r.URL.Path); len(parts) > 1 && parts[0] == "apis" && !s.kinds.ServesGroup(parts[1]) {
		// kube's aggregator hands a group no API serves to its mux's plain 404.
		web.NotFound(w)
		return
	}
	if info.IsResourceRequest {
		s.serveResource(w, r, info)
		return
	}
	p := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case p == "/version":
		s.serveVersion(w, r)
	case p == "/healthz" || p == "/livez" || p == "/readyz" ||
		strings.HasPrefix(p, "/healthz/") || strings.HasPrefix(p, "/livez/") || strings.HasPrefix(p, "/readyz/"):
		serveHealth(w, r)
	case p == "/api" || p == "/apis" || strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/apis/"):
		s.serveDiscovery(w, r)
	case p == "/debug/kubeplay/compact":
		s.serveCompact(w, r)
	case p == "/debug/kubeplay/decode":
		s.serveDecode(w, r)
	case p == "/debug/kubeplay/corrupt":
		s.serveCorrupt(w, r)
	case p == "/openapi" || strings.HasPrefix(p, "/openapi/"):
		s.openAPI.ServeHTTP(w, r)
	default:
		writeStatus(w, apierrors.NewPathNotFound())
	}
}

// ObjectCount is how many objects of a resource are stored: what API Priority
// and Fairness estimates a list's work from (kube keeps such counts per
// resource too).
func (s *Server) ObjectCount(group, resource string) int64 {
	res := s.kinds.ByGroupResource(group, resource)
	if res == nil {
		return 0
	}
	return s.store.Count(res)
}

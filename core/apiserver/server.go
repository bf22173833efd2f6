// Package apiserver owns kubeplay's Kubernetes API over HTTP: an http.Handler
// (core/web's Handler) that routes requests as kube-apiserver does, serves
// discovery, reads each request's query and body (content negotiation,
// patches, apply, field validation), hands the verbs on every resource type to
// the registry (core/registry, which owns reads and writes, resourceVersions
// and chunking), writes the answer in the negotiated representation (JSON,
// YAML, CBOR, protobuf, Table, metadata; watch streams), and answers every
// error as a metav1.Status. It is given a ready registry and starts nothing.
//
// The handler is a chain of filters around the router, in kube-apiserver's generic
// server order: panic recovery, request info, request log, body limit, then the
// host's filters (authentication, API Priority and Fairness) and the router.
package apiserver

import (
	"fmt"
	"strings"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/clock"
	"kubeplay/core/crd"
	"kubeplay/core/health"
	"kubeplay/core/object"
	"kubeplay/core/openapi"
	"kubeplay/core/podlogs"
	"kubeplay/core/registry"
	"kubeplay/core/request"
	"kubeplay/core/requestlog"
	"kubeplay/core/warning"
	"kubeplay/core/web"
)

// Filter wraps a handler, as kube-apiserver's filters do.
type Filter func(web.Handler) web.Handler

// Config configures a Server. The zero value serves with kube's defaults.
type Config struct {
	// BookmarkInterval is how often a watch with allowWatchBookmarks gets a BOOKMARK
	// (default 1m, as kube-apiserver's watch cache).
	BookmarkInterval time.Duration
	// MaxWatchTimeout caps a watch's life; 0 uses kube's 30–60 min. The browser host
	// sets it below the service worker's lifetime.
	MaxWatchTimeout time.Duration
	// MaxRequestBytes limits request bodies (default 3 MiB, as kube-apiserver).
	MaxRequestBytes int64
	// Filters run after request info and before the router, outermost first:
	// authentication, API Priority and Fairness.
	Filters []Filter
	// RequestLog, when set, logs every request (core/requestlog), and
	// /debug/kubeplay/requests serves it.
	RequestLog *requestlog.Log
	// Unready names the post-start hooks not finished yet (core/health),
	// which /readyz, /livez and /healthz report failing; nil: none.
	Unready func() []string
	// Debug are more /debug/kubeplay/ endpoints, by path, that other
	// packages serve (core/export's), authorized as the rest.
	Debug map[string]web.Handler
	// OpenAPIDocuments gives the built-in OpenAPI documents (core/openapi's
	// documents.bin) when they are first asked for; nil: the ones built into
	// the program (natively). A WebAssembly host hands them over.
	OpenAPIDocuments func() ([]byte, error)
	// Clock is the server's time: timestamps, watch deadlines and bookmarks;
	// nil is the wall clock. Tests drive a fake.
	Clock clock.Clock
	// PodLogs answers for the kubelets (the log subresource of Pods); nil:
	// the lines core/podlogs makes (podlogs.Generated).
	PodLogs podlogs.Kubelet
}

// Server is the API's handler.
type Server struct {
	cfg     Config
	kinds   *api.Registry   // the served kinds
	store   *registry.Store // the objects: reads and writes
	handler web.Handler

	openAPI *openapi.Service
}

// New is the API's handler over store, serving the kinds of its schema. It
// starts nothing: whoever assembles the core (core/sandbox) runs the
// controllers.
func New(store *registry.Store, cfg Config) *Server {
	if cfg.BookmarkInterval <= 0 {
		cfg.BookmarkInterval = time.Minute
	}
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = 3 << 20
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real
	}
	s := &Server{cfg: cfg, kinds: store.Schema(), store: store}
	if s.cfg.PodLogs == nil {
		s.cfg.PodLogs = podlogs.Generated(cfg.Clock, s.currentPod)
	}
	s.openAPI = openapi.New(s.kinds, openapi.Options{Clock: cfg.Clock, Documents: cfg.OpenAPIDocuments, Document: crd.Document, V2: crd.V2})
	s.handler = s.buildChain()
	return s
}

// Clock is the server's time.
func (s *Server) Clock() clock.Clock { return s.cfg.Clock }

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w web.ResponseWriter, r *web.Request) { s.handler.ServeHTTP(w, r) }

func (s *Server) buildChain() web.Handler {
	var h web.Handler = web.HandlerFunc(s.route)
	for i := len(s.cfg.Filters) - 1; i >= 0; i-- {
		h = s.cfg.Filters[i](h)
	}
	h = withMaxBody(h, s.cfg.MaxRequestBytes)
	h = warning.Filter(h)
	h = withStandardHeaders(h, s.cfg.Clock)
	if s.cfg.RequestLog != nil {
		h = s.cfg.RequestLog.Filter(h)
	}
	h = withRequestInfo(h)
	return withPanicRecovery(withClientUserAgent(h))
}

// withClientUserAgent makes web.UserAgentHeader, when a request carries it,
// the request's User-Agent and removes it: the request log, APF, field
// managers and kube's handlers see the agent its client meant to send and
// never the header.
func withClientUserAgent(next web.Handler) web.Handler {
	return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		if ua := r.Header.Get(web.UserAgentHeader); ua != "" {
			r = r.WithContext(r.Context()) // a copy, its header the filter's own
			r.Header = r.Header.Clone()
			r.Header.Set("User-Agent", ua)
			r.Header.Del(web.UserAgentHeader)
		}
		next.ServeHTTP(w, r)
	})
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
// dateFormat is HTTP's date (net/http's TimeFormat).
const dateFormat = "Mon, 02 Jan 2006 15:04:05 GMT"

func withStandardHeaders(next web.Handler, clk clock.Clock) web.Handler {
	return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-cache, private")
		h.Set("Audit-Id", object.NewUID())
		// net/http's server dates every answer; the in-process ones (the
		// page's, the browser's and the edge's hosts) are dated here alike,
		// by the sandbox's clock.
		h.Set("Date", clk.Now().UTC().Format(dateFormat))
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
	case health.IsPath(r.URL.Path):
		var pending []string
		if s.cfg.Unready != nil {
			pending = s.cfg.Unready()
		}
		health.Serve(w, r, pending)
	case p == "/api" || p == "/apis" || strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/apis/"):
		s.serveDiscovery(w, r)
	case p == "/debug/kubeplay/compact":
		s.serveCompact(w, r)
	case p == "/debug/kubeplay/decode":
		s.serveDecode(w, r)
	case p == "/debug/kubeplay/corrupt":
		s.serveCorrupt(w, r)
	case requestlog.IsPath(p) && s.cfg.RequestLog != nil:
		s.cfg.RequestLog.ServeHTTP(w, r)
	case s.cfg.Debug[p] != nil:
		s.cfg.Debug[p].ServeHTTP(w, r)
	case p == "/openapi" || strings.HasPrefix(p, "/openapi/"):
		s.openAPI.ServeHTTP(w, r)
	default:
		writeStatus(w, apierrors.NewPathNotFound())
	}
}

package xds

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"kubeplay/core/web"
)

// The HTTP transports, on every host (natively beside gRPC; in the browser,
// where a page has no gRPC and a service worker cannot take a streamed
// request body, through fetch):
//
//	POST /v3/discovery:clusters (listeners, routes, endpoints, secrets)
//	    Envoy's REST-JSON polling: a DiscoveryRequest in, a DiscoveryResponse
//	    out, 304 when version_info is current.
//	POST /xds/v3/streams?protocol=sotw|delta[&type=TYPE_URL]
//	    opens a stream (aggregated without type): 201 {"id": ID}.
//	GET /xds/v3/streams/ID
//	    the stream's responses as they come, one JSON object per line
//	    (application/x-ndjson), like a watch; a last line {"error": {code,
//	    message}} when the server ends it. Closing it ends the stream.
//	POST /xds/v3/streams/ID
//	    one request (DiscoveryRequest or DeltaDiscoveryRequest JSON): 202.
//	DELETE /xds/v3/streams/ID
//	    ends the stream.
//	GET /xds/v3/status
//	    every stream's state (Status): subscriptions, nonces, ACKs, NACKs.
//
// Request bodies are proto JSON; a malformed one is a 400 naming its field.

// restTypes are the REST polling paths' types.
var restTypes = map[string]string{
	"listeners": "type.googleapis.com/envoy.config.listener.v3.Listener",
	"routes":    "type.googleapis.com/envoy.config.route.v3.RouteConfiguration",
	"clusters":  "type.googleapis.com/envoy.config.cluster.v3.Cluster",
	"endpoints": "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment",
	"secrets":   "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret",
}

// maxSessions bounds the HTTP streams open at once, and sessionIdle how long
// one may wait for its reader before it is closed.
const (
	statusAccepted  = 202
	statusNoContent = 204

	maxSessions    = 64
	sessionIdle    = time.Minute
	maxRequestBody = 1 << 20
)

// IsHTTPPath says whether the HTTP handler serves path (for hosts that route
// by path).
func IsHTTPPath(path string) bool {
	return strings.HasPrefix(path, "/v3/discovery:") || strings.HasPrefix(path, "/xds/v3/")
}

// ServeHTTP serves the HTTP transports.
func (s *Server) ServeHTTP(w web.ResponseWriter, r *web.Request) {
	path := r.URL.Path
	switch {
	case strings.HasPrefix(path, "/v3/discovery:"):
		s.serveREST(w, r, strings.TrimPrefix(path, "/v3/discovery:"))
	case path == "/xds/v3/status" && r.Method == web.MethodGet:
		writeJSON(w, web.StatusOK, s.Status())
	case path == "/xds/v3/streams" && r.Method == web.MethodPost:
		s.openSession(w, r)
	case strings.HasPrefix(path, "/xds/v3/streams/"):
		s.serveSession(w, r, strings.TrimPrefix(path, "/xds/v3/streams/"))
	default:
		writeStatus(w, web.StatusNotFound, "NotFound", "the server could not find the requested resource")
	}
}

func (s *Server) serveREST(w web.ResponseWriter, r *web.Request, noun string) {
	typeURL, ok := restTypes[noun]
	if !ok {
		writeStatus(w, web.StatusNotFound, "NotFound", fmt.Sprintf("no discovery service %q: one of listeners, routes, clusters, endpoints, secrets", noun))
		return
	}
	if r.Method != web.MethodPost {
		writeStatus(w, web.StatusMethodNotAllowed, "MethodNotAllowed", "POST a DiscoveryRequest")
		return
	}
	body, err := readBody(r)
	if err != nil {
		writeError(w, err)
		return
	}
	req, err := DecodeRequestJSON(body)
	if err != nil {
		writeError(w, err)
		return
	}
	if req.TypeURL == "" {
		req.TypeURL = typeURL
	} else if req.TypeURL != typeURL {
		writeError(w, invalid("type_url %q on the %s service", req.TypeURL, noun))
		return
	}
	resp, err := s.Fetch(req)
	if errors.Is(err, ErrNotModified) {
		w.WriteHeader(web.StatusNotModified)
		return
	}
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, web.StatusOK, resp.JSON())
}

func readBody(r *web.Request) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxRequestBody {
		return nil, invalid("the request is larger than %d bytes", maxRequestBody)
	}
	return body, nil
}

// session is a stream served over HTTP: requests posted one by one, responses
// read as one streamed answer.
type session struct {
	id       string
	delta    bool
	requests chan []byte
	out      chan []byte // JSON lines
	attached chan struct{}
	cancel   context.CancelFunc
	done     chan struct{} // closed when the stream has ended
	once     sync.Once
}

type sessions struct {
	mu   sync.Mutex
	byID map[string]*session
	next int64
}

func (s *Server) openSession(w web.ResponseWriter, r *web.Request) {
	q := r.URL.Query()
	protocol, typeURL := q.Get("protocol"), q.Get("type")
	if protocol != "sotw" && protocol != "delta" {
		writeError(w, invalid("protocol must be sotw or delta"))
		return
	}
	if typeURL != "" && !served(typeURL) {
		writeError(w, invalid("unknown type_url %q: not an Envoy type kubeplay serves", typeURL))
		return
	}
	s.sessions.mu.Lock()
	if s.sessions.byID == nil {
		s.sessions.byID = map[string]*session{}
	}
	if len(s.sessions.byID) >= maxSessions {
		s.sessions.mu.Unlock()
		writeStatus(w, web.StatusTooManyRequests, "TooManyRequests", fmt.Sprintf("%d xDS streams are open already", maxSessions))
		return
	}
	s.sessions.next++
	ctx, cancel := context.WithCancel(context.Background())
	ss := &session{id: strconv.FormatInt(s.sessions.next, 10), delta: protocol == "delta", requests: make(chan []byte, 16),
		out: make(chan []byte, 64), attached: make(chan struct{}), cancel: cancel, done: make(chan struct{})}
	s.sessions.byID[ss.id] = ss
	s.sessions.mu.Unlock()
	go s.runSession(ctx, ss, typeURL)
	writeJSON(w, web.StatusCreated, map[string]string{"id": ss.id})
}

// runSession serves the session's stream until it ends, then forgets it.
func (s *Server) runSession(ctx context.Context, ss *session, typeURL string) {
	defer func() {
		ss.cancel()
		close(ss.done)
		s.sessions.mu.Lock()
		delete(s.sessions.byID, ss.id)
		s.sessions.mu.Unlock()
	}()
	go func() { // a session nobody reads is closed
		t := s.cfg.Clock.NewTimer(sessionIdle)
		defer t.Stop()
		select {
		case <-t.C():
			ss.cancel()
		case <-ss.attached:
		case <-ctx.Done():
		}
	}()
	emit := func(v any) error {
		line, err := json.Marshal(v)
		if err != nil {
			return err
		}
		select {
		case ss.out <- append(line, '\n'):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	next := func() ([]byte, error) {
		select {
		case b := <-ss.requests:
			return b, nil
		case <-ctx.Done():
			return nil, io.EOF
		}
	}
	var err error
	if ss.delta {
		err = s.StreamDelta(ctx, typeURL, func() (*DeltaRequest, error) {
			b, err := next()
			if err != nil {
				return nil, err
			}
			return DecodeDeltaRequestJSON(b)
		}, func(r *DeltaResponse) error { return emit(r.JSON()) })
	} else {
		err = s.StreamSotW(ctx, typeURL, func() (*Request, error) {
			b, err := next()
			if err != nil {
				return nil, err
			}
			return DecodeRequestJSON(b)
		}, func(r *Response) error { return emit(r.JSON()) })
	}
	if err != nil {
		e := AsError(err)
		_ = emit(map[string]any{"error": map[string]any{"code": int(e.Code), "message": e.Message}})
	}
}

func (s *Server) serveSession(w web.ResponseWriter, r *web.Request, id string) {
	s.sessions.mu.Lock()
	ss := s.sessions.byID[id]
	s.sessions.mu.Unlock()
	if ss == nil {
		writeStatus(w, web.StatusNotFound, "NotFound", fmt.Sprintf("no xDS stream %q (ended, or never opened)", id))
		return
	}
	switch r.Method {
	case web.MethodGet:
		ss.read(w, r)
	case web.MethodPost:
		body, err := readBody(r)
		if err != nil {
			writeError(w, err)
			return
		}
		select {
		case ss.requests <- body:
			w.WriteHeader(statusAccepted)
		case <-ss.done:
			writeStatus(w, web.StatusGone, "Gone", "the stream has ended")
		case <-r.Context().Done():
		}
	case web.MethodDelete:
		ss.cancel()
		w.WriteHeader(statusNoContent)
	default:
		writeStatus(w, web.StatusMethodNotAllowed, "MethodNotAllowed", "GET, POST or DELETE a stream")
	}
}

// read streams the session's responses to its one reader; the stream ends
// with the reader.
func (ss *session) read(w web.ResponseWriter, r *web.Request) {
	first := false
	ss.once.Do(func() { first = true; close(ss.attached) })
	if !first {
		writeStatus(w, web.StatusConflict, "Conflict", "the stream is read already")
		return
	}
	defer ss.cancel()
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(web.StatusOK)
	_ = web.Flush(w)
	for {
		select {
		case line := <-ss.out:
			if _, err := w.Write(line); err != nil {
				return
			}
			_ = web.Flush(w)
		case <-ss.done:
			for {
				select {
				case line := <-ss.out:
					_, _ = w.Write(line)
				default:
					_ = web.Flush(w)
					return
				}
			}
		case <-r.Context().Done():
			return
		}
	}
}

func writeJSON(w web.ResponseWriter, code int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		writeStatus(w, web.StatusInternalServerError, "InternalError", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// writeError answers err as a Status: a malformed request is a 400.
func writeError(w web.ResponseWriter, err error) {
	if e := AsError(err); e.Code == InvalidArgument {
		writeStatus(w, web.StatusBadRequest, "BadRequest", e.Message)
		return
	}
	writeStatus(w, web.StatusServiceUnavailable, "ServiceUnavailable", err.Error())
}

// writeStatus answers with a Status, as the API does.
func writeStatus(w web.ResponseWriter, code int, reason, message string) {
	writeJSON(w, code, map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": message, "reason": reason, "code": code})
}

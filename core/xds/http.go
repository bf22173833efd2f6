package xds

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
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
//	    opens a stream (aggregated without type): 201 {"id": ID, "token":
//	    TOKEN}, 403 past the stream budget (Limits.Streams). Both are
//	    random (128 bits and more); every request below must carry the
//	    token in the X-Kubeplay-Stream-Token header (403 without it), which
//	    only the client that opened the stream knows and which a page of
//	    another origin cannot send without the server's CORS consent: so no
//	    one else can read (and so take) its responses, post to it or end it.
//	GET /xds/v3/streams/ID
//	    the stream's responses as they come, one JSON object per line
//	    (application/x-ndjson), like a watch; a last line {"error": {code,
//	    message}} when the server ends it. ?maxResponses=N ends the answer
//	    after N lines. One reader at a time, a new one taking over; a reader
//	    that goes away (or whose timeoutSeconds or maxResponses passes)
//	    leaves the stream open for the next (responses wait for it), and a
//	    stream nobody reads for a minute ends.
//	POST /xds/v3/streams/ID
//	    one request (DiscoveryRequest or DeltaDiscoveryRequest JSON): 202
//	    once the stream has handled it, 400 when it ended the stream, 403
//	    when it refused it over a limit (Limits.Names: the stream goes on
//	    as it was).
//	DELETE /xds/v3/streams/ID
//	    ends the stream.
//	GET /xds/v3/status[?node=ID]
//	    every stream's state (Status), or the streams of one node: its
//	    subscriptions, nonces, ACKs and NACKs.
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

// sessionIdle is how long an HTTP stream may wait for its reader before it
// is closed.
const (
	statusAccepted  = 202
	statusNoContent = 204

	sessionIdle    = time.Minute
	maxRequestBody = 1 << 20
)

// StreamTokenHeader carries an HTTP stream's token.
const StreamTokenHeader = "X-Kubeplay-Stream-Token"

// IsHTTPPath says whether the HTTP handler serves path (for hosts that route
// by path).
func IsHTTPPath(path string) bool {
	return strings.HasPrefix(path, "/v3/discovery:") || strings.HasPrefix(path, "/xds/v3/")
}

// IsStreamPath says whether path is an HTTP stream's, whose GET changes
// state: it takes the responses it reads from the stream (for hosts that
// refuse state changes from other origins' pages).
func IsStreamPath(path string) bool {
	return strings.HasPrefix(path, streamsPath+"/")
}

// streamsPath is where HTTP streams are opened.
const streamsPath = "/xds/v3/streams"

// ServeHTTP serves the HTTP transports.
func (s *Server) ServeHTTP(w web.ResponseWriter, r *web.Request) {
	path := r.URL.Path
	switch {
	case strings.HasPrefix(path, "/v3/discovery:"):
		s.serveREST(w, r, strings.TrimPrefix(path, "/v3/discovery:"))
	case path == "/xds/v3/status" && r.Method == web.MethodGet:
		out := s.Status()
		if node := r.URL.Query().Get("node"); node != "" {
			mine := out[:0]
			for _, st := range out {
				if st.Node != nil && st.Node.ID == node {
					mine = append(mine, st)
				}
			}
			out = mine
		}
		writeJSON(w, web.StatusOK, out)
	case path == streamsPath && r.Method == web.MethodPost:
		s.openSession(w, r)
	case IsStreamPath(path):
		s.serveSession(w, r, strings.TrimPrefix(path, streamsPath+"/"))
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
	resp, err := s.Fetch(r.Context(), req)
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

// posted is a request posted to a session, and where to say it was handled.
type posted struct {
	body []byte
	done chan error
}

// session is a stream served over HTTP: requests posted one by one, responses
// read as one streamed answer.
type session struct {
	id       string
	token    string // what every request to the stream must carry
	delta    bool
	requests chan posted
	out      chan []byte // JSON lines
	cancel   context.CancelFunc
	done     chan struct{} // closed when the stream has ended

	reader  sync.Mutex // held by the reader
	mu      sync.Mutex
	kick    chan struct{} // closed to tell the reader a newer one takes over
	reading bool          // a reader is attached
	idle    time.Time     // since when none is
}

type sessions struct {
	mu   sync.Mutex
	byID map[string]*session
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
	s.mu.Lock()
	parent := s.ctx
	s.mu.Unlock()
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancel(parent)
	st, err := s.open(ctx, protocol == "delta", typeURL)
	if err != nil {
		cancel()
		writeError(w, err)
		return
	}
	ss := &session{id: rand.Text(), token: rand.Text(), delta: st.delta, requests: make(chan posted, 16),
		out: make(chan []byte, 64), cancel: cancel, done: make(chan struct{}), idle: s.cfg.Clock.Now()}
	s.sessions.mu.Lock()
	if s.sessions.byID == nil {
		s.sessions.byID = map[string]*session{}
	}
	s.sessions.byID[ss.id] = ss
	s.sessions.mu.Unlock()
	go s.runSession(ctx, ss, st)
	writeJSON(w, web.StatusCreated, map[string]string{"id": ss.id, "token": ss.token})
}

// runSession serves the session's stream until it ends, then forgets it.
func (s *Server) runSession(ctx context.Context, ss *session, st *stream) {
	defer func() {
		ss.cancel()
		close(ss.done)
		s.sessions.mu.Lock()
		delete(s.sessions.byID, ss.id)
		s.sessions.mu.Unlock()
	}()
	go func() { // a session nobody reads is closed
		t := s.cfg.Clock.NewTicker(sessionIdle / 4)
		defer t.Stop()
		for {
			select {
			case now := <-t.C():
				ss.mu.Lock()
				idle := !ss.reading && now.Sub(ss.idle) >= sessionIdle
				ss.mu.Unlock()
				if idle {
					ss.cancel()
				}
			case <-ctx.Done():
				return
			}
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
	next := func() (posted, error) {
		select {
		case p := <-ss.requests:
			return p, nil
		case <-ctx.Done():
			return posted{}, io.EOF
		}
	}
	var err error
	if ss.delta {
		err = s.serveDelta(st, sessionRecv(next, DecodeDeltaRequestJSON, func(r *DeltaRequest) *chan<- error { return &r.done }),
			func(r *DeltaResponse) error { return emit(r.JSON()) })
	} else {
		err = s.serveSotW(st, sessionRecv(next, DecodeRequestJSON, func(r *Request) *chan<- error { return &r.done }),
			func(r *Response) error { return emit(r.JSON()) })
	}
	if err != nil {
		e := AsError(err)
		_ = emit(map[string]any{"error": map[string]any{"code": int(e.Code), "message": e.Message}})
	}
}

// sessionRecv is a session stream's recv: the next posted request, decoded,
// with where to say it was handled (done gives the request's field for it).
func sessionRecv[R any](next func() (posted, error), decode func([]byte) (R, error), done func(R) *chan<- error) func() (R, error) {
	return func() (R, error) {
		p, err := next()
		if err != nil {
			var zero R
			return zero, err
		}
		r, err := decode(p.body)
		if err != nil {
			return r, handled(p.done, err)
		}
		*done(r) = p.done
		return r, nil
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
	if subtle.ConstantTimeCompare([]byte(r.Header.Get(StreamTokenHeader)), []byte(ss.token)) != 1 {
		writeStatus(w, web.StatusForbidden, "Forbidden", fmt.Sprintf(
			"forbidden: the xDS stream's token is missing or wrong: send the token its opening answered in the %s header", StreamTokenHeader))
		return
	}
	switch r.Method {
	case web.MethodGet:
		ss.read(w, r, s.cfg.Clock.Now)
	case web.MethodPost:
		body, err := readBody(r)
		if err != nil {
			writeError(w, err)
			return
		}
		p := posted{body: body, done: make(chan error, 1)}
		select {
		case ss.requests <- p:
		case <-ss.done:
			writeStatus(w, web.StatusGone, "Gone", "the stream has ended")
			return
		case <-r.Context().Done():
			return
		}
		select {
		case err := <-p.done:
			if err != nil {
				writeError(w, err)
				return
			}
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

// read streams the session's responses to its reader: one at a time, a new
// one taking over from the last (whose client may not have hung up yet).
func (ss *session) read(w web.ResponseWriter, r *web.Request, now func() time.Time) {
	kick := make(chan struct{})
	ss.mu.Lock()
	if ss.kick != nil {
		close(ss.kick)
	}
	ss.kick = kick
	ss.mu.Unlock()
	ss.reader.Lock()
	defer ss.reader.Unlock()
	ss.mu.Lock()
	ss.reading = true
	ss.mu.Unlock()
	defer func() {
		ss.mu.Lock()
		if ss.kick == kick {
			ss.kick, ss.reading, ss.idle = nil, false, now()
		}
		ss.mu.Unlock()
	}()
	limit, _ := strconv.Atoi(r.URL.Query().Get("maxResponses"))
	var timeout <-chan time.Time
	if secs, err := strconv.Atoi(r.URL.Query().Get("timeoutSeconds")); err == nil && secs > 0 {
		t := time.NewTimer(time.Duration(secs) * time.Second)
		defer t.Stop()
		timeout = t.C
	}
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
			if limit--; limit == 0 {
				return
			}
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
		case <-timeout:
			return
		case <-kick:
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

// writeError answers err as a Status: a malformed request is a 400, one
// past a limit a 403 as kube refuses what exceeds a quota.
func writeError(w web.ResponseWriter, err error) {
	switch e := AsError(err); e.Code {
	case InvalidArgument:
		writeStatus(w, web.StatusBadRequest, "BadRequest", e.Message)
	case ResourceExhausted:
		writeStatus(w, web.StatusForbidden, "Forbidden", "forbidden: "+e.Message)
	default:
		writeStatus(w, web.StatusServiceUnavailable, "ServiceUnavailable", err.Error())
	}
}

// writeStatus answers with a Status, as the API does.
func writeStatus(w web.ResponseWriter, code int, reason, message string) {
	writeJSON(w, code, map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": message, "reason": reason, "code": code})
}

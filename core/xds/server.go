// Package xds owns kubeplay's xDS discovery service: Envoy's discovery
// protocol (envoy.service.discovery.v3) served from the API objects of the
// xds.kubeplay.dev group (api.XDS), which it lists and watches as a client
// of the API (core/client informers, through the handler), the way control
// planes watch Kubernetes. It speaks state of the world and delta, per type
// or aggregated (ADS), with versions, nonces, ACK and NACK, wildcard
// subscriptions, reconnection with initial_resource_versions, variants
// chosen by dynamic parameters, TTLs with heartbeats, aliases and metadata.
//
// The protocol is independent of transport (as go-control-plane's stream
// interfaces are): a stream is a recv and a send function. Transports are
// gRPC (core/xds/xdsgrpc, natively), and HTTP (http.go): REST polling and a
// session stream the browser's page drives over fetch. What each stream
// asked, got, acknowledged and refused is kept for the playground (Status).
package xds

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/budget"
	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/object"
	"kubeplay/core/user"
	"kubeplay/core/web"
	"kubeplay/core/xds/envoypb"
)

// Config configures a Server.
type Config struct {
	// Client is the API the objects are read from.
	Client *client.Client
	// Clock drives heartbeats; nil is the wall clock.
	Clock clock.Clock
	// ControlPlane identifies the server in responses (control_plane); default
	// "kubeplay".
	ControlPlane string
	// Logf, when set, gets a line for each object that cannot be served.
	Logf func(format string, args ...any)
	// Limits bound what clients may hold; a field not set is DefaultLimits'.
	Limits Limits
}

// Server is the discovery service.
type Server struct {
	cfg   Config
	cache *cache

	mu      sync.Mutex
	streams map[*stream]struct{}
	nextID  int64
	synced  []*client.Informer

	sessions sessions        // the HTTP streams
	ctx      context.Context // Run's: the HTTP streams end with it
}

// New returns a server; Run feeds it.
func New(cfg Config) *Server {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real
	}
	if cfg.ControlPlane == "" {
		cfg.ControlPlane = "kubeplay"
	}
	cfg.Limits = cfg.Limits.orDefault()
	return &Server{cfg: cfg, cache: newCache(), streams: map[*stream]struct{}{}}
}

// Identity is the discovery service's user toward the API: a service account
// of kube-system, as control planes run in a cluster.
var Identity = user.ServiceAccount("kube-system", "xds-server")

// Start runs a discovery service over api (the core's handler, or a host's
// way to it) as Identity, until stop is called.
func Start(api web.Handler, cfg Config) (s *Server, stop func()) {
	cfg.Client = client.New(api, Identity, "kubeplay-xds")
	s = New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Run(ctx)
	}()
	return s, func() {
		cancel()
		<-done
	}
}

// Run lists and watches every kind of the xDS group until ctx is done.
func (s *Server) Run(ctx context.Context) {
	var wg sync.WaitGroup
	s.mu.Lock()
	s.ctx = ctx
	for _, k := range api.XDSKinds {
		k := k
		key := func(obj object.Object) string { return k.Kind + "/" + object.MetaString(obj, "name") }
		put := func(obj object.Object) {
			r, errs := NewResource(k, obj)
			if len(errs) > 0 && s.cfg.Logf != nil {
				s.cfg.Logf("xds: %s %s is not served: %v", k.Kind, object.MetaString(obj, "name"), errs)
			}
			s.cache.set(key(obj), r, object.MetaString(obj, "resourceVersion"), r != nil)
		}
		inf := client.NewInformer(s.cfg.Client, "/apis/"+api.XDSGroup+"/v1/"+k.Plural, client.Handler{
			Add:    put,
			Update: func(_, obj object.Object) { put(obj) },
			Delete: func(obj object.Object) { s.cache.set(key(obj), nil, object.MetaString(obj, "resourceVersion"), true) },
		}, nil, s.cfg.Clock)
		s.synced = append(s.synced, inf)
		wg.Add(1)
		go func() {
			defer wg.Done()
			inf.Run(ctx)
		}()
	}
	s.mu.Unlock()
	wg.Wait()
}

// WaitSynced waits until every kind has been listed once, or ctx is done.
func (s *Server) WaitSynced(ctx context.Context) error {
	for {
		s.mu.Lock()
		infs := s.synced
		s.mu.Unlock()
		if len(infs) == len(api.XDSKinds) {
			for _, inf := range infs {
				select {
				case <-inf.Synced():
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return nil
		}
		select {
		case <-time.After(time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Resource is what the server serves of an API object of kind, or nil when
// it serves nothing of it (not seen yet, deleted, or not valid).
func (s *Server) Resource(kind, name string) *Resource { return s.cache.object(kind + "/" + name) }

// catchUp waits, a second at most, until the cache holds the objects of the
// type's kind as the API has them now, so that a new subscription or a poll
// sees the writes made before it (the informers follow the API a moment
// behind, as every control plane's do).
func (s *Server) catchUp(ctx context.Context, typeURL string) {
	if s.cfg.Client == nil {
		return
	}
	k := api.XDSKinds[len(api.XDSKinds)-1] // TypedResource, for any other type
	for _, kind := range api.XDSKinds {
		if kind.TypeURL == typeURL {
			k = kind
		}
	}
	list, err := s.cfg.Client.Get(ctx, "/apis/"+api.XDSGroup+"/v1/"+k.Plural)
	if err != nil {
		return
	}
	items, _ := list["items"].([]any)
	want := make(map[string]string, len(items))
	for _, it := range items {
		obj, _ := it.(map[string]any)
		want[k.Kind+"/"+object.MetaString(obj, "name")] = object.MetaString(obj, "resourceVersion")
	}
	deadline := time.Now().Add(time.Second)
	for !s.cache.matches(k.Kind+"/", want) && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
}

// Code is a gRPC status code, as the transports answer a stream's error.
type Code int

// The codes the server answers with.
const (
	InvalidArgument   Code = 3
	ResourceExhausted Code = 8
	Unavailable       Code = 14
)

// Error ends a stream: the request was malformed or asked for what is not
// served.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string { return e.Message }

func invalid(format string, args ...any) error {
	return &Error{Code: InvalidArgument, Message: fmt.Sprintf(format, args...)}
}

// AsError is err as the *Error a transport answers with: malformed input is
// InvalidArgument; anything else that ends a stream, Unavailable.
func AsError(err error) *Error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, errMalformed):
		return &Error{Code: InvalidArgument, Message: err.Error()}
	}
	return &Error{Code: Unavailable, Message: err.Error()}
}

// wildcardTypes are the types whose first request without names subscribes
// to every resource (LDS and CDS, as Envoy's protocol has it).
var wildcardTypes = map[string]bool{
	"type.googleapis.com/envoy.config.listener.v3.Listener": true,
	"type.googleapis.com/envoy.config.cluster.v3.Cluster":   true,
}

// stream is one open stream's state, shared by the state-of-the-world and
// delta protocols: which types it follows and what it has been sent.
type stream struct {
	ctx      context.Context
	id       int64
	delta    bool
	typeURL  string // "" for ADS
	started  time.Time
	sub      *subscriber
	nonces   nonces
	mu       sync.Mutex // guards what Status reads
	node     *Node
	types    map[string]*typeState
	requests int64
}

// typeState is what one stream knows of one type: the subscription, the last
// response, what the client acknowledged or refused.
type typeState struct {
	wildcard bool
	names    map[string]map[string]string // subscribed name → its locator's dynamic parameters
	// known is what the client holds: name → the resource last sent under it
	// (delta); for the state of the world, the content of the last response.
	known map[string]*Resource
	// initial are the versions a reconnecting delta client says it has.
	initial map[string]string
	// force are names to answer even if unchanged (newly subscribed, delta).
	force map[string]bool
	// dirty: something changed since the last response.
	dirty map[string]bool

	nonce    string // of the last response; "" before the first
	version  string // of the last response (state of the world)
	awaiting bool   // the last response is not yet ACKed or NACKed
	acked    string // the last version the client ACKed
	nack     *NACK
	sent     int
	lastSent time.Time
}

// open opens a stream, within the stream budget.
func (s *Server) open(ctx context.Context, delta bool, typeURL string) (*stream, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, limit := len(s.streams), s.cfg.Limits.Streams; n >= limit {
		return nil, exceeded(budget.ResourceXDSStreams, 1, n, limit)
	}
	s.nextID++
	st := &stream{ctx: ctx, id: s.nextID, delta: delta, typeURL: typeURL, started: s.cfg.Clock.Now(), sub: s.cache.subscribe(), types: map[string]*typeState{}}
	s.streams[st] = struct{}{}
	return st, nil
}

func (s *Server) close(st *stream) {
	s.cache.unsubscribe(st.sub)
	s.mu.Lock()
	delete(s.streams, st)
	s.mu.Unlock()
}

// typeOf checks a request's type URL against the stream's and returns the
// type's state, nil before the type's first request (newType creates it).
func (st *stream) typeOf(typeURL string) (string, *typeState, error) {
	switch {
	case typeURL == "" && st.typeURL == "":
		return "", nil, invalid("type_url is required on an aggregated stream")
	case typeURL == "":
		typeURL = st.typeURL
	case st.typeURL != "" && typeURL != st.typeURL:
		return "", nil, invalid("type_url %q on a stream of %q", typeURL, st.typeURL)
	}
	if !served(typeURL) {
		return "", nil, invalid("unknown type_url %q: not an Envoy type kubeplay serves", typeURL)
	}
	return typeURL, st.types[typeURL], nil
}

// newType is the state of a type the stream follows from now on.
func (st *stream) newType(typeURL string) *typeState {
	ts := &typeState{names: map[string]map[string]string{}, known: map[string]*Resource{}, force: map[string]bool{}, dirty: map[string]bool{}}
	st.types[typeURL] = ts
	return ts
}

// params are the dynamic parameters a subscription of typeURL is matched
// with: the node's for the type, overridden by the locator's.
func (st *stream) params(typeURL string, locator map[string]string) map[string]string {
	var node map[string]string
	if st.node != nil {
		node = st.node.DynamicParameters[typeURL]
	}
	if len(locator) == 0 {
		return node
	}
	if len(node) == 0 {
		return locator
	}
	out := make(map[string]string, len(node)+len(locator))
	for k, v := range node {
		out[k] = v
	}
	for k, v := range locator {
		out[k] = v
	}
	return out
}

// run is a stream's loop: requests, changes and heartbeats, one at a time,
// until recv fails or ctx is done.
func run[Req any](ctx context.Context, s *Server, st *stream, recv func() (Req, error), h handlers[Req]) error {
	defer s.close(st)
	type received struct {
		req Req
		err error
	}
	reqs := make(chan received)
	go func() {
		for {
			req, err := recv()
			select {
			case reqs <- received{req, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	for {
		var tick <-chan time.Time
		var timer clock.Timer
		st.mu.Lock()
		due := st.heartbeatDue(s.cfg.Clock.Now())
		st.mu.Unlock()
		if due > 0 {
			timer = s.cfg.Clock.NewTimer(due)
			tick = timer.C()
		}
		var err error
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case r := <-reqs:
			err = r.err
			if err == nil {
				st.mu.Lock()
				st.requests++
				err = h.request(r.req)
				st.mu.Unlock()
			}
		case <-st.sub.signal:
			st.mu.Lock()
			err = h.change(st.sub.take())
			st.mu.Unlock()
		case <-tick:
			st.mu.Lock()
			err = h.heartbeat()
			st.mu.Unlock()
		}
		if timer != nil {
			timer.Stop()
		}
		if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// handlers are what a protocol does on a stream's events; they run with the
// stream's lock held.
type handlers[Req any] struct {
	request   func(Req) error
	change    func(changed map[string]map[string]bool) error
	heartbeat func() error
}

// heartbeatDue is how long until the earliest TTL resource the stream holds
// needs a heartbeat (half its TTL after it was last sent); 0 for none.
func (st *stream) heartbeatDue(now time.Time) time.Duration {
	var due time.Duration
	for _, ts := range st.types {
		if ts.awaiting {
			continue
		}
		for _, r := range ts.known {
			if r == nil || r.TTL <= 0 {
				continue
			}
			d := ts.lastSent.Add(r.TTL / 2).Sub(now)
			if d <= 0 {
				d = time.Nanosecond
			}
			if due == 0 || d < due {
				due = d
			}
		}
	}
	return due
}

// ttlResources are the resources with a TTL the type's last response left
// the client holding, by name.
func (ts *typeState) ttlResources() []*Resource {
	var out []*Resource
	for _, r := range ts.known {
		if r != nil && r.TTL > 0 {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// served says whether a type URL names an Envoy type the server knows.
func served(typeURL string) bool {
	for _, k := range api.XDSKinds {
		if k.TypeURL == typeURL {
			return true
		}
	}
	return strings.HasPrefix(typeURL, envoypb.TypePrefix) && resourceType(envoypb.ForTypeURL(typeURL))
}

// resourceType says whether m is a type of the xDS APIs (Envoy's, or xDS's
// own), not one of the building blocks they share (google.protobuf's).
func resourceType(m *envoypb.Message) bool {
	return m != nil && (strings.HasPrefix(m.Name, "envoy.") || strings.HasPrefix(m.Name, "xds.") || strings.HasPrefix(m.Name, "udpa."))
}

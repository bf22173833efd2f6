package xds

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"testing"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/clock"
	"kubeplay/core/object"
)

// The cache and the discovery protocol, state of the world and delta, driven
// without a transport: a stream is a recv and a send function, and the
// cache is fed as the informers feed it. The gRPC and HTTP transports, and
// real clients (grpc-go, go-control-plane's), are tested in xdsgrpc and the
// HTTP tests.

const (
	cdsURL = "type.googleapis.com/envoy.config.cluster.v3.Cluster"
	edsURL = "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment"
)

// kinds of the xDS group, by Kind.
func kindOf(t *testing.T, kind string) api.XDSKind {
	t.Helper()
	for _, k := range api.XDSKinds {
		if k.Kind == kind {
			return k
		}
	}
	t.Fatalf("no xDS kind %s", kind)
	return api.XDSKind{}
}

// fixture is a Server on a fake clock whose cache the test feeds.
type fixture struct {
	t   *testing.T
	s   *Server
	clk *clock.Fake
	rv  int
}

func newFixture(t *testing.T) *fixture {
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	return &fixture{t: t, s: New(Config{Clock: clk}), clk: clk}
}

// put stores an object of kind (its spec, and extra top-level fields) at
// the next resourceVersion, as an informer would, and returns its resource.
func (f *fixture) put(kind, name string, spec map[string]any, extra map[string]any) *Resource {
	f.t.Helper()
	f.rv++
	obj := object.Object{"apiVersion": api.XDSGroup + "/v1", "kind": kind,
		"metadata": map[string]any{"name": name, "resourceVersion": strconv.Itoa(f.rv), "uid": "u-" + name, "generation": 1}, "spec": spec}
	for k, v := range extra {
		obj[k] = v
	}
	r, errs := NewResource(kindOf(f.t, kind), obj)
	if len(errs) > 0 {
		f.t.Fatalf("%s %s: %v", kind, name, errs)
	}
	f.s.cache.set(kind+"/"+name, r, r.Version, true)
	return r
}

func (f *fixture) cluster(name, timeout string) *Resource {
	f.t.Helper()
	return f.put("Cluster", name, map[string]any{"connectTimeout": timeout, "type": "STATIC"}, nil)
}

func (f *fixture) endpoints(name string, port int, extra map[string]any) *Resource {
	f.t.Helper()
	return f.put("ClusterLoadAssignment", name, map[string]any{"clusterName": name, "endpoints": []any{map[string]any{"lbEndpoints": []any{
		map[string]any{"endpoint": map[string]any{"address": map[string]any{"socketAddress": map[string]any{"address": "10.0.0.1", "portValue": port}}}}}}}}, extra)
}

func (f *fixture) remove(kind, name string) {
	f.rv++
	f.s.cache.set(kind+"/"+name, nil, strconv.Itoa(f.rv), true)
}

// conn is one stream: requests the test sends, responses it receives, and
// the stream's end.
type conn[Req, Resp any] struct {
	t     *testing.T
	reqs  chan Req
	resps chan Resp
	ended chan error
	// handled asks for a request's handling to be told on ch.
	handled func(r Req, ch chan<- error)
}

func open[Req, Resp any](f *fixture, handled func(Req, chan<- error), serve func(ctx context.Context, recv func() (Req, error), send func(Resp) error) error) *conn[Req, Resp] {
	c := &conn[Req, Resp]{t: f.t, reqs: make(chan Req), resps: make(chan Resp, 16), ended: make(chan error, 1), handled: handled}
	ctx, cancel := context.WithCancel(context.Background())
	recv := func() (Req, error) {
		select {
		case r, ok := <-c.reqs:
			if !ok {
				return r, io.EOF
			}
			return r, nil
		case <-ctx.Done():
			var zero Req
			return zero, ctx.Err()
		}
	}
	send := func(r Resp) error {
		c.resps <- r
		return nil
	}
	go func() { c.ended <- serve(ctx, recv, send) }()
	f.t.Cleanup(func() {
		cancel()
		<-c.ended
	})
	return c
}

func (f *fixture) sotw(typeURL string) *conn[*Request, *Response] {
	return open(f, func(r *Request, ch chan<- error) { r.done = ch }, func(ctx context.Context, recv func() (*Request, error), send func(*Response) error) error {
		return f.s.StreamSotW(ctx, typeURL, recv, send)
	})
}

func (f *fixture) delta(typeURL string) *conn[*DeltaRequest, *DeltaResponse] {
	return open(f, func(r *DeltaRequest, ch chan<- error) { r.done = ch }, func(ctx context.Context, recv func() (*DeltaRequest, error), send func(*DeltaResponse) error) error {
		return f.s.StreamDelta(ctx, typeURL, recv, send)
	})
}

// ask sends a request and waits until the stream has handled it.
func (c *conn[Req, Resp]) ask(r Req) {
	c.t.Helper()
	ch := make(chan error, 1)
	c.handled(r, ch)
	var err error
	select {
	case c.reqs <- r:
		select {
		case err = <-ch:
		case err = <-c.ended:
			c.ended <- err
		}
	case err = <-c.ended:
		c.ended <- err
	}
	if err != nil {
		c.t.Fatalf("request %+v: %v", r, err)
	}
}

// next is the next response, which must come.
func (c *conn[Req, Resp]) next() Resp {
	c.t.Helper()
	select {
	case r := <-c.resps:
		return r
	case <-time.After(10 * time.Second):
		c.t.Fatal("no response")
	}
	var zero Resp
	return zero
}

// none checks that no response has been sent (the requests were handled
// before: what they would send is sent by then; a push has 20 ms to come).
func (c *conn[Req, Resp]) none() {
	c.t.Helper()
	select {
	case r := <-c.resps:
		c.t.Fatalf("unexpected response %+v", r)
	case <-time.After(20 * time.Millisecond):
	}
}

// names are the resources' names and versions: "a@3".
func names(rs []*Resource) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name+"@"+r.Version)
	}
	return out
}

// TestXDS_1_SotWVersionsAndAcks: a wildcard CDS subscription (no names)
// gets every cluster, with the type's version (its last change) and a nonce;
// an ACK sends nothing; a change is pushed with a new version and nonce; a
// NACK keeps the stream's state and the refused version is not sent again;
// a request naming an older nonce is stale and ignored.
func TestXDS_1_SotWVersionsAndAcks(t *testing.T) {
	f := newFixture(t)
	f.cluster("a", "1s")
	f.cluster("b", "1s")
	c := f.sotw(cdsURL)
	c.ask(&Request{Node: &Node{ID: "envoy-1"}})
	r := c.next()
	if got := names(r.Resources); !slices.Equal(got, []string{"a@1", "b@2"}) || r.VersionInfo != "2" || r.Nonce != "1" || r.TypeURL != cdsURL || r.ControlPlane != "kubeplay" {
		t.Fatalf("first response %s v%s nonce %s", got, r.VersionInfo, r.Nonce)
	}
	c.ask(&Request{VersionInfo: "2", ResponseNonce: "1"})
	c.none()
	f.cluster("a", "2s")
	r = c.next()
	if got := names(r.Resources); !slices.Equal(got, []string{"a@3", "b@2"}) || r.VersionInfo != "3" || r.Nonce != "2" {
		t.Fatalf("push %s v%s nonce %s", got, r.VersionInfo, r.Nonce)
	}
	c.ask(&Request{VersionInfo: "2", ResponseNonce: "2", ErrorDetail: &ErrorDetail{Code: 3, Message: "bad timeout"}})
	c.none()
	st := f.s.Status()[0].Types[0]
	if st.NACK == nil || st.NACK.Version != "3" || st.NACK.Message != "bad timeout" || st.Acked != "2" {
		t.Errorf("status after the NACK: %+v", st)
	}
	c.ask(&Request{VersionInfo: "2", ResponseNonce: "1"}) // stale
	c.none()
	if st := f.s.Status()[0].Types[0]; st.NACK == nil || st.Acked != "2" {
		t.Errorf("a stale request was taken as an answer: %+v", st)
	}
	f.cluster("c", "1s")
	r = c.next()
	if got := names(r.Resources); !slices.Equal(got, []string{"a@3", "b@2", "c@4"}) || r.VersionInfo != "4" {
		t.Fatalf("push after the NACK: %s v%s", got, r.VersionInfo)
	}
	// Until it is answered, changes wait; then the latest is pushed.
	f.remove("Cluster", "b")
	c.none()
	c.ask(&Request{VersionInfo: "4", ResponseNonce: r.Nonce})
	if r = c.next(); !slices.Equal(names(r.Resources), []string{"a@3", "c@4"}) || r.VersionInfo != "5" {
		t.Fatalf("after the ACK: %s v%s", names(r.Resources), r.VersionInfo)
	}
}

// TestXDS_1_SotWNamedSubscriptions: a non-wildcard type (EDS) gets the names
// it asks for that exist; a new set of names is answered at once; "*" is the
// explicit wildcard; an alias reaches its resource; a reconnecting client
// that has the current version is sent nothing.
func TestXDS_1_SotWNamedSubscriptions(t *testing.T) {
	f := newFixture(t)
	f.endpoints("a", 80, nil)
	f.endpoints("b", 81, map[string]any{"aliases": []any{"b.alias"}})
	c := f.sotw(edsURL)
	c.ask(&Request{})
	if r := c.next(); len(r.Resources) != 0 {
		t.Fatalf("no names: %s, want none (EDS has no legacy wildcard)", names(r.Resources))
	}
	c.ask(&Request{ResponseNonce: "1", ResourceNames: []string{"a", "missing"}})
	if r := c.next(); !slices.Equal(names(r.Resources), []string{"a@1"}) {
		t.Fatalf("a and missing: %s", names(r.Resources))
	}
	c.ask(&Request{ResponseNonce: "2", ResourceNames: []string{"b.alias"}})
	if r := c.next(); !slices.Equal(names(r.Resources), []string{"b@2"}) {
		t.Fatalf("by alias: %s", names(r.Resources))
	}
	c.ask(&Request{ResponseNonce: "3", ResourceNames: []string{"*"}})
	if r := c.next(); !slices.Equal(names(r.Resources), []string{"a@1", "b@2"}) {
		t.Fatalf("wildcard: %s", names(r.Resources))
	}
	f.endpoints("a", 82, nil) // changed, but the last response is not answered: waits
	c.none()

	again := f.sotw(edsURL)
	again.ask(&Request{VersionInfo: "3", ResourceNames: []string{"a"}})
	again.none()
}

// TestXDS_3_ADS: one stream carries every type, each its own world (its own
// subscription and version); a request must name its type, and only a type
// served; a per-type stream takes only its own.
func TestXDS_3_ADS(t *testing.T) {
	f := newFixture(t)
	f.cluster("a", "1s")
	f.endpoints("a", 80, nil)
	c := f.sotw("")
	c.ask(&Request{TypeURL: cdsURL})
	if r := c.next(); r.TypeURL != cdsURL || !slices.Equal(names(r.Resources), []string{"a@1"}) || r.VersionInfo != "1" {
		t.Fatalf("CDS on ADS: %s %s v%s", r.TypeURL, names(r.Resources), r.VersionInfo)
	}
	c.ask(&Request{TypeURL: edsURL, ResourceNames: []string{"a"}})
	if r := c.next(); r.TypeURL != edsURL || !slices.Equal(names(r.Resources), []string{"a@2"}) || r.VersionInfo != "2" {
		t.Fatalf("EDS on ADS: %s %s v%s", r.TypeURL, names(r.Resources), r.VersionInfo)
	}
	for _, tc := range []struct {
		stream, req, want string
	}{
		{"", "", "type_url is required on an aggregated stream"},
		{"", "type.googleapis.com/google.protobuf.Duration", `unknown type_url "type.googleapis.com/google.protobuf.Duration": not an Envoy type kubeplay serves`},
		{cdsURL, edsURL, fmt.Sprintf("type_url %q on a stream of %q", edsURL, cdsURL)},
	} {
		bad := f.sotw(tc.stream)
		bad.reqs <- &Request{TypeURL: tc.req}
		if err := AsError(<-bad.ended); err.Code != InvalidArgument || err.Message != tc.want {
			t.Errorf("stream %q, request %q: %v, want InvalidArgument %q", tc.stream, tc.req, err, tc.want)
		}
		bad.ended <- nil
	}
}

// removedNames are a delta response's removed names.
func removedNames(rs []Removed) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

// TestXDS_2_DeltaSubscriptions: subscribed names are answered with their
// resources, each with its version, a name without one with its removal;
// afterwards only what changed is sent (a deletion as a removal); an
// unsubscribed name is no longer followed; every response has a nonce, and
// nothing is pushed until the last is answered.
func TestXDS_2_DeltaSubscriptions(t *testing.T) {
	f := newFixture(t)
	f.endpoints("a", 80, nil)
	f.endpoints("b", 81, nil)
	c := f.delta(edsURL)
	c.ask(&DeltaRequest{Subscribe: []string{"a", "b", "missing"}})
	r := c.next()
	if !slices.Equal(names(r.Resources), []string{"a@1", "b@2"}) || !slices.Equal(removedNames(r.Removed), []string{"missing"}) || r.Nonce != "1" || r.SystemVersionInfo != "2" {
		t.Fatalf("first: %s removed %v nonce %s", names(r.Resources), removedNames(r.Removed), r.Nonce)
	}
	f.endpoints("a", 82, nil)
	c.none() // not answered yet
	c.ask(&DeltaRequest{ResponseNonce: "1"})
	if r = c.next(); !slices.Equal(names(r.Resources), []string{"a@3"}) || len(r.Removed) != 0 {
		t.Fatalf("after the ACK: %s removed %v", names(r.Resources), removedNames(r.Removed))
	}
	c.ask(&DeltaRequest{ResponseNonce: r.Nonce, Unsubscribe: []string{"a"}})
	c.none()
	f.endpoints("a", 83, nil)
	c.none()
	f.remove("ClusterLoadAssignment", "b")
	if r = c.next(); len(r.Resources) != 0 || !slices.Equal(removedNames(r.Removed), []string{"b"}) {
		t.Fatalf("b deleted: %s removed %v", names(r.Resources), removedNames(r.Removed))
	}
	c.ask(&DeltaRequest{ResponseNonce: r.Nonce, Subscribe: []string{"a"}})
	if r = c.next(); !slices.Equal(names(r.Resources), []string{"a@4"}) {
		t.Fatalf("a subscribed again: %s", names(r.Resources))
	}
}

// TestXDS_2_DeltaReconnectAndWildcard: a reconnecting client's
// initial_resource_versions spare it what it has at those versions; what
// changed is sent, and what is gone removed; CDS's first request without
// names is a wildcard, which follows new names too.
func TestXDS_2_DeltaReconnectAndWildcard(t *testing.T) {
	f := newFixture(t)
	f.cluster("same", "1s")
	f.cluster("changed", "1s")
	f.cluster("changed", "2s")
	c := f.delta(cdsURL)
	c.ask(&DeltaRequest{InitialResourceVersions: map[string]string{"same": "1", "changed": "2", "gone": "1"}})
	r := c.next()
	if !slices.Equal(names(r.Resources), []string{"changed@3"}) || !slices.Equal(removedNames(r.Removed), []string{"gone"}) {
		t.Fatalf("reconnected: %s removed %v", names(r.Resources), removedNames(r.Removed))
	}
	c.ask(&DeltaRequest{ResponseNonce: r.Nonce})
	f.cluster("new", "1s")
	if r = c.next(); !slices.Equal(names(r.Resources), []string{"new@4"}) {
		t.Fatalf("wildcard, a new cluster: %s", names(r.Resources))
	}
	// Names subscribed on reconnection that the client has at their
	// versions are not sent again.
	f.endpoints("e", 80, nil)
	eds := f.delta(edsURL)
	eds.ask(&DeltaRequest{Subscribe: []string{"e"}, InitialResourceVersions: map[string]string{"e": "5"}})
	eds.none()
}

// TestXDS_5_TTLHeartbeats: a resource with a TTL is refreshed, half its TTL
// after it was sent, by a heartbeat response carrying it without its body,
// once the last response is answered.
func TestXDS_5_TTLHeartbeats(t *testing.T) {
	f := newFixture(t)
	f.endpoints("a", 80, map[string]any{"ttl": "10s"})
	c := f.sotw(edsURL)
	c.ask(&Request{ResourceNames: []string{"a"}})
	r := c.next()
	if len(r.Resources) != 1 || r.Resources[0].TTL != 10*time.Second || r.Heartbeat {
		t.Fatalf("first: %+v", r)
	}
	c.ask(&Request{ResponseNonce: r.Nonce, ResourceNames: []string{"a"}, VersionInfo: r.VersionInfo})
	for deadline := time.Now().Add(10 * time.Second); f.clk.Waiters() == 0; time.Sleep(100 * time.Microsecond) {
		if time.Now().After(deadline) {
			t.Fatal("no heartbeat timer")
		}
	}
	f.clk.Step(4 * time.Second)
	c.none()
	f.clk.Step(time.Second)
	r = c.next()
	if !r.Heartbeat || !slices.Equal(names(r.Resources), []string{"a@1"}) || r.VersionInfo != "1" {
		t.Fatalf("heartbeat: %+v", r)
	}
	if b := r.Resources[0].sotwAny(true); len(b) == 0 || string(r.Resources[0].heartbeat) == string(r.Resources[0].delta) {
		t.Error("the heartbeat carries the resource's body")
	}
}

// TestXDS_4_DynamicParameters: of a name's variants, a client gets the one
// whose constraints its dynamic parameters (the node's, or the locator's)
// match, else the one without constraints.
func TestXDS_4_DynamicParameters(t *testing.T) {
	f := newFixture(t)
	variant := func(object, env string, port int) {
		extra := map[string]any{}
		if env != "" {
			extra["dynamicParameterConstraints"] = map[string]any{"constraint": map[string]any{"key": "env", "value": env}}
		}
		f.put("ClusterLoadAssignment", object, map[string]any{"clusterName": "svc", "endpoints": []any{map[string]any{"lbEndpoints": []any{
			map[string]any{"endpoint": map[string]any{"address": map[string]any{"socketAddress": map[string]any{"address": "10.0.0.1", "portValue": port}}}}}}}}, extra)
	}
	variant("svc-default", "", 80)
	variant("svc-prod", "prod", 81)
	port := func(r *Resource) any {
		return object.Path(r.JSON(), "endpoints").([]any)[0].(map[string]any)["lbEndpoints"].([]any)[0].(map[string]any)["endpoint"].(map[string]any)["address"].(map[string]any)["socketAddress"].(map[string]any)["portValue"]
	}
	for _, tc := range []struct {
		node    map[string]string
		locator map[string]string
		want    string
	}{
		{nil, nil, "80"},
		{map[string]string{"env": "prod"}, nil, "81"},
		{map[string]string{"env": "dev"}, nil, "80"},
		{map[string]string{"env": "dev"}, map[string]string{"env": "prod"}, "81"},
	} {
		c := f.sotw(edsURL)
		req := &Request{Node: &Node{ID: "n", DynamicParameters: map[string]map[string]string{edsURL: tc.node}}}
		if tc.locator != nil {
			req.Locators = []Locator{{Name: "svc", Params: tc.locator}}
		} else {
			req.ResourceNames = []string{"svc"}
		}
		c.ask(req)
		r := c.next()
		if len(r.Resources) != 1 || fmt.Sprint(port(r.Resources[0])) != tc.want {
			t.Errorf("node %v, locator %v: %v, want port %s", tc.node, tc.locator, names(r.Resources), tc.want)
		}
	}
}

// TestXDS_1_CacheVersionsAndVariants: the cache's version of a type is the
// resourceVersion of its last change (a deletion included), other types
// keep theirs; a name's variants are ordered by object; aliases go with
// their resource.
func TestXDS_1_CacheVersionsAndVariants(t *testing.T) {
	f := newFixture(t)
	c := f.s.cache
	if c.version(cdsURL) != "0" {
		t.Errorf("empty type: version %s", c.version(cdsURL))
	}
	f.cluster("a", "1s")
	f.endpoints("e", 80, map[string]any{"aliases": []any{"e.alias"}})
	f.cluster("b", "1s")
	if c.version(cdsURL) != "3" || c.version(edsURL) != "2" {
		t.Errorf("versions %s %s, want 3 and 2", c.version(cdsURL), c.version(edsURL))
	}
	f.remove("Cluster", "a")
	if c.version(cdsURL) != "4" || !slices.Equal(c.names(cdsURL), []string{"b"}) {
		t.Errorf("after a deletion: version %s, names %v", c.version(cdsURL), c.names(cdsURL))
	}
	if c.pick(edsURL, "e.alias", nil) == nil {
		t.Error("the alias reaches nothing")
	}
	f.remove("ClusterLoadAssignment", "e")
	if c.pick(edsURL, "e.alias", nil) != nil || c.pick(edsURL, "e", nil) != nil {
		t.Error("a deleted resource's alias still reaches it")
	}
	if !c.matches("Cluster/", map[string]string{"Cluster/b": "3"}) || c.matches("Cluster/", map[string]string{"Cluster/b": "2"}) {
		t.Error("matches")
	}
}

package xdsgrpc_test

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	xdscore "github.com/cncf/xds/go/xds/core/v3"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	clusterservice "github.com/envoyproxy/go-control-plane/envoy/service/cluster/v3"
	discovery "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	rpcstatus "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"kubeplay/core/api"
	"kubeplay/core/clock"
	"kubeplay/core/xds"
)

func clusterNames(t *testing.T, resp *discovery.DiscoveryResponse) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, a := range resp.Resources {
		var c clusterv3.Cluster
		if err := a.UnmarshalTo(&c); err != nil {
			t.Fatalf("resource %s: %v", a.TypeUrl, err)
		}
		out[c.Name] = c.ConnectTimeout.AsDuration().String()
	}
	return out
}

func typeStatus(t *testing.T, xs *xds.Server, typeURL string) xds.TypeStatus {
	t.Helper()
	for _, st := range xs.Status() {
		for _, ty := range st.Types {
			if ty.TypeURL == typeURL {
				return ty
			}
		}
	}
	t.Fatalf("no stream follows %s", typeURL)
	return xds.TypeStatus{}
}

// TestXDS_1_StateOfTheWorld: a wildcard CDS subscription gets every cluster
// with a version and a nonce; an ACK is followed by pushes of changes only;
// a NACK keeps the last good version (visible in the status) and the refused
// state is not sent again; a request naming an older nonce is ignored.
func TestXDS_1_StateOfTheWorld(t *testing.T) {
	e := newEnv(t, nil)
	e.apply("clusters", "a", cluster("a", "1s"))
	rvB := e.apply("clusters", "b", cluster("b", "1s"))
	stream, err := e.ads.StreamAggregatedResources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f := follow(t, stream.Recv)
	send := func(r *discovery.DiscoveryRequest) {
		t.Helper()
		r.TypeUrl = clusterType
		if err := stream.Send(r); err != nil {
			t.Fatal(err)
		}
	}
	send(&discovery.DiscoveryRequest{Node: &corev3.Node{Id: "n1"}})
	r1 := f.next()
	if got := clusterNames(t, r1); len(got) != 2 || r1.VersionInfo != rvB || r1.Nonce == "" || r1.ControlPlane.GetIdentifier() != "kubeplay" {
		t.Fatalf("first response: %v version %q nonce %q cp %v", got, r1.VersionInfo, r1.Nonce, r1.ControlPlane)
	}
	send(&discovery.DiscoveryRequest{VersionInfo: r1.VersionInfo, ResponseNonce: r1.Nonce})
	f.quiet()

	e.apply("clusters", "a", cluster("a", "2s"))
	r2 := f.next()
	if got := clusterNames(t, r2); got["a"] != "2s" || got["b"] != "1s" || r2.VersionInfo == r1.VersionInfo {
		t.Fatalf("push: %v version %q", got, r2.VersionInfo)
	}
	send(&discovery.DiscoveryRequest{VersionInfo: r1.VersionInfo, ResponseNonce: r2.Nonce, ErrorDetail: &rpcstatus.Status{Code: 3, Message: "connect_timeout too long"}})
	f.quiet()
	ts := typeStatus(t, e.xs, clusterType)
	if ts.Acked != r1.VersionInfo || ts.NACK == nil || ts.NACK.Version != r2.VersionInfo || ts.NACK.Message != "connect_timeout too long" {
		t.Fatalf("after the NACK: %+v (nack %+v)", ts, ts.NACK)
	}
	// A request answering an older response is stale.
	send(&discovery.DiscoveryRequest{VersionInfo: r1.VersionInfo, ResponseNonce: r1.Nonce, ResourceNames: []string{"a"}})
	f.quiet()

	e.apply("clusters", "a", cluster("a", "3s"))
	r3 := f.next()
	if got := clusterNames(t, r3); got["a"] != "3s" {
		t.Fatalf("the fix: %v", got)
	}
	send(&discovery.DiscoveryRequest{VersionInfo: r3.VersionInfo, ResponseNonce: r3.Nonce})
	f.quiet()
	if ts := typeStatus(t, e.xs, clusterType); ts.Acked != r3.VersionInfo || ts.NACK != nil {
		t.Fatalf("after the fix: %+v", ts)
	}

	// Named: only what is named, and a change elsewhere is not pushed.
	send(&discovery.DiscoveryRequest{VersionInfo: r3.VersionInfo, ResponseNonce: r3.Nonce, ResourceNames: []string{"b"}})
	r4 := f.next()
	if got := clusterNames(t, r4); len(got) != 1 || got["b"] == "" {
		t.Fatalf("named b: %v", got)
	}
	send(&discovery.DiscoveryRequest{VersionInfo: r4.VersionInfo, ResponseNonce: r4.Nonce, ResourceNames: []string{"b"}})
	e.apply("clusters", "a", cluster("a", "4s"))
	f.quiet()
}

func deltaNames(resp *discovery.DeltaDiscoveryResponse) (names []string, versions map[string]string) {
	versions = map[string]string{}
	for _, r := range resp.Resources {
		n := r.Name
		if n == "" {
			n = r.ResourceName.GetName()
		}
		names = append(names, n)
		versions[n] = r.Version
	}
	sort.Strings(names)
	return names, versions
}

func eq(a []string, b ...string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestXDS_2_Delta: subscriptions answer each name, with its version or its
// removal; only changes are pushed; an unsubscribed then resubscribed name
// is answered though unchanged; a reconnecting client with
// initial_resource_versions gets only what changed.
func TestXDS_2_Delta(t *testing.T) {
	e := newEnv(t, nil)
	rvA := e.apply("clusters", "a", cluster("a", "1s"))
	e.apply("clusters", "b", cluster("b", "1s"))
	stream, err := e.ads.DeltaAggregatedResources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f := follow(t, stream.Recv)
	send := func(r *discovery.DeltaDiscoveryRequest) {
		t.Helper()
		r.TypeUrl = clusterType
		if err := stream.Send(r); err != nil {
			t.Fatal(err)
		}
	}
	send(&discovery.DeltaDiscoveryRequest{ResourceNamesSubscribe: []string{"a", "missing"}})
	r1 := f.next()
	names, versions := deltaNames(r1)
	if !eq(names, "a") || versions["a"] != rvA || !eq(r1.RemovedResources, "missing") || r1.Nonce == "" {
		t.Fatalf("subscribe: %v %v removed %v nonce %q", names, versions, r1.RemovedResources, r1.Nonce)
	}
	send(&discovery.DeltaDiscoveryRequest{ResponseNonce: r1.Nonce})
	e.apply("clusters", "b", cluster("b", "2s")) // not subscribed
	f.quiet()
	rvA2 := e.apply("clusters", "a", cluster("a", "2s"))
	r2 := f.next()
	if names, versions := deltaNames(r2); !eq(names, "a") || versions["a"] != rvA2 {
		t.Fatalf("push: %v %v", names, versions)
	}
	send(&discovery.DeltaDiscoveryRequest{ResponseNonce: r2.Nonce})
	send(&discovery.DeltaDiscoveryRequest{ResourceNamesUnsubscribe: []string{"a"}})
	f.quiet()
	send(&discovery.DeltaDiscoveryRequest{ResourceNamesSubscribe: []string{"a"}})
	r3 := f.next()
	if names, versions := deltaNames(r3); !eq(names, "a") || versions["a"] != rvA2 {
		t.Fatalf("resubscribed: %v %v", names, versions)
	}
	send(&discovery.DeltaDiscoveryRequest{ResponseNonce: r3.Nonce})
	e.delete("clusters", "a")
	r4 := f.next()
	if !eq(r4.RemovedResources, "a") || len(r4.Resources) != 0 {
		t.Fatalf("deleted: %v removed %v", r4.Resources, r4.RemovedResources)
	}
	stream.CloseSend()

	// Reconnect: b is current, c newer than the client's, d gone.
	e.apply("clusters", "c", cluster("c", "1s"))
	stream2, err := e.ads.DeltaAggregatedResources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f2 := follow(t, stream2.Recv)
	bNow := e.apply("clusters", "b", cluster("b", "2s")) // unchanged: same version
	if err := stream2.Send(&discovery.DeltaDiscoveryRequest{TypeUrl: clusterType, ResourceNamesSubscribe: []string{"b", "c", "d"},
		InitialResourceVersions: map[string]string{"b": bNow, "c": "1", "d": "1"}}); err != nil {
		t.Fatal(err)
	}
	r5 := f2.next()
	if names, _ := deltaNames(r5); !eq(names, "c") || !eq(r5.RemovedResources, "d") {
		t.Fatalf("reconnect: %v removed %v", names, r5.RemovedResources)
	}
}

// TestXDS_2_DeltaWildcard: a first CDS request without names subscribes to
// every cluster; new clusters are pushed.
func TestXDS_2_DeltaWildcard(t *testing.T) {
	e := newEnv(t, nil)
	e.apply("clusters", "a", cluster("a", "1s"))
	e.apply("clusters", "b", cluster("b", "1s"))
	stream, err := e.ads.DeltaAggregatedResources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f := follow(t, stream.Recv)
	stream.Send(&discovery.DeltaDiscoveryRequest{TypeUrl: clusterType})
	r1 := f.next()
	if names, _ := deltaNames(r1); !eq(names, "a", "b") {
		t.Fatalf("wildcard: %v", names)
	}
	stream.Send(&discovery.DeltaDiscoveryRequest{TypeUrl: clusterType, ResponseNonce: r1.Nonce})
	e.apply("clusters", "c", cluster("c", "1s"))
	if names, _ := deltaNames(f.next()); !eq(names, "c") {
		t.Fatalf("new cluster: %v", names)
	}
}

// TestXDS_3_ADS: types on one aggregated stream are separate worlds: a
// cluster NACK leaves endpoints flowing.
func TestXDS_3_ADS(t *testing.T) {
	e := newEnv(t, nil)
	e.apply("clusters", "a", cluster("a", "1s"))
	e.apply("clusterloadassignments", "a", map[string]any{"spec": map[string]any{"clusterName": "a"}})
	stream, err := e.ads.StreamAggregatedResources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f := follow(t, stream.Recv)
	stream.Send(&discovery.DiscoveryRequest{TypeUrl: clusterType})
	c1 := f.next()
	stream.Send(&discovery.DiscoveryRequest{TypeUrl: endpointType, ResourceNames: []string{"a"}})
	e1 := f.next()
	if c1.TypeUrl != clusterType || e1.TypeUrl != endpointType || len(e1.Resources) != 1 {
		t.Fatalf("types: %s %s (%d endpoints)", c1.TypeUrl, e1.TypeUrl, len(e1.Resources))
	}
	stream.Send(&discovery.DiscoveryRequest{TypeUrl: clusterType, ResponseNonce: c1.Nonce, ErrorDetail: &rpcstatus.Status{Message: "no"}})
	stream.Send(&discovery.DiscoveryRequest{TypeUrl: endpointType, ResponseNonce: e1.Nonce, VersionInfo: e1.VersionInfo, ResourceNames: []string{"a"}})
	f.quiet()
	e.apply("clusterloadassignments", "a", map[string]any{"spec": map[string]any{"clusterName": "a", "endpoints": []any{map[string]any{"loadBalancingWeight": 1}}}})
	e2 := f.next()
	var cla endpointv3.ClusterLoadAssignment
	if e2.TypeUrl != endpointType || e2.Resources[0].UnmarshalTo(&cla) != nil || len(cla.Endpoints) != 1 {
		t.Fatalf("endpoints after a cluster NACK: %v", e2)
	}
}

// TestXDS_4_DynamicParameters: two variants of one name; each client gets the
// variant its dynamic parameters match (a locator's, or the node's), named
// with its constraints; removing a variant moves its clients to the other.
func TestXDS_4_DynamicParameters(t *testing.T) {
	e := newEnv(t, nil)
	prod := map[string]any{"spec": map[string]any{"clusterName": "svc", "endpoints": []any{map[string]any{"loadBalancingWeight": 7}}},
		"dynamicParameterConstraints": map[string]any{"constraint": map[string]any{"key": "env", "value": "prod"}}}
	e.apply("clusterloadassignments", "svc-prod", prod)
	rvDefault := e.apply("clusterloadassignments", "svc-default", map[string]any{"spec": map[string]any{"clusterName": "svc"}})
	subscribe := func(env string) (*feed[*discovery.DeltaDiscoveryResponse], discovery.AggregatedDiscoveryService_DeltaAggregatedResourcesClient) {
		stream, err := e.ads.DeltaAggregatedResources(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		stream.Send(&discovery.DeltaDiscoveryRequest{TypeUrl: endpointType, ResourceLocatorsSubscribe: []*discovery.ResourceLocator{{Name: "svc", DynamicParameters: map[string]string{"env": env}}}})
		return follow(t, stream.Recv), stream
	}
	fp, sp := subscribe("prod")
	rp := fp.next()
	if len(rp.Resources) != 1 || rp.Resources[0].ResourceName.GetName() != "svc" ||
		rp.Resources[0].ResourceName.GetDynamicParameterConstraints().GetConstraint().GetValue() != "prod" {
		t.Fatalf("prod variant: %v", rp.Resources)
	}
	fd, _ := subscribe("dev")
	rd := fd.next()
	if len(rd.Resources) != 1 || rd.Resources[0].Name != "svc" || rd.Resources[0].Version != rvDefault {
		t.Fatalf("default variant: %v", rd.Resources)
	}
	// The node's parameters, on a state-of-the-world stream.
	sotw, err := e.ads.StreamAggregatedResources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fs := follow(t, sotw.Recv)
	sotw.Send(&discovery.DiscoveryRequest{TypeUrl: endpointType, ResourceNames: []string{"svc"}, Node: &corev3.Node{Id: "n",
		DynamicParameters: map[string]*xdscore.ContextParams{endpointType: {Params: map[string]string{"env": "prod"}}}}})
	if r := fs.next(); len(r.Resources) != 1 || r.Resources[0].TypeUrl != xds.ResourceTypeURL {
		t.Fatalf("sotw prod variant: %v", r.Resources)
	} else {
		var wrapped discovery.Resource
		var cla endpointv3.ClusterLoadAssignment
		if err := r.Resources[0].UnmarshalTo(&wrapped); err != nil || wrapped.Resource.UnmarshalTo(&cla) != nil || cla.Endpoints[0].LoadBalancingWeight.GetValue() != 7 {
			t.Fatalf("sotw prod variant: %v %v", &wrapped, err)
		}
	}
	sp.Send(&discovery.DeltaDiscoveryRequest{TypeUrl: endpointType, ResponseNonce: rp.Nonce})
	e.delete("clusterloadassignments", "svc-prod")
	if r := fp.next(); len(r.Resources) != 1 || r.Resources[0].Name != "svc" || r.Resources[0].Version != rvDefault {
		t.Fatalf("prod variant deleted: %v removed %v", r.Resources, r.RemovedResourceNames)
	}
}

// TestXDS_4_Constraints: and, or, not and exists.
func TestXDS_4_Constraints(t *testing.T) {
	single := func(k, v string) map[string]any {
		c := map[string]any{"key": k}
		if v == "" {
			c["exists"] = map[string]any{}
		} else {
			c["value"] = v
		}
		return map[string]any{"constraint": c}
	}
	list := func(cs ...any) map[string]any { return map[string]any{"constraints": cs} }
	c := map[string]any{"andConstraints": list(
		map[string]any{"orConstraints": list(single("env", "prod"), single("env", "staging"))},
		map[string]any{"notConstraints": single("canary", "")},
	)}
	obj := map[string]any{"metadata": map[string]any{"name": "x"}, "spec": map[string]any{"name": "x"}, "dynamicParameterConstraints": c}
	r, errs := xds.NewResource(api.XDSKinds[2], obj)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for params, want := range map[string]bool{"env=prod": true, "env=staging": true, "env=dev": false, "env=prod,canary=": false, "": false} {
		p := map[string]string{}
		for _, kv := range strings.Split(params, ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				p[k] = v
			}
		}
		if got := r.Constraints.Match(p); got != want {
			t.Errorf("%q: match %v, want %v", params, got, want)
		}
	}
}

// TestXDS_5_TTL: a resource with a TTL carries it, and while the client
// holds it the server refreshes it with heartbeats: the resource without
// its body, before half the TTL has passed.
func TestXDS_5_TTL(t *testing.T) {
	clk := clock.NewFake(time.Now())
	e := newEnv(t, clk)
	obj := cluster("a", "1s")
	obj["ttl"] = "10s"
	rv := e.apply("clusters", "a", obj)
	stream, err := e.ads.DeltaAggregatedResources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f := follow(t, stream.Recv)
	stream.Send(&discovery.DeltaDiscoveryRequest{TypeUrl: clusterType, ResourceNamesSubscribe: []string{"a"}})
	r1 := f.next()
	if len(r1.Resources) != 1 || r1.Resources[0].Ttl.AsDuration() != 10*time.Second || r1.Resources[0].Resource == nil {
		t.Fatalf("ttl: %v", r1.Resources)
	}
	stream.Send(&discovery.DeltaDiscoveryRequest{TypeUrl: clusterType, ResponseNonce: r1.Nonce})
	waitTimer(t, clk)
	clk.Step(5 * time.Second)
	hb := f.next()
	if len(hb.Resources) != 1 || hb.Resources[0].Resource != nil || hb.Resources[0].Version != rv || hb.Resources[0].Ttl.AsDuration() != 10*time.Second {
		t.Fatalf("heartbeat: %v", hb.Resources)
	}
	// State of the world: the resource wrapped with its TTL, then heartbeats.
	sotw, err := e.ads.StreamAggregatedResources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fs := follow(t, sotw.Recv)
	sotw.Send(&discovery.DiscoveryRequest{TypeUrl: clusterType})
	s1 := fs.next()
	var wrapped discovery.Resource
	if len(s1.Resources) != 1 || s1.Resources[0].UnmarshalTo(&wrapped) != nil || wrapped.Ttl.AsDuration() != 10*time.Second || wrapped.Resource == nil {
		t.Fatalf("sotw ttl: %v", s1.Resources)
	}
	sotw.Send(&discovery.DiscoveryRequest{TypeUrl: clusterType, ResponseNonce: s1.Nonce, VersionInfo: s1.VersionInfo})
	stream.Send(&discovery.DeltaDiscoveryRequest{TypeUrl: clusterType, ResponseNonce: hb.Nonce})
	waitTimer(t, clk)
	clk.Step(5 * time.Second)
	s2 := fs.next()
	if len(s2.Resources) != 1 || s2.Resources[0].UnmarshalTo(&wrapped) != nil || wrapped.Resource != nil || s2.VersionInfo != s1.VersionInfo {
		t.Fatalf("sotw heartbeat: %v", s2.Resources)
	}
}

// waitTimer waits until the streams have set their heartbeat timers.
func waitTimer(t *testing.T, clk *clock.Fake) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for clk.Waiters() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no heartbeat timer")
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // the other streams' loops
}

// TestXDS_6_AliasesMetadataVersion: a resource carries its aliases, the
// object it comes from in its metadata, and the object's resourceVersion
// as its version; a name subscribed by alias is answered with it.
func TestXDS_6_AliasesMetadataVersion(t *testing.T) {
	e := newEnv(t, nil)
	obj := cluster("a", "1s")
	obj["aliases"] = []any{"alias-a"}
	rv := e.apply("clusters", "obj-a", obj)
	stream, err := e.ads.DeltaAggregatedResources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f := follow(t, stream.Recv)
	stream.Send(&discovery.DeltaDiscoveryRequest{TypeUrl: clusterType, ResourceNamesSubscribe: []string{"alias-a"}})
	r := f.next()
	if len(r.Resources) != 1 {
		t.Fatalf("by alias: %v", r)
	}
	res := r.Resources[0]
	md := res.Metadata.GetFilterMetadata()["xds.kubeplay.dev"].GetFields()
	if res.Name != "a" || !eq(res.Aliases, "alias-a") || res.Version != rv || md["object"].GetStringValue() != "obj-a" || md["resourceVersion"].GetStringValue() != rv {
		t.Fatalf("resource: %v", res)
	}
}

// TestXDS_BadInput: a stream asking for an unknown type, or without a type
// on an aggregated stream, or another type than its own, ends with
// InvalidArgument; the other streams go on.
func TestXDS_BadInput(t *testing.T) {
	e := newEnv(t, nil)
	e.apply("clusters", "a", cluster("a", "1s"))
	good, err := e.ads.StreamAggregatedResources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fg := follow(t, good.Recv)
	good.Send(&discovery.DiscoveryRequest{TypeUrl: clusterType})
	g1 := fg.next()
	for _, bad := range []*discovery.DiscoveryRequest{{TypeUrl: "type.googleapis.com/no.such.Type"}, {}, {TypeUrl: "type.googleapis.com/google.protobuf.Duration"}} {
		stream, err := e.ads.StreamAggregatedResources(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		f := follow(t, stream.Recv)
		stream.Send(bad)
		if err := f.err(); status.Code(err) != codes.InvalidArgument {
			t.Errorf("%v: %v, want InvalidArgument", bad, err)
		}
	}
	cds, err := clusterservice.NewClusterDiscoveryServiceClient(e.conn).StreamClusters(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fc := follow(t, cds.Recv)
	cds.Send(&discovery.DiscoveryRequest{TypeUrl: listenerType})
	if err := fc.err(); status.Code(err) != codes.InvalidArgument {
		t.Errorf("listeners on CDS: %v", err)
	}
	good.Send(&discovery.DiscoveryRequest{TypeUrl: clusterType, ResponseNonce: g1.Nonce, VersionInfo: g1.VersionInfo})
	e.apply("clusters", "a", cluster("a", "2s"))
	if got := clusterNames(t, fg.next()); got["a"] != "2s" {
		t.Fatalf("the good stream after the bad ones: %v", got)
	}
}

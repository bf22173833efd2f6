package xdsgrpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	discovery "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"kubeplay/core/xds"
)

// wantExhausted checks that err is a ResourceExhausted status whose message
// names the limit as kube's quota admission does.
func wantExhausted(t *testing.T, what string, err error, quota string) {
	t.Helper()
	if st, _ := status.FromError(err); st.Code() != codes.ResourceExhausted || !strings.Contains(st.Message(), "exceeded quota: ") || !strings.Contains(st.Message(), quota) {
		t.Errorf("%s: %v, want ResourceExhausted naming %q", what, err, quota)
	}
}

// wantQuotaStatus checks that an HTTP answer is a 403 Forbidden Status whose
// message names the limit as kube's quota admission does.
func wantQuotaStatus(t *testing.T, what string, code int, body []byte, quota string) {
	t.Helper()
	var st struct{ Kind, Status, Reason, Message string }
	if code != http.StatusForbidden || json.Unmarshal(body, &st) != nil || st.Kind != "Status" || st.Reason != "Forbidden" ||
		!strings.HasPrefix(st.Message, "forbidden: exceeded quota: ") || !strings.Contains(st.Message, quota) {
		t.Errorf("%s: %d %s, want a 403 Forbidden Status naming %q", what, code, body, quota)
	}
}

// openStreams waits until the server has n streams open.
func openStreams(t *testing.T, xs *xds.Server, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(xs.Status()) != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d streams open, want %d", len(xs.Status()), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// A sandbox's discovery service keeps at most Limits.Streams streams open,
// over gRPC and HTTP together: one more is refused with ResourceExhausted (a
// 403 over HTTP) naming the limit and its value, and the open streams keep
// being served; once one ends, a new one opens.
func TestROB_2_XDSStreamBudget(t *testing.T) {
	e := newEnvWith(t, xds.Config{Limits: xds.Limits{Streams: 3}})
	e.apply("clusters", "a", cluster("a", "1s"))
	hs := httptest.NewServer(e.xs)
	defer hs.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sotw, err := e.ads.StreamAggregatedResources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sotwFeed := follow(t, sotw.Recv)
	sotw.Send(&discovery.DiscoveryRequest{TypeUrl: clusterType})
	r1 := sotwFeed.next()
	sotw.Send(&discovery.DiscoveryRequest{TypeUrl: clusterType, VersionInfo: r1.VersionInfo, ResponseNonce: r1.Nonce})
	deltaCtx, endDelta := context.WithCancel(ctx)
	delta, err := e.ads.DeltaAggregatedResources(deltaCtx)
	if err != nil {
		t.Fatal(err)
	}
	delta.Send(&discovery.DeltaDiscoveryRequest{TypeUrl: clusterType, ResourceNamesSubscribe: []string{"a"}})
	follow(t, delta.Recv).next()
	openStream(t, hs.URL, "sotw")
	openStreams(t, e.xs, 3)

	over, err := e.ads.DeltaAggregatedResources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = follow(t, over.Recv).err()
	wantExhausted(t, "a 4th stream over gRPC", err, "kubeplay-sandbox, requested: kubeplay.dev/xds-streams=1, used: kubeplay.dev/xds-streams=3, limited: kubeplay.dev/xds-streams=3")
	code, body := post(t, hs.URL+"/xds/v3/streams?protocol=delta", "")
	wantQuotaStatus(t, "a 4th stream over HTTP", code, body, "kubeplay-sandbox, requested: kubeplay.dev/xds-streams=1, used: kubeplay.dev/xds-streams=3, limited: kubeplay.dev/xds-streams=3")

	// The open streams are served still.
	e.apply("clusters", "a", cluster("a", "2s"))
	if got := clusterNames(t, sotwFeed.next()); got["a"] != "2s" {
		t.Errorf("push after the refusal: %v", got)
	}
	endDelta()
	openStreams(t, e.xs, 2)
	openStream(t, hs.URL, "delta")
	openStreams(t, e.xs, 3)
}

// One stream subscribes to at most Limits.Names names, over its types and
// requests: a request that would take it past the limit is refused whole with
// ResourceExhausted naming the limit and its value; a request that swaps
// names at the limit passes. Over HTTP the POST is answered 403 and the
// stream goes on with the subscription it had. REST polling is bounded alike.
func TestROB_2_XDSNamesPerStream(t *testing.T) {
	e := newEnvWith(t, xds.Config{Limits: xds.Limits{Names: 4}})
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		e.apply("clusters", n, cluster(n, "1s"))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// Delta over gRPC: names accumulate over requests.
	delta, err := e.ads.DeltaAggregatedResources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	df := follow(t, delta.Recv)
	ack := func(r *discovery.DeltaDiscoveryResponse) {
		delta.Send(&discovery.DeltaDiscoveryRequest{TypeUrl: clusterType, ResponseNonce: r.Nonce})
	}
	delta.Send(&discovery.DeltaDiscoveryRequest{TypeUrl: clusterType, ResourceNamesSubscribe: []string{"a", "b", "c"}})
	ack(df.next())
	delta.Send(&discovery.DeltaDiscoveryRequest{TypeUrl: endpointType, ResourceNamesSubscribe: []string{"a"}})
	ack(df.next()) // the removal of the endpoints a: none
	// At the limit, a swap passes: e in, a out.
	delta.Send(&discovery.DeltaDiscoveryRequest{TypeUrl: clusterType, ResourceNamesSubscribe: []string{"e", "b"}, ResourceNamesUnsubscribe: []string{"a"}})
	if names, _ := deltaNames(df.next()); !eq(names, "b", "e") { // b named again is answered again
		t.Errorf("the swap: %v", names)
	}
	if got := typeStatus(t, e.xs, clusterType).Names; !eq(got, "b", "c", "e") {
		t.Errorf("subscribed after the swap: %v", got)
	}
	delta.Send(&discovery.DeltaDiscoveryRequest{TypeUrl: clusterType, ResourceNamesSubscribe: []string{"d", "a", "d"}})
	wantExhausted(t, "delta past the limit", df.err(), "kubeplay-sandbox, requested: kubeplay.dev/xds-names=2, used: kubeplay.dev/xds-names=4, limited: kubeplay.dev/xds-names=4")

	// A reconnecting delta client's versions are bounded alike.
	again, err := e.ads.DeltaAggregatedResources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	again.Send(&discovery.DeltaDiscoveryRequest{TypeUrl: clusterType, InitialResourceVersions: map[string]string{"a": "1", "b": "1", "c": "1", "d": "1", "e": "1"}})
	err = follow(t, again.Recv).err()
	wantExhausted(t, "initial_resource_versions past the limit", err, "kubeplay-sandbox, requested: kubeplay.dev/xds-names=5, used: kubeplay.dev/xds-names=0, limited: kubeplay.dev/xds-names=4")

	// The state of the world: each request names them all.
	sotw, err := e.ads.StreamAggregatedResources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sf := follow(t, sotw.Recv)
	sotw.Send(&discovery.DiscoveryRequest{TypeUrl: clusterType, ResourceNames: []string{"a", "b", "a", "b", "c", "d", "*"}})
	r := sf.next()
	sotw.Send(&discovery.DiscoveryRequest{TypeUrl: clusterType, VersionInfo: r.VersionInfo, ResponseNonce: r.Nonce, ResourceNames: []string{"a", "b", "c", "d", "e"}})
	wantExhausted(t, "state of the world past the limit", sf.err(), "kubeplay-sandbox, requested: kubeplay.dev/xds-names=1, used: kubeplay.dev/xds-names=4, limited: kubeplay.dev/xds-names=4")

	// Over HTTP the refusal answers the POST, and the stream goes on as it was.
	hs := httptest.NewServer(e.xs)
	defer hs.Close()
	st := openStream(t, hs.URL, "delta")
	next, stop := st.read(t)
	defer stop()
	if code, body := st.post(t, `{"typeUrl":"`+clusterType+`","resourceNamesSubscribe":["a","b","c"]}`); code != http.StatusAccepted {
		t.Fatalf("subscribe: %d %s", code, body)
	}
	first := next()
	if code, body := st.post(t, `{"typeUrl":"`+clusterType+`","responseNonce":"`+first["nonce"].(string)+`"}`); code != http.StatusAccepted {
		t.Fatalf("ACK: %d %s", code, body)
	}
	code, body := st.post(t, `{"typeUrl":"`+clusterType+`","resourceNamesSubscribe":["d","e"],"node":{"id":"refused"}}`)
	wantQuotaStatus(t, "HTTP delta past the limit", code, body, "kubeplay-sandbox, requested: kubeplay.dev/xds-names=2, used: kubeplay.dev/xds-names=3, limited: kubeplay.dev/xds-names=4")
	for _, s := range e.xs.Status() {
		if s.Node != nil && s.Node.ID == "refused" {
			t.Errorf("the refused request changed the stream's node")
		}
		if len(s.Types) == 1 && !eq(s.Types[0].Names, "a", "b", "c") {
			t.Errorf("the refused request changed the subscription: %v", s.Types[0].Names)
		}
	}
	if code, body := st.post(t, `{"typeUrl":"`+clusterType+`","resourceNamesSubscribe":["d"]}`); code != http.StatusAccepted {
		t.Fatalf("subscribe within the limit after the refusal: %d %s", code, body)
	}
	if names := next()["resources"].([]any); len(names) != 1 || names[0].(map[string]any)["name"] != "d" {
		t.Errorf("after the refusal: %v", names)
	}

	// A request without a stream.
	code, body = post(t, hs.URL+"/v3/discovery:clusters", `{"resourceNames":["a","b","c","d","e"]}`)
	wantQuotaStatus(t, "REST polling past the limit", code, body, "kubeplay-sandbox, requested: kubeplay.dev/xds-names=5, used: kubeplay.dev/xds-names=0, limited: kubeplay.dev/xds-names=4")
}

// One HTTP/2 connection of the gRPC transport carries at most 100 streams at
// once, kube-apiserver's default for its own: the server says so in its
// SETTINGS, and refuses a stream past it (RST_STREAM REFUSED_STREAM) from a
// client that ignores them. Without a bound one connection opened 20,000
// streams (+570 MiB).
func TestROB_2_XDSStreamsPerConnection(t *testing.T) {
	e := newEnv(t, nil)
	c, err := net.Dial("tcp", e.conn.Target())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := c.Write([]byte(http2.ClientPreface)); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(c, c)
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	limit := uint32(0)
	for limit == 0 {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := f.(*http2.SettingsFrame); ok && !s.IsAck() {
			v, ok := s.Value(http2.SettingMaxConcurrentStreams)
			if !ok {
				t.Fatal("the server sets no SETTINGS_MAX_CONCURRENT_STREAMS")
			}
			limit = v
		}
	}
	if limit != 100 || xds.DefaultStreamsPerConnection != 100 {
		t.Fatalf("SETTINGS_MAX_CONCURRENT_STREAMS %d (default %d), want kube-apiserver's 100", limit, xds.DefaultStreamsPerConnection)
	}
	fr.WriteSettingsAck()
	var hdr bytes.Buffer
	enc := hpack.NewEncoder(&hdr)
	for _, f := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":path", "/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources"},
		{":authority", "xds"}, {"content-type", "application/grpc"}, {"te", "trailers"}} {
		enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	over := 2*limit + 1 // the stream id of the one past the limit
	for id := uint32(1); id <= over; id += 2 {
		if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hdr.Bytes(), EndHeaders: true}); err != nil {
			t.Fatal(err)
		}
	}
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("no stream refused: %v", err)
		}
		if rst, ok := f.(*http2.RSTStreamFrame); ok {
			if rst.StreamID != over || rst.ErrCode != http2.ErrCodeRefusedStream {
				t.Fatalf("stream %d reset with %v, want stream %d refused", rst.StreamID, rst.ErrCode, over)
			}
			break
		}
	}
	openStreams(t, e.xs, int(limit))
}

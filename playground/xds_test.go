package main

import (
	"context"
	"encoding/json"
	"kubeplay/core/budget"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	discovery "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"golang.org/x/net/http2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"kubeplay/core/xds"
)

const clusterType = "type.googleapis.com/envoy.config.cluster.v3.Cluster"

// xdsStream is an ADS stream over its own gRPC connection to s's xDS port,
// subscribed to every Cluster, its first response received and ACKed.
type xdsStream struct {
	t         *testing.T
	stream    discovery.AggregatedDiscoveryService_StreamAggregatedResourcesClient
	responses chan *discovery.DiscoveryResponse
}

func openXDSStream(t *testing.T, s *server) *xdsStream {
	t.Helper()
	conn, err := grpc.NewClient(s.xdsAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		conn.Close()
	})
	stream, err := discovery.NewAggregatedDiscoveryServiceClient(conn).StreamAggregatedResources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	x := &xdsStream{t: t, stream: stream, responses: make(chan *discovery.DiscoveryResponse, 10)}
	go func() {
		defer close(x.responses)
		for {
			r, err := stream.Recv()
			if err != nil {
				return
			}
			x.responses <- r
		}
	}()
	if err := stream.Send(&discovery.DiscoveryRequest{TypeUrl: clusterType}); err != nil {
		t.Fatal(err)
	}
	x.ack(x.next())
	return x
}

// next is the stream's next response.
func (x *xdsStream) next() *discovery.DiscoveryResponse {
	x.t.Helper()
	select {
	case r, ok := <-x.responses:
		if !ok {
			x.t.Fatal("the xDS stream ended")
		}
		return r
	case <-time.After(generous):
		x.t.Fatal("no xDS response")
	}
	return nil
}

func (x *xdsStream) ack(r *discovery.DiscoveryResponse) {
	x.t.Helper()
	if err := x.stream.Send(&discovery.DiscoveryRequest{TypeUrl: clusterType, VersionInfo: r.VersionInfo, ResponseNonce: r.Nonce}); err != nil {
		x.t.Fatal(err)
	}
}

// createCluster creates an xDS Cluster through the API, as kubectl would.
func createCluster(t *testing.T, s *server, name string) {
	t.Helper()
	body := `{"apiVersion":"xds.kubeplay.dev/v1","kind":"Cluster","metadata":{"name":"` + name + `"},"spec":{"connectTimeout":"1s"}}`
	client := &http.Client{Timeout: generous, Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := client.Post(s.url+"/apis/xds.kubeplay.dev/v1/clusters", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("create Cluster %s: %s", name, res.Status)
	}
}

// The xDS gRPC port counted no connections: 4,200 idle ones exhausted the
// file descriptors and kubectl then failed on the API port. Its connections
// are in --max-connections' budget now: with 2,000 idle ones open on it, in
// a process that can open only a few more files than that, the API answers,
// the connections idle longest are closed, and the one carrying a stream is
// served still.
func TestROB_3_XDSConnectionsShareTheBudget(t *testing.T) {
	const idle = 2000
	setFileLimit(t, uint64(idle+defaultLimits.maxConnections+500))
	s := startPlayground(t, options{xdsListen: "127.0.0.1:0"})
	busy := openXDSStream(t, s)
	var conns []net.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for i := range idle {
		c, err := net.DialTimeout("tcp", s.xdsAddr, generous)
		if err != nil {
			t.Fatalf("idle xDS connection %d: %v", i, err)
		}
		conns = append(conns, c)
	}
	client := &http.Client{Timeout: generous, Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := client.Get(s.url + "/version")
	if err != nil {
		t.Fatalf("with %d idle xDS connections open: %v", idle, err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("with %d idle xDS connections open: %s", idle, res.Status)
	}
	want := idle - defaultLimits.maxConnections
	closed, open := 0, conns
	for _, wait := range []time.Duration{time.Millisecond, 100 * time.Millisecond} {
		var still []net.Conn
		for _, c := range open {
			if closed < want && closedByServer(c, wait) {
				closed++
			} else {
				still = append(still, c)
			}
		}
		open = still
	}
	if closed < want {
		t.Errorf("the server closed %d of the %d idle xDS connections, want at least %d", closed, idle, want)
	}
	createCluster(t, s, "pushed")
	if r := busy.next(); len(r.Resources) != 1 {
		t.Errorf("the stream's push: %d resources", len(r.Resources))
	}
}

// A gRPC connection carrying a stream is serving, as one carrying a watch
// is: the budget closes idle connections of either port for new clients,
// never those; when every connection is serving, the new one is closed.
func TestROB_3_XDSStreamsOutliveTheConnectionBudget(t *testing.T) {
	l := defaultLimits
	l.maxConnections = 4
	s := startPlayground(t, options{limits: l, xdsListen: "127.0.0.1:0"})
	streams := []*xdsStream{openXDSStream(t, s), openXDSStream(t, s)}
	res, err := http.Get(s.url + cmPath + "?watch=1")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	settle(t, s, 3, 3)
	// More idle clients than the budget leaves room for, on both ports.
	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	for i := range 3 * l.maxConnections {
		c, err := keepAlive(s)
		if err != nil {
			t.Fatalf("API client %d: %v", i, err)
		}
		settle(t, s, 4, 3)
		x, err := net.Dial("tcp", s.xdsAddr)
		if err != nil {
			t.Fatal(err)
		}
		accepted(t, s, x)
		settle(t, s, 4, 3)
		idle = append(idle, c, x)
	}
	createCluster(t, s, "pushed")
	for i, x := range streams {
		r := x.next()
		if len(r.Resources) != 1 {
			t.Errorf("stream %d's push: %d resources", i, len(r.Resources))
		}
		x.ack(r)
	}
	// The create's connection (no keep-alive; it took the idle connection's
	// place) is gone once the server has finished with it, a moment after its
	// client read the answer.
	settle(t, s, 3, 3)
	// With every connection serving, a new one is closed.
	streams = append(streams, openXDSStream(t, s))
	settle(t, s, 4, 4)
	x, err := net.Dial("tcp", s.xdsAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if !closedByServer(x, generous) {
		t.Error("a new connection stayed open past a budget of serving connections")
	}
	settle(t, s, 4, 4)
	for _, c := range idle {
		if !closedByServer(c, generous) {
			t.Errorf("an idle connection to %s stayed open past the budget", c.RemoteAddr())
		}
	}
}

// A cross-origin page may not read an xDS stream natively even with its
// token (a GET that takes the stream's responses is checked as a write):
// refused as its writes are, while the server's own page, curl and the
// origins of --cors-allowed-origins (whose preflight allows the token's
// header) read it.
func TestROB_3_XDSHTTPStreamCrossOriginRead(t *testing.T) {
	const allowed = "http://localhost:5173"
	s := startPlayground(t, options{cors: allowed})
	code, _, body := send(t, s, "POST", "/xds/v3/streams?protocol=delta", "", nil, "")
	var st struct{ ID, Token string }
	if code != http.StatusCreated || json.Unmarshal([]byte(body), &st) != nil {
		t.Fatalf("open: %d %s", code, body)
	}
	read := "/xds/v3/streams/" + st.ID + "?timeoutSeconds=1"
	for _, h := range []map[string]string{
		{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"},
		{"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "cors", "Origin": "http://127.0.0.1:9"},
		{"Origin": "http://127.0.0.1:9"},
	} {
		h[xds.StreamTokenHeader] = st.Token
		code, _, body := send(t, s, "GET", read, "", h, "")
		wantForbidden(t, "GET with "+strings.Join(mapPairs(h), " "), code, body, "cross-origin")
	}
	for name, h := range map[string]map[string]string{
		"same-origin": {"Origin": s.url, "Sec-Fetch-Site": "same-origin"},
		"curl":        {},
		"allowed":     {"Origin": allowed, "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors"},
	} {
		h[xds.StreamTokenHeader] = st.Token
		if code, _, body := send(t, s, "GET", read, "", h, ""); code != http.StatusOK {
			t.Errorf("%s: %d %s", name, code, body)
		}
	}
	_, hdr, _ := send(t, s, "OPTIONS", read, "", map[string]string{"Origin": allowed, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": xds.StreamTokenHeader}, "")
	if !strings.Contains(hdr.Get("Access-Control-Allow-Headers"), xds.StreamTokenHeader) {
		t.Errorf("the preflight allows %q", hdr.Get("Access-Control-Allow-Headers"))
	}
}

// --xds-max-streams and --xds-max-names reach the discovery service.
func TestROB_2_XDSLimitFlags(t *testing.T) {
	s := startPlayground(t, options{budget: budget.Limits{XDSStreams: 1, XDSNames: 2}})
	if code, _, body := send(t, s, "POST", "/xds/v3/streams?protocol=delta", "", nil, ""); code != http.StatusCreated {
		t.Fatalf("open: %d %s", code, body)
	}
	code, _, body := send(t, s, "POST", "/xds/v3/streams?protocol=delta", "", nil, "")
	wantForbidden(t, "a second stream", code, body, "limited: kubeplay.dev/xds-streams=1")
	code, _, body = send(t, s, "POST", "/v3/discovery:clusters", "", map[string]string{"Content-Type": "application/json"}, `{"resourceNames":["a","b","c"]}`)
	wantForbidden(t, "three names", code, body, "limited: kubeplay.dev/xds-names=2")
}

// A gRPC connection without a stream is closed after the idle timeout (with
// a GOAWAY), and one that does not finish HTTP/2's handshake after the header
// timeout, as the API's connections are.
func TestROB_3_XDSIdleConnectionsTimeOut(t *testing.T) {
	l := defaultLimits
	l.idleTimeout, l.readHeaderTimeout = 200*time.Millisecond, 200*time.Millisecond
	s := startPlayground(t, options{limits: l, xdsListen: "127.0.0.1:0"})
	silent, err := net.Dial("tcp", s.xdsAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	idle, err := net.Dial("tcp", s.xdsAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	if _, err := idle.Write([]byte(http2.ClientPreface)); err != nil {
		t.Fatal(err)
	}
	if err := http2.NewFramer(idle, idle).WriteSettings(); err != nil {
		t.Fatal(err)
	}
	if !closedByServer(silent, generous) {
		t.Error("a connection that sent nothing stayed open past the header timeout")
	}
	if !closedByServer(idle, generous) {
		t.Error("a connection without a stream stayed open past the idle timeout")
	}
}

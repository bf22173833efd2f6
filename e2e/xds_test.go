package e2e

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/peer"
	grpcxds "google.golang.org/grpc/xds"

	"kubeplay/core/api"
	"kubeplay/core/sandbox"
	"kubeplay/core/xds"
	"kubeplay/core/xds/xdsgrpc"
)

// startXDS serves a fresh core with the xDS group, kubectl pointed at it, and
// its discovery service over gRPC on loopback; it returns the gRPC address.
func startXDS(t *testing.T) (*kcEnv, string) {
	t.Helper()
	bin := kcBinary(t)
	hs, srv := startCore(t, sandbox.Config{Resources: api.XDS(xds.Validate)})
	k := &kcEnv{t: t, bin: bin, kubeconfig: writeKubeconfig(t, hs.URL), home: t.TempDir(), rec: &kcRecorder{}}
	xs, stop := xds.Start(srv, xds.Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := xdsgrpc.NewServer(xs)
	go g.Serve(ln)
	t.Cleanup(func() {
		g.Stop()
		stop()
	})
	return k, ln.Addr().String()
}

// backend is a gRPC server answering health checks, told apart by address.
func backend(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer()
	healthpb.RegisterHealthServer(g, health.NewServer())
	go g.Serve(ln)
	t.Cleanup(g.Stop)
	return ln.Addr().String()
}

// helloObjects are LDS → RDS → CDS → EDS for xds:///hello, the endpoints at
// addr.
func helloObjects(addr string) string {
	host, port, _ := net.SplitHostPort(addr)
	return `apiVersion: xds.kubeplay.dev/v1
kind: Listener
metadata:
  name: hello
spec:
  apiListener:
    apiListener:
      "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
      statPrefix: hello
      rds:
        routeConfigName: hello-route
        configSource:
          ads: {}
      httpFilters:
      - name: router
        typedConfig:
          "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
---
apiVersion: xds.kubeplay.dev/v1
kind: RouteConfiguration
metadata:
  name: hello-route
spec:
  virtualHosts:
  - name: hello
    domains: ["*"]
    routes:
    - match: {prefix: ""}
      route: {cluster: hello-cluster}
---
apiVersion: xds.kubeplay.dev/v1
kind: Cluster
metadata:
  name: hello-cluster
spec:
  type: EDS
  edsClusterConfig:
    edsConfig:
      ads: {}
  lbPolicy: ROUND_ROBIN
---
` + endpoints(host, port)
}

func endpoints(host, port string) string {
	return `apiVersion: xds.kubeplay.dev/v1
kind: ClusterLoadAssignment
metadata:
  name: hello-cluster
spec:
  endpoints:
  - locality: {region: here}
    loadBalancingWeight: 1
    lbEndpoints:
    - endpoint:
        address:
          socketAddress: {address: "` + host + `", portValue: ` + port + `}
`
}

// TestXDS_8_GRPCResolver: grpc-go's xDS resolver, bootstrapped against
// kubeplay, dials xds:///hello and reaches the backend that the API objects
// (written with kubectl) route it to; applying another ClusterLoadAssignment
// moves the traffic.
func TestXDS_8_GRPCResolver(t *testing.T) {
	k, xdsAddr := startXDS(t)
	a, b := backend(t), backend(t)
	k.must("apply", "-f", k.file("hello.yaml", helloObjects(a)))

	bootstrap := fmt.Sprintf(`{"xds_servers":[{"server_uri":%q,"channel_creds":[{"type":"insecure"}],"server_features":["xds_v3"]}],"node":{"id":"e2e","cluster":"kubeplay-e2e"}}`, xdsAddr)
	resolver, err := grpcxds.NewXDSResolverWithConfigForTesting([]byte(bootstrap))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := grpc.NewClient("xds:///hello", grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithResolvers(resolver))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	hc := healthpb.NewHealthClient(conn)
	reached := func(want string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		var last string
		for time.Now().Before(deadline) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			var p peer.Peer
			_, err := hc.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.Peer(&p), grpc.WaitForReady(true))
			cancel()
			if err == nil && p.Addr != nil && p.Addr.String() == want {
				return
			}
			last = fmt.Sprint(err)
			if p.Addr != nil {
				last += " from " + p.Addr.String()
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("xds:///hello never reached %s; last: %s", want, last)
	}
	reached(a)
	host, port, _ := net.SplitHostPort(b)
	k.must("apply", "-f", k.file("moved.yaml", endpoints(host, port)))
	reached(b)
	out := k.must("get", "xds")
	for _, name := range []string{"listener.xds.kubeplay.dev/hello", "cluster.xds.kubeplay.dev/hello-cluster"} {
		if !strings.Contains(out, name) {
			t.Errorf("kubectl get xds lacks %s:\n%s", name, out)
		}
	}
}

// TestXDS_ResourceValidation: an Envoy resource that does not decode as its
// type, or breaks a rule Envoy declares, is refused with a 422 naming the
// field, as kube names fields; a
// TypedResource needs a known @type; the objects work with every verb.
func TestXDS_ResourceValidation(t *testing.T) {
	k, _ := startXDS(t)
	errOut := k.fails("apply", "-f", k.file("bad.yaml", `apiVersion: xds.kubeplay.dev/v1
kind: Cluster
metadata:
  name: bad
spec:
  connectTimeout: 5
  lbPolicy: FASTEST
ttl: soon
`))
	for _, want := range []string{`"bad" is invalid`, "spec.connectTimeout", "spec.lbPolicy", `Unsupported value: "FASTEST"`, "ttl"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("kubectl apply error lacks %q:\n%s", want, errOut)
		}
	}
	// Envoy's own rules (protoc-gen-validate's), with their reasons.
	errOut = k.fails("apply", "-f", k.file("rules.yaml", `apiVersion: xds.kubeplay.dev/v1
kind: ClusterLoadAssignment
metadata:
  name: weights
spec:
  endpoints:
  - lbEndpoints:
    - loadBalancingWeight: 0
      endpoint:
        address:
          socketAddress: {address: 10.0.0.1, portValue: 80}
`))
	for _, want := range []string{`"weights" is invalid`, "spec.endpoints[0].lbEndpoints[0].loadBalancingWeight", "value must be greater than or equal to 1"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("kubectl apply error lacks %q:\n%s", want, errOut)
		}
	}
	errOut = k.fails("apply", "-f", k.file("typed.yaml", `apiVersion: xds.kubeplay.dev/v1
kind: TypedResource
metadata:
  name: t
spec:
  "@type": type.googleapis.com/envoy.nothing.Here
`))
	if !strings.Contains(errOut, "spec.@type") {
		t.Errorf("unknown @type: %s", errOut)
	}
	k.must("apply", "-f", k.file("typed.yaml", `apiVersion: xds.kubeplay.dev/v1
kind: TypedResource
metadata:
  name: router
spec:
  "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
  suppressEnvoyHeaders: true
`))
	k.must("patch", "typedresources.xds.kubeplay.dev", "router", "--type=merge", "-p", `{"spec":{"startChildSpan":true}}`)
	obj := k.getJSON("typedresources.xds.kubeplay.dev", "router")
	if spec, _ := obj["spec"].(map[string]any); spec["startChildSpan"] != true || spec["suppressEnvoyHeaders"] != true {
		t.Errorf("patched: %v", obj)
	}
	k.must("delete", "typedresources.xds.kubeplay.dev", "router")
}

// TestXDS_Explain: kubectl explain reads the xDS kinds from the group's
// OpenAPI document, made from Envoy's definitions: the kind, its spec's
// message, a nested field's type and an enum's values.
func TestXDS_Explain(t *testing.T) {
	k, _ := startXDS(t)
	out := k.must("explain", "clusters.xds.kubeplay.dev")
	for _, want := range []string{"GROUP:      xds.kubeplay.dev", "KIND:       Cluster", "Envoy's envoy.config.cluster.v3.Cluster", "spec\t<Cluster> -required-", "ttl\t<string>"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain clusters lacks %q:\n%s", want, out)
		}
	}
	out = k.must("explain", "clusters.xds.kubeplay.dev.spec.lbPolicy")
	for _, want := range []string{"FIELD: lbPolicy <string>", "ENUM:\n    ROUND_ROBIN\n    LEAST_REQUEST"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain spec.lbPolicy lacks %q:\n%s", want, out)
		}
	}
	out = k.must("explain", "listeners.xds.kubeplay.dev.spec.address.socketAddress")
	for _, want := range []string{"portValue\t<integer>", "address\t<string>", "One of portValue, namedPort: set at most one."} {
		if !strings.Contains(out, want) {
			t.Errorf("explain spec.address.socketAddress lacks %q:\n%s", want, out)
		}
	}
}

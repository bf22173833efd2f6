package xdsgrpc_test

import (
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	discovery "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"kubeplay/core/api"
	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/sandbox"
	"kubeplay/core/user"
	"kubeplay/core/xds"
	"kubeplay/core/xds/xdsgrpc"
	_ "kubeplay/tools/envoytablegen/envoytypes"
)

const (
	clusterType  = "type.googleapis.com/envoy.config.cluster.v3.Cluster"
	listenerType = "type.googleapis.com/envoy.config.listener.v3.Listener"
	endpointType = "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment"
)

// env is a core serving the xDS group, its discovery service over gRPC on
// loopback, a client of the API to write objects and a gRPC connection.
type env struct {
	t    *testing.T
	api  *client.Client
	xs   *xds.Server
	conn *grpc.ClientConn
	ads  discovery.AggregatedDiscoveryServiceClient
}

func newEnv(t *testing.T, clk clock.Clock) *env {
	t.Helper()
	return newEnvWith(t, xds.Config{Clock: clk})
}

// newEnvWith is newEnv with the discovery service configured as cfg says.
func newEnvWith(t *testing.T, cfg xds.Config) *env {
	t.Helper()
	srv, err := sandbox.NewServer(sandbox.Config{Resources: api.XDS(xds.Validate)})
	if err != nil {
		t.Fatal(err)
	}
	xs, stop := xds.Start(srv, cfg)
	if err := xs.WaitSynced(context.Background()); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := xdsgrpc.NewServer(xs)
	go g.Serve(ln)
	conn, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		g.Stop()
		stop()
		srv.Close()
	})
	return &env{t: t, api: client.New(srv, user.User{Name: "admin", Groups: []string{user.SystemPrivileged}}, "test"), xs: xs, conn: conn,
		ads: discovery.NewAggregatedDiscoveryServiceClient(conn)}
}

// apply creates or updates an object of the xDS group (server-side apply)
// and returns its resourceVersion.
func (e *env) apply(plural, name string, obj map[string]any) string {
	e.t.Helper()
	obj["apiVersion"] = "xds.kubeplay.dev/v1"
	for _, k := range api.XDSKinds {
		if k.Plural == plural {
			obj["kind"] = k.Kind
		}
	}
	obj["metadata"] = map[string]any{"name": name}
	body, _ := json.Marshal(obj)
	out, err := e.api.Do(context.Background(), "PATCH", "/apis/xds.kubeplay.dev/v1/"+plural+"/"+name+"?fieldManager=test&force=true", "application/apply-patch+yaml", body)
	if err != nil {
		e.t.Fatalf("apply %s/%s: %v", plural, name, err)
	}
	var stored struct {
		Kind     string
		Metadata struct{ ResourceVersion string }
	}
	_ = json.Unmarshal(out, &stored)
	rv := stored.Metadata.ResourceVersion
	e.seen(stored.Kind, name, func(r *xds.Resource) bool { return r != nil && r.Version == rv })
	return rv
}

// seen waits until the discovery service has seen an object as ok says.
func (e *env) seen(kind, name string, ok func(*xds.Resource) bool) {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok(e.xs.Resource(kind, name)) {
		if time.Now().After(deadline) {
			e.t.Fatalf("the discovery service has not seen %s %s", kind, name)
		}
		time.Sleep(time.Millisecond)
	}
}

func (e *env) delete(plural, name string) {
	e.t.Helper()
	_, err := e.api.Delete(context.Background(), "/apis/xds.kubeplay.dev/v1/"+plural+"/"+name)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, k := range api.XDSKinds {
		if k.Plural == plural {
			e.seen(k.Kind, name, func(r *xds.Resource) bool { return r == nil })
		}
	}
}

func cluster(name string, timeout string) map[string]any {
	return map[string]any{"spec": map[string]any{"name": name, "connectTimeout": timeout}}
}

// feed reads a stream's messages as they come.
type feed[T any] struct {
	t    *testing.T
	ch   chan T
	errc chan error
}

func follow[T any](t *testing.T, next func() (T, error)) *feed[T] {
	f := &feed[T]{t: t, ch: make(chan T, 100), errc: make(chan error, 1)}
	go func() {
		for {
			v, err := next()
			if err != nil {
				f.errc <- err
				return
			}
			f.ch <- v
		}
	}()
	return f
}

// next is the next message, within a few seconds.
func (f *feed[T]) next() T {
	f.t.Helper()
	select {
	case v := <-f.ch:
		return v
	case err := <-f.errc:
		f.t.Fatalf("stream ended: %v", err)
	case <-time.After(5 * time.Second):
		f.t.Fatal("nothing within 5s")
	}
	panic("unreachable")
}

// err is how the stream ends, within a few seconds.
func (f *feed[T]) err() error {
	f.t.Helper()
	select {
	case v := <-f.ch:
		f.t.Fatalf("unexpected message: %v", v)
	case err := <-f.errc:
		return err
	case <-time.After(5 * time.Second):
		f.t.Fatal("the stream did not end within 5s")
	}
	panic("unreachable")
}

// quiet checks that nothing comes for a while.
func (f *feed[T]) quiet() {
	f.t.Helper()
	select {
	case v := <-f.ch:
		f.t.Fatalf("unexpected message: %v", v)
	case err := <-f.errc:
		f.t.Fatalf("stream ended: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
}

package xds

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	discovery "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"github.com/envoyproxy/go-control-plane/pkg/cache/types"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	serverv3 "github.com/envoyproxy/go-control-plane/pkg/server/v3"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"kubeplay/core/api"
	"kubeplay/core/object"
)

const (
	benchResources = 10000
	benchStreams   = 100
	clusterTypeURL = "type.googleapis.com/envoy.config.cluster.v3.Cluster"
)

// pusher is a server with benchStreams wildcard CDS streams over
// benchResources clusters: push changes one cluster and returns once every
// stream has received the change and ACKed it.
type pusher interface {
	push(i int)
	bytes() int64 // sent to the streams since the start
	close()
}

// kubeplayPusher drives this package's server, its cache fed as the
// informers feed it.
type kubeplayPusher struct {
	s        *Server
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	acks     []chan string // per stream: the nonce to ACK
	received sync.WaitGroup
	sent     atomic.Int64
	delta    bool
}

func clusterObject(i int, timeout string, rv int) object.Object {
	return object.Object{"apiVersion": "xds.kubeplay.dev/v1", "kind": "Cluster",
		"metadata": map[string]any{"name": fmt.Sprintf("c-%05d", i), "resourceVersion": strconv.Itoa(rv)},
		"spec":     map[string]any{"connectTimeout": timeout, "type": "EDS", "edsClusterConfig": map[string]any{"edsConfig": map[string]any{"ads": map[string]any{}}}}}
}

func (p *kubeplayPusher) set(i int, timeout string, rv int) {
	r, errs := NewResource(api.XDSKinds[2], clusterObject(i, timeout, rv))
	if len(errs) > 0 {
		panic(errs)
	}
	p.s.cache.set("Cluster/"+r.Object, r, r.Version, true)
}

func newKubeplayPusher(b *testing.B, delta bool) *kubeplayPusher {
	p := &kubeplayPusher{s: New(Config{}), delta: delta}
	for i := 0; i < benchResources; i++ {
		p.set(i, "1s", i+1)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	p.received.Add(benchStreams)
	for n := 0; n < benchStreams; n++ {
		acks := make(chan string, 1)
		p.acks = append(p.acks, acks)
		first := true
		next := func() (string, bool, error) {
			if first {
				first = false
				return "", true, nil
			}
			select {
			case nonce := <-acks:
				return nonce, false, nil
			case <-ctx.Done():
				return "", false, io.EOF
			}
		}
		got := func(nonce string, size int) {
			p.sent.Add(int64(size))
			acks <- nonce
			p.received.Done()
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			if delta {
				_ = p.s.StreamDelta(ctx, "", func() (*DeltaRequest, error) {
					nonce, _, err := next()
					return &DeltaRequest{TypeURL: clusterTypeURL, ResponseNonce: nonce}, err
				}, func(r *DeltaResponse) error { got(r.Nonce, len(r.AppendWire(nil))); return nil })
			} else {
				_ = p.s.StreamSotW(ctx, "", func() (*Request, error) {
					nonce, _, err := next()
					return &Request{TypeURL: clusterTypeURL, ResponseNonce: nonce}, err
				}, func(r *Response) error { got(r.Nonce, len(r.AppendWire(nil))); return nil })
			}
		}()
	}
	p.received.Wait()
	return p
}

func (p *kubeplayPusher) push(i int) {
	p.received.Add(benchStreams)
	timeout := "2s"
	if i%2 == 1 {
		timeout = "3s"
	}
	p.set(benchResources/2, timeout, benchResources+1+i)
	p.received.Wait()
}

func (p *kubeplayPusher) bytes() int64 { return p.sent.Load() }

func (p *kubeplayPusher) close() {
	p.cancel()
	p.wg.Wait()
}

// gcpPusher drives go-control-plane's server over its linear cache, its
// responses marshaled as gRPC would.
type gcpPusher struct {
	cache    *cachev3.LinearCache
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	received sync.WaitGroup
	sent     atomic.Int64
}

// fakeStream is an in-process ADS delta stream for go-control-plane's server.
type fakeStream struct {
	ctx  context.Context
	reqs chan *discovery.DeltaDiscoveryRequest
	sent func(*discovery.DeltaDiscoveryResponse)
}

func (f *fakeStream) Send(r *discovery.DeltaDiscoveryResponse) error { f.sent(r); return nil }
func (f *fakeStream) Recv() (*discovery.DeltaDiscoveryRequest, error) {
	select {
	case r := <-f.reqs:
		return r, nil
	case <-f.ctx.Done():
		return nil, io.EOF
	}
}
func (f *fakeStream) SetHeader(metadata.MD) error  { return nil }
func (f *fakeStream) SendHeader(metadata.MD) error { return nil }
func (f *fakeStream) SetTrailer(metadata.MD)       {}
func (f *fakeStream) Context() context.Context     { return f.ctx }
func (f *fakeStream) SendMsg(any) error            { return nil }
func (f *fakeStream) RecvMsg(any) error            { return nil }

func gcpCluster(i int, timeout time.Duration) *clusterv3.Cluster {
	return &clusterv3.Cluster{Name: fmt.Sprintf("c-%05d", i), ConnectTimeout: durationpb.New(timeout),
		ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: clusterv3.Cluster_EDS}}
}

func newGCPPusher(b *testing.B) *gcpPusher {
	initial := make(map[string]types.Resource, benchResources)
	for i := 0; i < benchResources; i++ {
		c := gcpCluster(i, time.Second)
		initial[c.Name] = c
	}
	p := &gcpPusher{cache: cachev3.NewLinearCache(clusterTypeURL, cachev3.WithInitialResources(initial))}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	srv := serverv3.NewServer(ctx, p.cache, nil)
	p.received.Add(benchStreams)
	for n := 0; n < benchStreams; n++ {
		fs := &fakeStream{ctx: ctx, reqs: make(chan *discovery.DeltaDiscoveryRequest, 2)}
		fs.sent = func(r *discovery.DeltaDiscoveryResponse) {
			b, err := proto.Marshal(r)
			if err != nil {
				panic(err)
			}
			p.sent.Add(int64(len(b)))
			fs.reqs <- &discovery.DeltaDiscoveryRequest{TypeUrl: clusterTypeURL, ResponseNonce: r.Nonce}
			p.received.Done()
		}
		fs.reqs <- &discovery.DeltaDiscoveryRequest{TypeUrl: clusterTypeURL, ResourceNamesSubscribe: []string{"*"}}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			_ = srv.DeltaAggregatedResources(fs)
		}()
	}
	p.received.Wait()
	return p
}

func (p *gcpPusher) push(i int) {
	p.received.Add(benchStreams)
	if err := p.cache.UpdateResource(fmt.Sprintf("c-%05d", benchResources/2), gcpCluster(benchResources/2, time.Duration(2+i%2)*time.Second)); err != nil {
		panic(err)
	}
	p.received.Wait()
}

func (p *gcpPusher) bytes() int64 { return p.sent.Load() }

func (p *gcpPusher) close() {
	p.cancel()
	p.wg.Wait()
}

// timePushes is the mean time of n pushes, and the bytes each stream was
// sent per push.
func timePushes(p pusher, n int) (time.Duration, float64) {
	before := p.bytes()
	start := time.Now()
	for i := 0; i < n; i++ {
		p.push(i)
	}
	return time.Since(start) / time.Duration(n), float64(p.bytes()-before) / float64(n) / benchStreams
}

// BenchmarkXDS_PushOneOf10000To100DeltaStreams: one cluster among 10,000
// changes and 100 wildcard delta streams receive it (and ACK). Reported next
// to go-control-plane's server over its linear cache doing the same
// (x-go-control-plane: ours / theirs, goal ≤ 1), and to a state-of-the-world
// push of the same change (sotw-x: how many times a delta push it costs);
// B/client is what each stream is sent per push: O(1), one cluster.
func BenchmarkXDS_PushOneOf10000To100DeltaStreams(b *testing.B) {
	gcp := newGCPPusher(b)
	gcpTime, gcpBytes := timePushes(gcp, 20)
	gcp.close()
	sotw := newKubeplayPusher(b, false)
	sotwTime, _ := timePushes(sotw, 3)
	sotw.close()
	p := newKubeplayPusher(b, true)
	defer p.close()
	before := p.bytes()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		p.push(i)
	}
	per := time.Since(start) / time.Duration(b.N)
	b.StopTimer()
	b.ReportMetric(float64(p.bytes()-before)/float64(b.N)/benchStreams, "B/client")
	b.ReportMetric(gcpBytes, "B/client-go-control-plane")
	b.ReportMetric(float64(per)/float64(gcpTime), "x-go-control-plane")
	b.ReportMetric(float64(sotwTime)/float64(per), "sotw-x")
}

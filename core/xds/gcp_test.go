package xds

import (
	"context"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	discovery "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"github.com/envoyproxy/go-control-plane/pkg/cache/types"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	serverv3 "github.com/envoyproxy/go-control-plane/pkg/server/v3"
	"google.golang.org/protobuf/proto"
)

// deltaStep is what one delta response held: the resources' names and the
// names removed.
type deltaStep struct{ names, removed []string }

func (d deltaStep) String() string { return fmt.Sprintf("resources %v removed %v", d.names, d.removed) }

// deltaScenario drives a delta client through a scenario: subscribe, a
// change, a deletion, an unsubscribe and resubscribe of one name; send and
// recv are the stream, change and remove act on the server's resources.
func deltaScenario(t *testing.T, send func(*discovery.DeltaDiscoveryRequest), recv func() *discovery.DeltaDiscoveryResponse,
	change func(name string), remove func(name string)) []deltaStep {
	var out []deltaStep
	step := func() string {
		r := recv()
		var s deltaStep
		for _, res := range r.Resources {
			s.names = append(s.names, res.Name)
		}
		s.removed = r.RemovedResources
		slices.Sort(s.names)
		slices.Sort(s.removed)
		out = append(out, s)
		return r.Nonce
	}
	ack := func(nonce string) {
		send(&discovery.DeltaDiscoveryRequest{TypeUrl: clusterTypeURL, ResponseNonce: nonce})
	}
	send(&discovery.DeltaDiscoveryRequest{TypeUrl: clusterTypeURL, ResourceNamesSubscribe: []string{"c-00000", "c-00001"}})
	ack(step())
	change("c-00000")
	ack(step())
	remove("c-00001")
	ack(step())
	send(&discovery.DeltaDiscoveryRequest{TypeUrl: clusterTypeURL, ResourceNamesUnsubscribe: []string{"c-00000"}})
	send(&discovery.DeltaDiscoveryRequest{TypeUrl: clusterTypeURL, ResourceNamesSubscribe: []string{"c-00000"}})
	ack(step())
	return out
}

// TestXDS_2_DeltaLikeGoControlPlane: the same delta scenario against this
// server and go-control-plane's (over its linear cache) gets the same
// responses: the subscribed resources, only the changed one, the deleted
// one removed, and an unsubscribed then resubscribed name answered again.
func TestXDS_2_DeltaLikeGoControlPlane(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	recvWithin := func(ch chan *discovery.DeltaDiscoveryResponse) func() *discovery.DeltaDiscoveryResponse {
		return func() *discovery.DeltaDiscoveryResponse {
			select {
			case r := <-ch:
				return r
			case <-time.After(5 * time.Second):
				t.Fatal("no response within 5s")
				return nil
			}
		}
	}

	// go-control-plane
	initial := map[string]types.Resource{}
	for i := 0; i < 3; i++ {
		c := gcpCluster(i, time.Second)
		initial[c.Name] = c
	}
	lc := cachev3.NewLinearCache(clusterTypeURL, cachev3.WithInitialResources(initial))
	gcpOut := make(chan *discovery.DeltaDiscoveryResponse, 10)
	fs := &fakeStream{ctx: ctx, reqs: make(chan *discovery.DeltaDiscoveryRequest, 10), sent: func(r *discovery.DeltaDiscoveryResponse) { gcpOut <- r }}
	go func() { _ = serverv3.NewServer(ctx, lc, nil).DeltaAggregatedResources(fs) }()
	want := deltaScenario(t, func(r *discovery.DeltaDiscoveryRequest) { fs.reqs <- r }, recvWithin(gcpOut),
		func(name string) { _ = lc.UpdateResource(name, gcpCluster(0, 2*time.Second)) },
		func(name string) { _ = lc.DeleteResource(name) })

	// kubeplay
	p := &kubeplayPusher{s: New(Config{})}
	for i := 0; i < 3; i++ {
		p.set(i, "1s", i+1)
	}
	ours := make(chan *discovery.DeltaDiscoveryResponse, 10)
	reqs := make(chan *DeltaRequest, 10)
	go func() {
		_ = p.s.StreamDelta(ctx, "", func() (*DeltaRequest, error) {
			select {
			case r := <-reqs:
				return r, nil
			case <-ctx.Done():
				return nil, io.EOF
			}
		}, func(r *DeltaResponse) error {
			var m discovery.DeltaDiscoveryResponse
			if err := proto.Unmarshal(r.AppendWire(nil), &m); err != nil {
				t.Error(err)
			}
			ours <- &m
			return nil
		})
	}()
	got := deltaScenario(t, func(r *discovery.DeltaDiscoveryRequest) {
		reqs <- &DeltaRequest{TypeURL: r.TypeUrl, Subscribe: r.ResourceNamesSubscribe, Unsubscribe: r.ResourceNamesUnsubscribe, ResponseNonce: r.ResponseNonce}
	}, recvWithin(ours), func(name string) { p.set(0, "2s", 10) }, func(name string) { p.s.cache.set("Cluster/"+name, nil, "11", true) })

	if fmt.Sprint(want) != "[resources [c-00000 c-00001] removed [] resources [c-00000] removed [] resources [] removed [c-00001] resources [c-00000] removed []]" {
		t.Fatalf("go-control-plane's answers changed: %v", want)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("kubeplay:\n%v\ngo-control-plane:\n%v", got, want)
	}
}

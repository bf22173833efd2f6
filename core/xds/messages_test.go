package xds_test

import (
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	discovery "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	rpcstatus "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"kubeplay/core/xds"
	_ "kubeplay/tools/envoytablegen/envoytypes"
)

// seedRequests are DiscoveryRequests and DeltaDiscoveryRequests as clients
// send them.
func seedRequests() []proto.Message {
	return []proto.Message{
		&discovery.DiscoveryRequest{VersionInfo: "7", Node: &corev3.Node{Id: "n", Cluster: "c"}, ResourceNames: []string{"a", "b"},
			TypeUrl: "type.googleapis.com/envoy.config.cluster.v3.Cluster", ResponseNonce: "3", ErrorDetail: &rpcstatus.Status{Code: 3, Message: "no"},
			ResourceLocators: []*discovery.ResourceLocator{{Name: "x", DynamicParameters: map[string]string{"env": "prod"}}}},
		&discovery.DeltaDiscoveryRequest{Node: &corev3.Node{Id: "n"}, TypeUrl: "t", ResourceNamesSubscribe: []string{"a"}, ResourceNamesUnsubscribe: []string{"b"},
			InitialResourceVersions: map[string]string{"a": "1"}, ResponseNonce: "2", ErrorDetail: &rpcstatus.Status{Message: "m"}},
	}
}

// FuzzXDS_DiscoveryRequest: whatever bytes arrive, decoding never panics,
// and what protobuf itself decodes as a DiscoveryRequest decodes to the same
// request here (the fields the server reads).
func FuzzXDS_DiscoveryRequest(f *testing.F) {
	for _, m := range seedRequests() {
		b, _ := proto.Marshal(m)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := xds.DecodeRequest(b)
		_, _ = xds.DecodeDeltaRequest(b)
		var want discovery.DiscoveryRequest
		if proto.Unmarshal(b, &want) != nil {
			return
		}
		if err != nil {
			t.Fatalf("protobuf decodes %v, xds fails: %v", &want, err)
		}
		if got.VersionInfo != want.VersionInfo || got.TypeURL != want.TypeUrl || got.ResponseNonce != want.ResponseNonce ||
			len(got.ResourceNames) != len(want.ResourceNames) || len(got.Locators) != len(want.ResourceLocators) ||
			(want.ErrorDetail != nil) != (got.ErrorDetail != nil) || (want.Node != nil) != (got.Node != nil) ||
			(got.Node != nil && got.Node.ID != want.Node.Id) {
			t.Fatalf("xds %+v, protobuf %v", got, &want)
		}
	})
}

// FuzzXDS_DiscoveryRequestJSON: a JSON request is accepted exactly when
// protojson accepts it, and means the same.
func FuzzXDS_DiscoveryRequestJSON(f *testing.F) {
	for _, m := range seedRequests() {
		b, _ := protojson.Marshal(m)
		f.Add(b)
	}
	f.Add([]byte(`{"resourceNames":"a"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := xds.DecodeDeltaRequestJSON(b)
		_, _ = xds.DecodeRequestJSON(b)
		var want discovery.DeltaDiscoveryRequest
		werr := protojson.Unmarshal(b, &want)
		if werr != nil {
			return // the API's JSON decoder is more lenient with some documents (duplicate keys)
		}
		if err != nil {
			t.Fatalf("protojson accepts, xds: %v", err)
		}
		if got.TypeURL != want.TypeUrl || len(got.Subscribe) != len(want.ResourceNamesSubscribe) || len(got.InitialResourceVersions) != len(want.InitialResourceVersions) {
			t.Fatalf("xds %+v, protojson %v", got, &want)
		}
	})
}

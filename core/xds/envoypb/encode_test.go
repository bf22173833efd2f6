package envoypb_test

import (
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/xds/envoypb"
	_ "kubeplay/tools/envoytablegen/envoytypes"
)

// cases are Envoy resources in proto JSON: valid ones, which Encode must
// turn into the bytes protojson and go-control-plane's types mean, and
// invalid ones, which both must refuse, Encode naming the field.
var cases = []struct {
	name, typ, json string
	errField        string // "" when valid
}{
	{"cluster", "envoy.config.cluster.v3.Cluster", `{"name":"hello","type":"EDS","connectTimeout":"0.25s","edsClusterConfig":{"edsConfig":{"ads":{},"resourceApiVersion":"V3"}},"lbPolicy":"ROUND_ROBIN","circuitBreakers":{"thresholds":[{"maxConnections":100,"maxRequests":"200"}]}}`, ""},
	{"cluster snake_case", "envoy.config.cluster.v3.Cluster", `{"name":"c","connect_timeout":"5s","lb_policy":"RING_HASH","per_connection_buffer_limit_bytes":32768,"metadata":{"filter_metadata":{"a":{"x":1,"y":[true,null,"s",{"z":2.5}]}}}}`, ""},
	{"listener with hcm", "envoy.config.listener.v3.Listener", `{"name":"hello","apiListener":{"apiListener":{"@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager","statPrefix":"s","rds":{"configSource":{"ads":{}},"routeConfigName":"route"},"httpFilters":[{"name":"router","typedConfig":{"@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]}}}`, ""},
	{"route", "envoy.config.route.v3.RouteConfiguration", `{"name":"route","virtualHosts":[{"name":"vh","domains":["*"],"routes":[{"match":{"prefix":"/"},"route":{"cluster":"hello","timeout":"-1.5s"}}]}]}`, ""},
	{"endpoints", "envoy.config.endpoint.v3.ClusterLoadAssignment", `{"clusterName":"hello","endpoints":[{"locality":{"region":"r"},"loadBalancingWeight":3,"lbEndpoints":[{"endpoint":{"address":{"socketAddress":{"address":"127.0.0.1","portValue":8080}}},"healthStatus":"HEALTHY"}]}]}`, ""},
	{"secret", "envoy.extensions.transport_sockets.tls.v3.Secret", `{"name":"s","tlsCertificate":{"certificateChain":{"inlineBytes":"aGVsbG8="},"privateKey":{"inlineString":"k"}}}`, ""},
	{"wrappers and wkt in any", "envoy.config.cluster.v3.Cluster", `{"name":"c","commonLbConfig":{"healthyPanicThreshold":{"value":50}},"typedExtensionProtocolOptions":{"x":{"@type":"type.googleapis.com/google.protobuf.Duration","value":"3s"}},"upstreamConnectionOptions":{"tcpKeepalive":{"keepaliveProbes":"3"}}}`, ""},
	{"enum by number", "envoy.config.cluster.v3.Cluster", `{"name":"c","lbPolicy":2}`, ""},
	{"unknown field", "envoy.config.cluster.v3.Cluster", `{"name":"c","connectTimeout":"1s","nope":1}`, "spec.nope"},
	{"wrong type", "envoy.config.cluster.v3.Cluster", `{"name":5}`, "spec.name"},
	{"bad duration", "envoy.config.cluster.v3.Cluster", `{"connectTimeout":"5"}`, "spec.connectTimeout"},
	{"bad enum", "envoy.config.cluster.v3.Cluster", `{"lbPolicy":"FASTEST"}`, "spec.lbPolicy"},
	{"oneof twice", "envoy.config.cluster.v3.Cluster", `{"type":"EDS","clusterType":{"name":"x"}}`, "spec.clusterType"},
	{"unknown any", "envoy.config.listener.v3.Listener", `{"apiListener":{"apiListener":{"@type":"type.googleapis.com/no.such.Type"}}}`, "spec.apiListener.apiListener.@type"},
	{"nested unknown", "envoy.config.endpoint.v3.ClusterLoadAssignment", `{"endpoints":[{"lbEndpoints":[{"endpoint":{"address":{"socketAddress":{"port":1}}}}]}]}`, "spec.endpoints[0].lbEndpoints[0].endpoint.address.socketAddress.port"},
	{"uint out of range", "envoy.config.endpoint.v3.ClusterLoadAssignment", `{"endpoints":[{"loadBalancingWeight":-1}]}`, "spec.endpoints[0].loadBalancingWeight"},
	{"duplicate names", "envoy.config.cluster.v3.Cluster", `{"lbPolicy":"RANDOM","lb_policy":"RANDOM"}`, "spec.lb_policy"},
}

func TestXDS_ResourceSpecs(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, errs, want, werr := both(t, c.typ, c.json)
			if c.errField == "" {
				if len(errs) > 0 || werr != nil {
					t.Fatalf("valid spec refused: envoypb %v, protojson %v", errs, werr)
				}
				if !same(t, got, want) {
					t.Fatalf("envoypb's bytes mean\n%v\nprotojson's\n%v", got, want)
				}
				return
			}
			if werr == nil {
				t.Fatalf("protojson accepts the invalid spec")
			}
			if len(errs) == 0 || !hasField(errs, c.errField) {
				t.Fatalf("errors %v do not name %s (protojson: %v)", errs, c.errField, werr)
			}
		})
	}
}

// same compares messages as protojson shows them: an Any's bytes differ with
// the order fields are written in, what they mean does not.
func same(t testing.TB, a, b proto.Message) bool {
	if proto.Equal(a, b) {
		return true
	}
	ja, err := protojson.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := protojson.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	va, _ := object.DecodeValue(ja)
	vb, _ := object.DecodeValue(jb)
	return object.Equal(va, vb)
}

func hasField(errs field.ErrorList, f string) bool {
	for _, e := range errs {
		if e.Field == f {
			return true
		}
	}
	return false
}

// both encodes spec with envoypb and decodes the bytes with go-control-plane's
// type, and decodes spec with protojson into the same type.
func both(t testing.TB, typ, spec string) (got proto.Message, errs field.ErrorList, want proto.Message, werr error) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(typ))
	if err != nil {
		t.Fatal(err)
	}
	m := envoypb.Lookup(typ)
	if m == nil {
		t.Fatalf("envoypb does not know %s", typ)
	}
	v, err := object.DecodeValue([]byte(spec))
	if err != nil {
		t.Fatalf("spec is not JSON: %v", err)
	}
	b, errs := m.Encode(nil, v, field.NewPath("spec"))
	got = mt.New().Interface()
	if len(errs) == 0 {
		if err := proto.Unmarshal(b, got); err != nil {
			t.Fatalf("envoypb wrote bytes that do not decode: %v", err)
		}
	}
	want = mt.New().Interface()
	werr = protojson.Unmarshal([]byte(spec), want)
	return got, errs, want, werr
}

// FuzzXDS_ResourceSpecs: whatever JSON a Cluster or Listener spec holds,
// envoypb and protojson agree on accepting it and on what it means.
func FuzzXDS_ResourceSpecs(f *testing.F) {
	for _, c := range cases {
		f.Add(c.typ, c.json)
	}
	f.Fuzz(func(t *testing.T, typ, spec string) {
		if envoypb.Lookup(typ) == nil || !strings.HasPrefix(typ, "envoy.") {
			return
		}
		v, err := object.DecodeValue([]byte(spec))
		if err != nil {
			return
		}
		// As the API stores it: duplicate keys and invalid UTF-8 are the
		// JSON decoder's to judge (fieldValidation), not envoypb's.
		canonical, _ := json.Marshal(v)
		got, errs, want, werr := both(t, typ, string(canonical))
		if (len(errs) == 0) != (werr == nil) {
			t.Fatalf("envoypb errors %v, protojson %v", errs, werr)
		}
		if werr == nil && !same(t, got, want) {
			t.Fatalf("envoypb's bytes mean\n%v\nprotojson's\n%v", got, want)
		}
	})
}

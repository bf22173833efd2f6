package envoypb_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/xds/envoypb"
)

// ruleCases break Envoy's protoc-gen-validate rules: Encode accepts them
// (they are valid protobuf), Validate names the field with
// protoc-gen-validate's reason, and go-control-plane's ValidateAll refuses
// them too.
var ruleCases = []struct {
	name, typ, json string
	field, reason   string
}{
	{"min_len", "envoy.config.endpoint.v3.ClusterLoadAssignment", `{"clusterName":""}`,
		"spec.clusterName", "value length must be at least 1 runes"},
	{"duration gt", "envoy.config.cluster.v3.Cluster", `{"name":"c","connectTimeout":"0s"}`,
		"spec.connectTimeout", "value must be greater than 0s"},
	{"enum defined_only", "envoy.config.cluster.v3.Cluster", `{"name":"c","lbPolicy":99}`,
		"spec.lbPolicy", "value must be one of the defined enum values"},
	{"wrapper gte", "envoy.config.endpoint.v3.ClusterLoadAssignment", `{"clusterName":"c","endpoints":[{"lbEndpoints":[{"loadBalancingWeight":0}]}]}`,
		"spec.endpoints[0].lbEndpoints[0].loadBalancingWeight", "value must be greater than or equal to 1"},
	{"min_items", "envoy.config.route.v3.RouteConfiguration", `{"name":"r","virtualHosts":[{"name":"vh"}]}`,
		"spec.virtualHosts[0].domains", "value must contain at least 1 item(s)"},
	{"required oneof", "envoy.config.route.v3.RouteConfiguration", `{"virtualHosts":[{"name":"vh","domains":["*"],"routes":[{"match":{},"route":{"cluster":"c"}}]}]}`,
		"spec.virtualHosts[0].routes[0].match.pathSpecifier", "value is required"},
	{"required message", "envoy.config.route.v3.RouteConfiguration", `{"virtualHosts":[{"name":"vh","domains":["*"],"routes":[{"route":{"cluster":"c"}}]}]}`,
		"spec.virtualHosts[0].routes[0].match", "value is required"},
	{"header name, strict", "envoy.config.cluster.v3.Cluster", `{"name":"c","upstreamHttpProtocolOptions":{"overrideAutoSniHeader":"bad name"}}`,
		"spec.upstreamHttpProtocolOptions.overrideAutoSniHeader", `value does not match regex pattern "^:?[0-9a-zA-Z!#$%&'*+-.^_|~` + "`" + `]+$"`},
	{"header name, not strict", "envoy.config.route.v3.RouteConfiguration", `{"requestHeadersToRemove":["a\nb"]}`,
		"spec.requestHeadersToRemove[0]", `value does not match regex pattern "^[^\x00\n\r]*$"`},
}

func TestXDS_1_EnvoyRules(t *testing.T) {
	for _, c := range ruleCases {
		t.Run(c.name, func(t *testing.T) {
			got, errs, _, werr := both(t, c.typ, c.json)
			if len(errs) > 0 || werr != nil {
				t.Fatalf("the spec does not encode: envoypb %v, protojson %v", errs, werr)
			}
			wire, _ := proto.Marshal(got)
			verrs := envoypb.Lookup(c.typ).Validate(wire, field.NewPath("spec"))
			found := false
			for _, e := range verrs {
				found = found || e.Field == c.field && strings.HasPrefix(e.Detail, c.reason)
			}
			if !found {
				t.Errorf("Validate: %v, want %s: %s", verrs, c.field, c.reason)
			}
			if pgv := validateAll(got); len(pgv) == 0 {
				t.Errorf("go-control-plane's ValidateAll accepts it")
			}
		})
	}
}

// An Any's message is checked as Envoy checks it when it loads the
// extension (ValidateAll stops at the Any).
func TestXDS_1_EnvoyRulesInsideAny(t *testing.T) {
	spec := `{"name":"l","apiListener":{"apiListener":{"@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager","statPrefix":"","rds":{"configSource":{"ads":{}},"routeConfigName":"r"}}}}`
	got, errs, _, _ := both(t, "envoy.config.listener.v3.Listener", spec)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	wire, _ := proto.Marshal(got)
	verrs := envoypb.Lookup("envoy.config.listener.v3.Listener").Validate(wire, field.NewPath("spec"))
	if len(verrs) != 1 || verrs[0].Field != "spec.apiListener.apiListener.statPrefix" || verrs[0].Detail != "value length must be at least 1 runes" {
		t.Fatalf("Validate: %v", verrs)
	}
}

// TestXDS_1_EnvoyRulesLikeGoControlPlane fills random messages of the five
// resource types (every field that has rules more often than not, with
// values at the rules' edges) and compares Validate's violations with
// go-control-plane's ValidateAll's, field by field and reason by reason.
func TestXDS_1_EnvoyRulesLikeGoControlPlane(t *testing.T) {
	types := []string{
		"envoy.config.listener.v3.Listener", "envoy.config.route.v3.RouteConfiguration",
		"envoy.config.cluster.v3.Cluster", "envoy.config.endpoint.v3.ClusterLoadAssignment",
		"envoy.extensions.transport_sockets.tls.v3.Secret",
	}
	runs := 3000
	if testing.Short() {
		runs = 300
	}
	rng := rand.New(rand.NewPCG(1, 2))
	failing := 0
	for i := 0; i < runs; i++ {
		typ := types[i%len(types)]
		mt, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(typ))
		if err != nil {
			t.Fatal(err)
		}
		m := mt.New()
		fill(rng, m, 0)
		wire, err := proto.Marshal(m.Interface())
		if err != nil {
			t.Fatal(err)
		}
		want := validateAll(m.Interface())
		var got []string
		for _, e := range envoypb.Lookup(typ).Validate(wire, field.NewPath("spec")) {
			reason, _, _ := strings.Cut(e.Detail, ": one of ")
			got = append(got, normPath(strings.TrimPrefix(e.Field, "spec"))+": "+reason)
		}
		sort.Strings(got)
		if len(want) > 0 {
			failing++
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("run %d, %s:\nValidate:\n%s\nValidateAll:\n%s\nmessage: %v", i, typ, strings.Join(got, "\n"), strings.Join(want, "\n"), m.Interface())
		}
	}
	if failing < runs/4 || failing == runs {
		t.Fatalf("%d of %d random messages break a rule: the generator does not reach both sides", failing, runs)
	}
}

// validateAll is go-control-plane's ValidateAll's violations, each as
// "path: reason" with the path normalized.
func validateAll(m proto.Message) []string {
	err := m.(interface{ ValidateAll() error }).ValidateAll()
	var out []string
	var walk func(err error, prefix string)
	walk = func(err error, prefix string) {
		if all, ok := err.(interface{ AllErrors() []error }); ok {
			for _, e := range all.AllErrors() {
				walk(e, prefix)
			}
			return
		}
		ve := err.(interface {
			Field() string
			Reason() string
			Cause() error
		})
		path := prefix + "." + ve.Field()
		if ve.Cause() != nil && ve.Reason() == "embedded message failed validation" {
			walk(ve.Cause(), path)
			return
		}
		out = append(out, normPath(path)+": "+ve.Reason())
	}
	if err != nil {
		walk(err, "")
	}
	sort.Strings(out)
	return out
}

// normPath compares a field.Path (JSON names) with protoc-gen-validate's Go
// names: lower case, no underscores.
func normPath(p string) string {
	return strings.ToLower(strings.ReplaceAll(p, "_", ""))
}

// fill sets random fields of m: a field with rules more often than not,
// values at the rules' usual edges, messages to a bounded depth. Any,
// Struct and Timestamp fields stay unset (ValidateAll does not look into an
// Any; the others declare no rules).
func fill(rng *rand.Rand, m protoreflect.Message, depth int) {
	md := m.Descriptor()
	switch md.FullName() {
	case "google.protobuf.Duration":
		secs := []int64{0, 0, 1, -1, 5, 3600}[rng.IntN(6)]
		nanos := []int64{0, 1, 1000000, 500000000}[rng.IntN(4)]
		if secs < 0 {
			nanos = -nanos
		}
		m.Set(md.Fields().ByName("seconds"), protoreflect.ValueOfInt64(secs))
		m.Set(md.Fields().ByName("nanos"), protoreflect.ValueOfInt32(int32(nanos)))
		return
	}
	fs := md.Fields()
	for i := 0; i < fs.Len(); i++ {
		fd := fs.Get(i)
		if skipped(fd) {
			continue
		}
		p := 0.15
		if envoypb.Lookup(string(md.FullName())).Field(string(fd.Name())).Rules != nil {
			p = 0.6
		}
		if depth > 3 {
			p /= 4
		}
		if rng.Float64() > p {
			continue
		}
		switch {
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			for n := rng.IntN(3); n > 0; n-- {
				v := mp.NewValue()
				if fd.MapValue().Message() != nil {
					fill(rng, v.Message(), depth+1)
				} else {
					v = scalar(rng, fd.MapValue())
				}
				mp.Set(scalar(rng, fd.MapKey()).MapKey(), v)
			}
		case fd.IsList():
			l := m.Mutable(fd).List()
			for n := rng.IntN(3); n > 0; n-- {
				if fd.Message() != nil {
					v := l.NewElement()
					fill(rng, v.Message(), depth+1)
					l.Append(v)
				} else {
					l.Append(scalar(rng, fd))
				}
			}
		case fd.Message() != nil:
			fill(rng, m.Mutable(fd).Message(), depth+1)
		default:
			m.Set(fd, scalar(rng, fd))
		}
	}
}

func skipped(fd protoreflect.FieldDescriptor) bool {
	md := fd.Message()
	if fd.IsMap() {
		md = fd.MapValue().Message()
	}
	if md == nil {
		return false
	}
	switch md.FullName() {
	case "google.protobuf.Any", "google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue", "google.protobuf.Timestamp":
		return true
	}
	return false
}

// scalar is a random value of fd's kind, near the edges rules draw.
func scalar(rng *rand.Rand, fd protoreflect.FieldDescriptor) protoreflect.Value {
	ints := []int64{0, 1, 2, -1, 3, 100, 65535, 65536, 8388609, math.MaxInt32}
	n := ints[rng.IntN(len(ints))]
	switch fd.Kind() {
	case protoreflect.StringKind:
		s := []string{"", "a", "x-y", "bad name", ":path", "héllo", "a\nb", strings.Repeat("z", 300), "127.0.0.1", "*"}
		return protoreflect.ValueOfString(s[rng.IntN(len(s))])
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte(strings.Repeat("b", rng.IntN(3))))
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(rng.IntN(2) == 0)
	case protoreflect.EnumKind:
		vs := fd.Enum().Values()
		if rng.IntN(5) == 0 {
			return protoreflect.ValueOfEnum(protoreflect.EnumNumber(97))
		}
		return protoreflect.ValueOfEnum(vs.Get(rng.IntN(vs.Len())).Number())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(n))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(n)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(n))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(n))
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32([]float64{0, 0.5, 1, 100, -1}[rng.IntN(5)]))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64([]float64{0, 0.5, 1, 100, -1, 101}[rng.IntN(6)])
	}
	panic(fmt.Sprint("no random value for ", fd.Kind()))
}

// FuzzXDS_EnvoyRules: whatever a Cluster or Listener spec holds, a spec
// Encode accepts is judged by Validate as by go-control-plane's ValidateAll
// (the messages of Any fields aside, which only Validate reads).
func FuzzXDS_EnvoyRules(f *testing.F) {
	for _, c := range ruleCases {
		f.Add(c.typ, c.json)
	}
	for _, c := range cases {
		f.Add(c.typ, c.json)
	}
	f.Fuzz(func(t *testing.T, typ, spec string) {
		m := envoypb.Lookup(typ)
		if m == nil || !strings.HasPrefix(typ, "envoy.") || strings.Contains(spec, "@type") {
			return
		}
		v, err := object.DecodeValue([]byte(spec))
		if err != nil {
			return
		}
		wire, errs := m.Encode(nil, v, field.NewPath("spec"))
		mt, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(typ))
		if len(errs) > 0 || err != nil {
			return
		}
		msg := mt.New().Interface()
		if err := proto.Unmarshal(wire, msg); err != nil {
			t.Fatal(err)
		}
		if _, ok := msg.(interface{ ValidateAll() error }); !ok {
			return
		}
		got := m.Validate(wire, field.NewPath("spec"))
		want := validateAll(msg)
		if (len(got) == 0) != (len(want) == 0) {
			t.Fatalf("Validate %v, ValidateAll %v", got, want)
		}
	})
}

// BenchmarkXDS_EnvoyRules: what checking Envoy's rules adds to a write — a
// Cluster with its endpoints and a Listener with an HTTP connection manager
// (whose Any is checked too), Validate's time as a ratio to Encode's, measured
// in the same run.
func BenchmarkXDS_EnvoyRules(b *testing.B) {
	for _, c := range []struct{ typ, spec string }{
		{"envoy.config.cluster.v3.Cluster", `{"name":"web","type":"STATIC","connectTimeout":"1s","lbPolicy":"ROUND_ROBIN","loadAssignment":{"clusterName":"web","endpoints":[{"lbEndpoints":[{"endpoint":{"address":{"socketAddress":{"address":"10.0.0.10","portValue":8080}}}},{"endpoint":{"address":{"socketAddress":{"address":"10.0.0.11","portValue":8080}}}}]}]}}`},
		{"envoy.config.listener.v3.Listener", `{"name":"hello","address":{"socketAddress":{"address":"0.0.0.0","portValue":80}},"filterChains":[{"filters":[{"name":"hcm","typedConfig":{"@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager","statPrefix":"s","rds":{"configSource":{"ads":{}},"routeConfigName":"route"},"httpFilters":[{"name":"router","typedConfig":{"@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]}}]}]}`},
	} {
		m := envoypb.Lookup(c.typ)
		v, err := object.DecodeValue([]byte(c.spec))
		if err != nil {
			b.Fatal(err)
		}
		wire, errs := m.Encode(nil, v, field.NewPath("spec"))
		if len(errs) > 0 {
			b.Fatal(errs)
		}
		if errs := m.Validate(wire, field.NewPath("spec")); len(errs) > 0 {
			b.Fatal(errs)
		}
		b.Run(c.typ[strings.LastIndexByte(c.typ, '.')+1:], func(b *testing.B) {
			start := time.Now()
			for i := 0; i < b.N; i++ {
				m.Encode(nil, v, field.NewPath("spec"))
			}
			encode := time.Since(start)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.Validate(wire, field.NewPath("spec"))
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed())/float64(encode), "validate/encode")
		})
	}
}

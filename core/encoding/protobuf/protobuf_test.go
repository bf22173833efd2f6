package protobuf_test

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	gofuzz "github.com/google/gofuzz"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/kinds"
	"kubeplay/core/object"
	"kubeplay/core/types"
	"kubeplay/internal/kubetypes"
)

// newFuzzer fills typed objects with values that survive kube's own JSON round
// trip: Times at second precision, MicroTimes at microseconds, canonical
// Quantities, consistent IntOrStrings, RawExtension and FieldsV1 holding JSON
// objects (as encoding/json writes them), and no TypeMeta (it travels in the
// envelope, not in the message).
func newFuzzer(seed int64) *gofuzz.Fuzzer {
	unix := func(c gofuzz.Continue) int64 { return c.Int63n(4e9) - 1e9 }
	rawJSON := func(c gofuzz.Continue) []byte {
		m := map[string]any{}
		for i := c.Intn(3); i > 0; i-- {
			var v any
			switch c.Intn(4) {
			case 0:
				v = c.RandString()
			case 1:
				v = c.Int63()
			case 2:
				v = map[string]any{"f:" + c.RandString(): map[string]any{}}
			default:
				v = []any{c.RandBool(), nil}
			}
			m[c.RandString()] = v
		}
		raw, err := json.Marshal(m)
		if err != nil {
			panic(err)
		}
		return raw
	}
	return gofuzz.New().RandSource(rand.NewSource(seed)).NilChance(0.3).NumElements(0, 3).MaxDepth(12).Funcs(
		func(t *metav1.TypeMeta, c gofuzz.Continue) {},
		func(t *metav1.Time, c gofuzz.Continue) {
			if c.Intn(5) > 0 {
				t.Time = time.Unix(unix(c), 0)
			}
		},
		func(t *metav1.MicroTime, c gofuzz.Continue) {
			if c.Intn(5) > 0 {
				t.Time = time.Unix(unix(c), c.Int63n(1e6)*1000)
			}
		},
		func(q *resource.Quantity, c gofuzz.Continue) {
			switch c.Intn(4) {
			case 0:
				*q = *resource.NewQuantity(c.Int63n(1<<40)-1<<39, resource.DecimalSI)
			case 1:
				*q = *resource.NewMilliQuantity(c.Int63n(1e9), resource.DecimalSI)
			case 2:
				*q = *resource.NewQuantity(c.Int63n(1<<20)<<c.Intn(40), resource.BinarySI)
			}
		},
		func(v *intstr.IntOrString, c gofuzz.Continue) {
			if c.RandBool() {
				*v = intstr.FromInt32(c.Int31() - 1<<30)
			} else {
				*v = intstr.FromString(c.RandString())
			}
		},
		func(r *runtime.RawExtension, c gofuzz.Continue) {
			if c.Intn(4) > 0 {
				r.Raw = rawJSON(c)
			}
		},
		func(f *metav1.FieldsV1, c gofuzz.Continue) {
			f.Raw = rawJSON(c)
		},
	)
}

// normalize is v as encoding/json reads JSON into any, for comparing.
func normalize(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func decodeJSON(t *testing.T, data []byte) object.Object {
	t.Helper()
	obj, err := object.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// TestK8S_ENC_3_ByteCompatible checks every kind against k8s.io/api on random
// objects: Marshal of the object's JSON writes exactly gogo's bytes; Unmarshal of
// gogo's bytes (and of two objects' bytes concatenated, which protobuf merges) is
// the JSON of the typed object gogo decodes from them; and the JSON survives
// JSON → protobuf → JSON unchanged.
func TestK8S_ENC_3_ByteCompatible(t *testing.T) {
	for _, k := range kubetypes.All() {
		t.Run(k.APIVersion+"/"+k.Kind, func(t *testing.T) {
			checkByteCompatible(t, k, newFuzzer(int64(len(k.Kind)*7919+len(k.APIVersion))))
		})
	}
}

// TestK8S_ENC_3_ByteCompatibleCRD is TestK8S_ENC_3_ByteCompatible for the
// CustomResourceDefinition and its list: their schemas' own protobuf forms
// (JSON as raw bytes, float64s, the two-form types, maps of schemas).
func TestK8S_ENC_3_ByteCompatibleCRD(t *testing.T) {
	for _, k := range kubetypes.ProtobufOnly() {
		t.Run(k.APIVersion+"/"+k.Kind, func(t *testing.T) {
			f := newFuzzer(int64(len(k.Kind))).MaxDepth(11).Funcs(
				func(j *apiextensionsv1.JSON, c gofuzz.Continue) {
					switch c.Intn(4) {
					case 0:
						j.Raw, _ = json.Marshal(c.RandString())
					case 1:
						j.Raw = []byte(`{"a":[1,true,null],"b":{"c":"d"}}`)
					case 2:
						j.Raw = []byte("12.5")
					}
				},
				func(x *float64, c gofuzz.Continue) {
					*x = []float64{0, 1, -2.5, 1e21, 1e-7, 123456789.125}[c.Intn(6)]
				})
			checkByteCompatible(t, k, f)
		})
	}
}

// checkByteCompatible is TestK8S_ENC_3_ByteCompatible's check of one kind.
func checkByteCompatible(t *testing.T, k kubetypes.Kind, f *gofuzz.Fuzzer) {
	const perKind = 40
	{
		{
			var prev []byte
			for i := 0; i < perKind; i++ {
				fuzzed := k.New()
				if i > 0 { // the first is the empty object
					f.Fuzz(fuzzed)
				}
				// The typed object kube holds after reading the fuzzed object's
				// JSON: a pointer to a zero Time does not survive JSON, a quantity
				// is canonical only once parsed ("3625000" becomes "3625k").
				fuzzedJSON, err := json.Marshal(fuzzed)
				if err != nil {
					t.Fatal(err)
				}
				typed := k.New()
				if err := json.Unmarshal(fuzzedJSON, typed); err != nil {
					t.Fatal(err)
				}
				jsonData, err := json.Marshal(typed)
				if err != nil {
					t.Fatal(err)
				}
				want, err := typed.Marshal()
				if err != nil {
					t.Fatal(err)
				}
				// (1) JSON → protobuf is gogo's Marshal.
				got, err := protobuf.Marshal(nil, k.APIVersion, k.Kind, decodeJSON(t, jsonData))
				if err != nil {
					t.Fatalf("Marshal: %v\nJSON: %s", err, jsonData)
				}
				if !bytes.Equal(got, want) {
					d := 0
					for d < len(got) && d < len(want) && got[d] == want[d] {
						d++
					}
					t.Fatalf("object %d: Marshal differs from gogo at byte %d\n got ...%x\nwant ...%x\nJSON: %s", i, d, got[max(0, d-40):min(len(got), d+40)], want[max(0, d-40):min(len(want), d+40)], jsonData)
				}
				// (2) protobuf → JSON is encoding/json of what gogo's Unmarshal reads.
				decodedTyped := k.New()
				if err := decodedTyped.Unmarshal(want); err != nil {
					t.Fatal(err)
				}
				wantJSON, err := json.Marshal(decodedTyped)
				if err != nil {
					t.Fatal(err)
				}
				obj, err := protobuf.Unmarshal(k.APIVersion, k.Kind, want)
				if err != nil {
					t.Fatalf("Unmarshal: %v", err)
				}
				if g, w := normalize(t, obj), normalize(t, json.RawMessage(wantJSON)); !reflect.DeepEqual(g, w) {
					gotJSON, _ := object.Encode(obj)
					t.Fatalf("object %d: Unmarshal differs from encoding/json\n got %s\nwant %s", i, gotJSON, wantJSON)
				}
				// (2b) Two messages back to back are one merged message (later
				// scalars win, embedded messages merge, lists and maps append);
				// the merge matches gogo's except for RawExtension (WatchEvent),
				// see the package doc.
				if k.Kind != "WatchEvent" {
					merged := append(bytes.Clone(prev), want...)
					mergedTyped := k.New()
					if err := mergedTyped.Unmarshal(merged); err != nil {
						t.Fatal(err)
					}
					mergedObj, err := protobuf.Unmarshal(k.APIVersion, k.Kind, merged)
					if err != nil {
						t.Fatal(err)
					}
					if g, w := normalize(t, mergedObj), normalize(t, mergedTyped); !reflect.DeepEqual(g, w) {
						t.Fatalf("object %d: merged Unmarshal differs from gogo's\n got %v\nwant %v", i, g, w)
					}
				}
				prev = want
				// (3) JSON → protobuf → JSON is the identity.
				again, err := protobuf.Marshal(nil, k.APIVersion, k.Kind, decodeJSON(t, wantJSON))
				if err != nil {
					t.Fatal(err)
				}
				back, err := protobuf.Unmarshal(k.APIVersion, k.Kind, again)
				if err != nil {
					t.Fatal(err)
				}
				if g, w := normalize(t, back), normalize(t, json.RawMessage(wantJSON)); !reflect.DeepEqual(g, w) {
					t.Fatalf("object %d: JSON round trip differs\n got %v\nwant %s", i, g, wantJSON)
				}
			}
		}
	}
}

// TestK8S_ENC_3_Errors checks that bad input is an error naming the field.
func TestK8S_ENC_3_Errors(t *testing.T) {
	marshal := []struct {
		apiVersion, kind, json, want string
	}{
		{"apps/v1", "Deployment", `{"spec":{"replicas":"x"}}`, `spec.replicas: expected an int32, got string "x"`},
		{"apps/v1", "Deployment", `{"spec":{"replicas":1.5}}`, `spec.replicas: expected an int32, got number 1.5`},
		{"apps/v1", "Deployment", `{"spec":{"replicas":4294967296}}`, `spec.replicas: expected an int32`},
		{"v1", "Pod", `{"spec":{"containers":[{"name":"a"},{"ports":[{"containerPort":true}]}]}}`, `spec.containers[1].ports[0].containerPort: expected an int32, got bool`},
		{"v1", "Pod", `{"metadata":{"labels":{"a":1}}}`, `metadata.labels.a: expected a string, got number 1`},
		{"v1", "Pod", `{"metadata":{"creationTimestamp":"yesterday"}}`, `metadata.creationTimestamp: parsing time`},
		{"v1", "Pod", `{"spec":{"volumes":[{"name":"v","hostPath":{"path":7}}]}}`, `spec.volumes[0].hostPath.path: expected a string`},
		{"v1", "Secret", `{"data":{"k":"!!"}}`, `data.k: illegal base64 data`},
		{"v1", "Service", `{"spec":{"ports":[{"targetPort":true}]}}`, `spec.ports[0].targetPort: expected an int32 or a string, got bool`},
		{"v1", "Pod", `{"spec":[]}`, `spec: expected an object, got array`},
		{"v1", "Pod", `{"spec":{"containers":{}}}`, `spec.containers: expected an array, got object`},
		{"v1", "Widget", `{}`, `no protobuf encoding for v1, Kind=Widget`},
	}
	for _, c := range marshal {
		_, err := protobuf.Marshal(nil, c.apiVersion, c.kind, decodeJSON(t, []byte(c.json)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Marshal %s %s: got %v, want an error containing %q", c.kind, c.json, err, c.want)
		}
	}

	unmarshal := []struct {
		kind string
		data []byte
		want string
	}{
		{"Pod", []byte{0x0a}, "unexpected EOF"},
		{"Pod", []byte{0x0a, 0x05, 0x0a}, "unexpected EOF"},
		{"Pod", []byte{0x0a, 0x02, 0x0a, 0x05}, "metadata.name: unexpected EOF"},
		{"Pod", []byte{0x08, 0x01}, "metadata: wrong wire type 0"},
		{"Pod", []byte{0x0a, 0x02, 0x10, 0x01}, "metadata.generateName: wrong wire type 0"},
		{"Pod", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, "overflow"},
		{"Pod", []byte{0x00}, "invalid field number"},
		{"Pod", []byte{0x0c}, "metadata: wrong wire type 4"},
		{"Pod", []byte{0x9c, 0x06}, "end group"},
		{"ConfigMap", append([]byte{0x0a, 0x06, 0x42, 0x04, 0x08, 0x01, 0x10}, 0x80), "metadata.creationTimestamp: unexpected EOF"},
		{"Service", []byte{0x12, 0x08, 0x0a, 0x06, 0x22, 0x04, 0x08, 0x07, 0x10, 0x00}, "spec.ports[0].targetPort: impossible IntOrString.Type"},
		{"Node", []byte{0x1a, 0x0c, 0x0a, 0x0a, 0x0a, 0x01, 0x63, 0x12, 0x05, 0x0a, 0x03, 0x31, 0x6b, 0x6b}, "status.capacity.c: unable to parse quantity's suffix"},
		{"Node", []byte{0x1a, 0x0b, 0x0a, 0x09, 0x0a, 0x01, 0x63, 0x12, 0x04, 0x0a, 0x02, 0x31, 0x78}, "status.capacity.c: quantities must match"},
	}
	for _, c := range unmarshal {
		_, err := protobuf.Unmarshal("v1", c.kind, c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Unmarshal %s %x: got %v, want an error containing %q", c.kind, c.data, err, c.want)
		}
	}
}

// TestK8S_ENC_3_Unknown checks what is dropped: JSON fields the kind does not
// have, and protobuf fields it does not know (which gogo skips).
func TestK8S_ENC_3_Unknown(t *testing.T) {
	obj := decodeJSON(t, []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","bogus":1},"data":{"k":"v"},"extra":[1]}`))
	got, err := protobuf.Marshal(nil, "v1", "ConfigMap", obj)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := (&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Data: map[string]string{"k": "v"}}).Marshal()
	if !bytes.Equal(got, want) {
		t.Fatalf("got %x, want %x", got, want)
	}
	// Field 99 (varint), field 98 (a group) appended: skipped.
	withUnknown := append(bytes.Clone(got), 0x98, 0x06, 0x01, 0x93, 0x06, 0x08, 0x01, 0x94, 0x06)
	back, err := protobuf.Unmarshal("v1", "ConfigMap", withUnknown)
	if err != nil {
		t.Fatal(err)
	}
	if back["data"].(map[string]any)["k"] != "v" {
		t.Fatalf("got %v", back)
	}
}

// TestK8S_ENC_3_ServedKinds checks that every built-in kind the server serves,
// its list, its subresources' kinds and the meta kinds sent with its requests
// have a protobuf encoding, and that CRD-like kinds do not.
func TestK8S_ENC_3_ServedKinds(t *testing.T) {
	for _, r := range kinds.All() {
		if r.Untyped {
			continue // served as JSON, YAML and CBOR only
		}
		gv := r.Version
		if r.Group != "" {
			gv = r.Group + "/" + r.Version
		}
		for _, kind := range []string{r.Kind, r.Kind + "List", "DeleteOptions", "WatchEvent", "Status"} {
			if r.Virtual && kind == r.Kind+"List" {
				continue // a review is never listed
			}
			if !types.Known(gv, kind) {
				t.Errorf("%s %s has no protobuf encoding", gv, kind)
			}
		}
		for _, sub := range r.Subs {
			if sub.Connect {
				continue // its options come in the query, never a body
			}
			sgv := gv
			if sub.Group != "" {
				sgv = sub.Group + "/v1"
			}
			if !types.Known(sgv, sub.Kind) {
				t.Errorf("%s %s (%s/%s) has no protobuf encoding", sgv, sub.Kind, r.Plural, sub.Name)
			}
		}
	}
	for _, k := range [][2]string{{"stable.example.com/v1", "CronTab"}, {"v1", "List"}, {"apps/v1", "Pod"}, {"", "Pod"}} {
		if types.Known(k[0], k[1]) {
			t.Errorf("%s %s should not be supported", k[0], k[1])
		}
	}
}

// TestK8S_ENC_3_LongLengths checks nested lengths of two and three varint bytes,
// where the encoder moves a message it has already written.
func TestK8S_ENC_3_LongLengths(t *testing.T) {
	for _, n := range []int{127, 128, 16383, 16384, 300000} {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "big", Annotations: map[string]string{"a": strings.Repeat("x", n)}},
			Data:       map[string]string{"k": strings.Repeat("y", n)},
		}
		want, err := cm.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		got, err := protobuf.Marshal([]byte("prefix"), "v1", "ConfigMap", jsonForm(t, cm))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Fatalf("%d bytes: Marshal differs from gogo", n)
		}
	}
}

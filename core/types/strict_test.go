package types_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	kcbor "k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/client-go/kubernetes/scheme"
	sjson "sigs.k8s.io/json"

	"kubeplay/core/encoding"
	"kubeplay/core/types"
	"kubeplay/internal/kubetypes"
)

// kube-apiserver's strict serializers, which its handlers decode with for
// fieldValidation=Warn and Strict.
var (
	kubeStrictJSON = kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme.Scheme, scheme.Scheme, kjson.SerializerOptions{Strict: true})
	kubeStrictCBOR = kcbor.NewSerializer(scheme.Scheme, scheme.Scheme, kcbor.Strict(true))
)

// strictSeeds are bodies with unknown and duplicate fields in every kind of
// place: the root, nested structs, inlined structs, lists, maps, values with
// their own decoding, and unknown fields holding more of them.
var strictSeeds = []struct{ kind, body string }{
	{"ConfigMap", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","foo":1,"labels":{"a":"1","a":"2"},"name":"b"},"data":{"x":"1"},"zzz":{"q":1},"aaa":2,"data":{"y":"2"}}`},
	{"ConfigMap", `{"kind":"ConfigMap","kind":"ConfigMap","apiVersion":"v1","apiVersion":"v1","Metadata":{},"metadata":{}}`},
	{"ConfigMap", `{"zzz":1,"zzz":2,"metadata":{"labels":{"a":"1"},"labels":{"a":"2","b":"3","b":"4"}}}`},
	{"ConfigMap", `{"metadata":{"managedFields":[{"manager":"m","fieldsV1":{"f:a":{},"f:a":{}},"extra":1},{"manager":"m","manager":"n"}]}}`},
	{"ConfigMap", `{"metadata":{"creationTimestamp":"2024-01-01T00:00:00Z","creationTimestamp":null,"ownerReferences":[{"uid":"u","bogus":{"deep":{"deeper":1}}}]}}`},
	{"ConfigMap", `{"binaryData":{"k":"AA==","k":"AQ=="},"data":{"a.b":"x","a.b":"y","[0]":"z","[0]":"w"}}`},
	{"Pod", `{"spec":{"containers":[{"name":"a","image":"i","foo":1,"ports":[{"containerPort":80,"bar":2}],"resources":{"limits":{"cpu":"1","cpu":"2"}}},{"name":"b","name":"c"}],"nodeSelector":{"k":"v","k":"w"},"volumes":[{"name":"v","configMap":{"name":"cm","items":[{"key":"k","path":"p","x":1}]},"emptyDir":{},"emptyDir":{}}]}}`},
	{"Pod", `{"spec":{"containers":[{"livenessProbe":{"exec":{"command":["a"],"cmd":1},"httpGet":{"port":80,"port":"http","host":"h","hots":"x"}}}],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"In","values":["a"],"value":"a"}]}]}}}},"status":{"phase":"Running","phase":"Pending","foo":[]}}`},
	{"Deployment", `{"spec":{"replicas":1,"replica":2,"template":{"metadata":{"labels":{"app":"x"},"label":{}},"spec":{"containers":[{"name":"c","env":[{"name":"A","valueFrom":{"fieldRef":{"fieldPath":"x","path":"y"}}}]}]}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxSurge":"25%","surge":1}}}}`},
	{"Service", `{"spec":{"ports":[{"port":80,"targetPort":"http","targetPort":8080,"nodeport":1}],"selector":{"a":"b"},"selectors":{"a":"b"}}}`},
	{"Secret", `{"data":{"a":"AA=="},"stringData":{"a":"x","a":"y"},"type":"Opaque","typ":"x"}`},
	{"Event", `{"involvedObject":{"kind":"Pod","kind":"Pod","name":"p","nmae":"q"},"series":{"count":1,"lastObservedTime":"2024-01-01T00:00:00.000000Z","x":1},"eventTime":null,"foo":null}`},
	{"Lease", `{"spec":{"holderIdentity":"a","holderIdentity":"b","leaseDurationSeconds":1,"extra":{"a":[1,{"b":2}]}}}`},
	{"Namespace", `{"spec":{"finalizers":["a","a"],"finalizer":[]},"status":{"conditions":[{"type":"x","type":"y","foo":1}]}}`},
	{"Node", `{"spec":{"taints":[{"key":"k","effect":"NoSchedule","value":"v","valu":"w"}],"podCIDRs":["a"],"podCIDR":"b","podCIDR":"c"}}`},
	{"ReplicaSet", `{"spec":{"selector":{"matchLabels":{"a":"b","a":"c"},"matchExpressions":[{"key":"k","operator":"In","foo":1}]}}}`},
	{"ServiceAccount", `{"secrets":[{"name":"s","nmae":"t"}],"imagePullSecrets":[{"name":"a"}],"automountServiceAccountToken":true,"automountServiceAccountToken":false}`},
	{"ConfigMap", `{"metadata":{"annotations":{"a":"1","a":"1"}},` + manyUnknown(130) + `}`},
}

// manyUnknown is n unknown fields, more than the 100 kube reports.
func manyUnknown(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"u%d":%d`, i, i)
	}
	return b.String()
}

// strictTexts runs kube's strict decoder: the texts of its strict errors, or
// ok false when it fails otherwise (a type error, which wins) or the body is
// another kind's.
func strictTexts(d runtime.Decoder, k kubetypes.Kind, data []byte) ([]string, bool) {
	_, skip, err := kubeDecodeWith(d, k, data)
	if skip {
		return nil, false
	}
	if err == nil {
		return nil, true
	}
	strict, ok := runtime.AsStrictDecodingError(err)
	if !ok {
		return nil, false
	}
	var out []string
	for _, e := range strict.Errors() {
		out = append(out, e.Error())
	}
	return out, true
}

func texts(errs []error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// checkStrictJSON compares StrictJSON with kube's strict JSON decoding on a
// body both read.
func checkStrictJSON(t *testing.T, k kubetypes.Kind, data []byte) {
	t.Helper()
	if _, skip, _ := kubeDecode(k, data); skip {
		return
	}
	want, ok := strictTexts(kubeStrictJSON, k, data)
	if _, err := types.DecodeJSON(k.APIVersion, k.Kind, data); !ok || err != nil {
		return // a type error: FuzzK8S_WRITE_5_DecodeJSON compares those
	}
	if got := texts(types.StrictJSON(k.APIVersion, k.Kind, data)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s %s:\n got %q\nwant %q", k.Kind, data, got, want)
	}
}

// TestK8S_WRITE_4_StrictJSONMatchesKube: the unknown and duplicate fields of
// each seed, as kube's strict decoder reports them.
func TestK8S_WRITE_4_StrictJSONMatchesKube(t *testing.T) {
	kinds := kindsByName()
	for _, s := range strictSeeds {
		want, ok := strictTexts(kubeStrictJSON, kinds[s.kind], []byte(s.body))
		if !ok || len(want) == 0 {
			t.Fatalf("seed %s reports no strict errors in kube: %s", s.kind, s.body)
		}
		checkStrictJSON(t, kinds[s.kind], []byte(s.body))
	}
}

// addSeed adds a body for kind to a fuzz target taking (index in kinds, body).
func addSeed(f *testing.F, kinds []kubetypes.Kind, kind string, body []byte) {
	for i, k := range kinds {
		if k.Kind == kind {
			f.Add(uint8(i), body)
		}
	}
}

func kindsByName() map[string]kubetypes.Kind {
	kinds := map[string]kubetypes.Kind{}
	for _, k := range writableKinds() {
		kinds[k.Kind] = k
	}
	return kinds
}

// FuzzK8S_WRITE_4_StrictJSON: for any body both decoders read, StrictJSON
// reports what kube's strict JSON decoding does, in its order.
func FuzzK8S_WRITE_4_StrictJSON(f *testing.F) {
	kinds := writableKinds()
	for _, s := range strictSeeds {
		addSeed(f, kinds, s.kind, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		checkStrictJSON(t, kinds[int(kind)%len(kinds)], data)
	})
}

// TestK8S_WRITE_4_DuplicateJSONFields: the keys given twice in a patch, as
// kube's strict decoding of a patch into a map reports them.
func TestK8S_WRITE_4_DuplicateJSONFields(t *testing.T) {
	for body, want := range map[string]string{
		`{"metadata":{"foo":1,"labels":{"b":"1","b":"2"}},"zzz":1,"data":{"q":"1"},"data":{"r":"2"}}`: `[duplicate field "metadata.labels.b" duplicate field "data"]`,
		`{"a":[{"b":1,"b":2},[{"c":1,"c":1}]],"a":null}`:                                              `[duplicate field "a[0].b" duplicate field "a[1][0].c" duplicate field "a"]`,
		`{"a":1}`: `[]`,
		`null`:    `[]`,
	} {
		if got := fmt.Sprint(texts(types.DuplicateJSONFields([]byte(body)))); got != want {
			t.Errorf("%s: %s, want %s", body, got, want)
		}
	}
}

// checkStrictCBOR compares StrictCBOR with kube's strict CBOR decoding on a
// canonical body both read.
func checkStrictCBOR(t *testing.T, k kubetypes.Kind, data []byte) {
	t.Helper()
	if !plainKeys(data) || !canonical(data) {
		return // kube reports the first unknown key in the order written; kubeplay in canonical order
	}
	if doc, err := encoding.DecodeCBORValue(data); err != nil {
		return
	} else if m, ok := doc.(map[string]any); !ok || named(m["kind"], k.Kind) || named(m["apiVersion"], k.APIVersion) {
		return
	}
	want, ok := strictTexts(kubeStrictCBOR, k, data)
	if _, err := types.DecodeCBOR(k.APIVersion, k.Kind, data); !ok || err != nil {
		return
	}
	var got []string
	if err := types.StrictCBOR(k.APIVersion, k.Kind, data); err != nil {
		got = []string{err.Error()}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s %x:\n got %q\nwant %q", k.Kind, data, got, want)
	}
}

// TestK8S_WRITE_4_StrictCBORMatchesKube: the seeds as canonical CBOR report
// kube's unknown field.
func TestK8S_WRITE_4_StrictCBORMatchesKube(t *testing.T) {
	kinds := kindsByName()
	n := 0
	for _, s := range strictSeeds {
		doc, err := canonicalCBOR(s.body)
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := strictTexts(kubeStrictCBOR, kinds[s.kind], doc); len(want) > 0 {
			n++
		}
		checkStrictCBOR(t, kinds[s.kind], doc)
	}
	if n < 3 {
		t.Fatalf("only %d seeds have unknown fields as CBOR", n)
	}
}

// canonicalCBOR is a JSON body as canonical CBOR (a key given twice, once).
func canonicalCBOR(body string) ([]byte, error) {
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return canonicalMode.Marshal(integers(v))
}

// integers turns the JSON numbers of v into integers (CBOR keeps them apart
// from floats).
func integers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = integers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = integers(e)
		}
	case json.Number:
		n, _ := v.Int64()
		return n
	}
	return v
}

// FuzzK8S_WRITE_4_StrictCBOR: for any canonical body both decoders read,
// StrictCBOR reports kube's unknown field, or nothing as kube.
func FuzzK8S_WRITE_4_StrictCBOR(f *testing.F) {
	kinds := writableKinds()
	for _, s := range strictSeeds {
		doc, err := canonicalCBOR(s.body)
		if err != nil {
			f.Fatal(err)
		}
		addSeed(f, kinds, s.kind, doc)
	}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		checkStrictCBOR(t, kinds[int(kind)%len(kinds)], data)
	})
}

// checkUnknownUnstructured compares UnknownUnstructured with kube's
// unstructured converter on the object a body holds (a key given twice, once).
func checkUnknownUnstructured(t *testing.T, k kubetypes.Kind, body []byte) {
	t.Helper()
	var u map[string]any
	if json.Unmarshal(body, &u) != nil || u == nil {
		return
	}
	doc, _ := json.Marshal(u)
	if _, err := types.DecodeJSON(k.APIVersion, k.Kind, doc); err != nil {
		return
	}
	var want []string
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u, k.New(), true); err != nil {
		strict, ok := runtime.AsStrictDecodingError(err)
		if !ok {
			return // a value the converter cannot hold: the patch's error
		}
		for _, e := range strict.Errors() {
			want = append(want, e.Error())
		}
	}
	if got := texts(types.UnknownUnstructured(k.APIVersion, k.Kind, doc)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s %s:\n got %q\nwant %q", k.Kind, doc, got, want)
	}
}

// TestK8S_WRITE_4_UnknownUnstructuredMatchesKube: the seeds' unknown fields
// as kube's unstructured converter reports them (a strategic merge patch's).
func TestK8S_WRITE_4_UnknownUnstructuredMatchesKube(t *testing.T) {
	kinds := kindsByName()
	for _, s := range strictSeeds {
		checkUnknownUnstructured(t, kinds[s.kind], []byte(s.body))
	}
	checkUnknownUnstructured(t, kinds["Pod"], []byte(`{"spec":{"containers":[{"name":"c","x\"y":1}],"overhead":{"cpu":"1"}},"a\"b":1}`))
}

// FuzzK8S_WRITE_4_UnknownUnstructured: for any object, UnknownUnstructured
// reports what kube's unstructured converter does.
func FuzzK8S_WRITE_4_UnknownUnstructured(f *testing.F) {
	kinds := writableKinds()
	for _, s := range strictSeeds {
		addSeed(f, kinds, s.kind, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		checkUnknownUnstructured(t, kinds[int(kind)%len(kinds)], data)
	})
}

// kubeJSONPatchOp is kube's handlers.jsonPatchOp, which it strictly decodes a
// JSON patch into.
type kubeJSONPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
}

// checkStrictJSONPatch compares StrictJSONPatch with kube's strict decoding of
// a JSON patch.
func checkStrictJSONPatch(t *testing.T, body []byte) {
	t.Helper()
	var ops []kubeJSONPatchOp
	strict, err := sjson.UnmarshalStrict(body, &ops)
	if err != nil {
		return // not a JSON patch: its own 400
	}
	var want []string
	for _, e := range strict {
		want = append(want, "json patch "+e.Error())
	}
	if got := texts(types.StrictJSONPatch(body)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s:\n got %q\nwant %q", body, got, want)
	}
}

var jsonPatchSeeds = []string{
	`[{"op":"add","path":"/data/x","value":"1","valu":2},{"op":"add","path":"/zzz","value":{"a":1,"a":2}},{"op":"add","op":"add","path":"/metadata/foo","value":[{"b":1,"b":1}]}]`,
	`[{"op":"test","path":"/a","value":null,"Value":1,"from":"x","from":"y"},null,{"OP":"x"}]`,
	`[]`,
	`null`,
}

// TestK8S_WRITE_4_StrictJSONPatchMatchesKube: a JSON patch's field errors as
// kube reports them.
func TestK8S_WRITE_4_StrictJSONPatchMatchesKube(t *testing.T) {
	for _, s := range jsonPatchSeeds {
		checkStrictJSONPatch(t, []byte(s))
	}
}

// FuzzK8S_WRITE_4_StrictJSONPatch: for any JSON patch kube decodes,
// StrictJSONPatch reports what kube's strict decoding does.
func FuzzK8S_WRITE_4_StrictJSONPatch(f *testing.F) {
	for _, s := range jsonPatchSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkStrictJSONPatch)
}

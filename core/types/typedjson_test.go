package types_test

import (
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kcbor "k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/client-go/kubernetes/scheme"

	"kubeplay/core/object"
	"kubeplay/core/types"
	"kubeplay/internal/jsontest"
	"kubeplay/internal/kubetypes"
)

// kubeJSON is kube-apiserver's JSON serializer (the one its handlers decode
// request bodies with): kind and apiVersion read with encoding/json, then the
// body decoded into the typed object with sigs.k8s.io/json.
var kubeJSON = kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme.Scheme, scheme.Scheme, kjson.SerializerOptions{})

// writableKinds are the kinds clients write, the ones the differential checks.
func writableKinds() []kubetypes.Kind {
	var out []kubetypes.Kind
	for _, k := range kubetypes.All() {
		switch k.Kind {
		case "Namespace", "Pod", "ConfigMap", "Secret", "Service", "Endpoints", "Node", "Event",
			"ServiceAccount", "Deployment", "ReplicaSet", "Lease":
			out = append(out, k)
		}
	}
	return out
}

// kubeDecode decodes data as kube does for a body sent to k's resource. skip
// says the body names another kind or apiVersion, which the API server checks
// after decoding (and kubeplay too).
func kubeDecode(k kubetypes.Kind, data []byte) (obj any, skip bool, err error) {
	var named struct{ Kind, APIVersion string }
	if json.Unmarshal(data, &named) == nil && (named.Kind != "" && named.Kind != k.Kind || named.APIVersion != "" && named.APIVersion != k.APIVersion) {
		return nil, true, nil
	}
	return kubeDecodeWith(kubeJSON, k, data)
}

// kubeDecodeWith decodes data with one of kube's serializers into k's type
// (skip: the body names another kind).
func kubeDecodeWith(d runtime.Decoder, k kubetypes.Kind, data []byte) (obj any, skip bool, err error) {
	group, version, _ := strings.Cut(k.APIVersion, "/")
	if version == "" {
		group, version = "", group
	}
	into := k.New()
	out, _, err := d.Decode(data, &schema.GroupVersionKind{Group: group, Version: version, Kind: k.Kind}, into.(runtime.Object))
	if err == nil && reflect.TypeOf(out) != reflect.TypeOf(into) {
		return nil, true, nil
	}
	return out, false, err
}

// checkDecodeJSON compares DecodeJSON with kube's serializer on data: both
// reject it with the same message, or both accept it and ours holds the typed
// object kube holds (compared through kube's own JSON of each).
func checkDecodeJSON(t *testing.T, k kubetypes.Kind, data []byte) {
	t.Helper()
	want, skip, wantErr := kubeDecode(k, data)
	if skip {
		return
	}
	got, err := types.DecodeJSON(k.APIVersion, k.Kind, data)
	if wantErr == nil && err != nil && strings.HasSuffix(err.Error(), "into Go value of type float64") {
		// Deliberately stricter than kube: a free-form value kube keeps and
		// then cannot write as CBOR.
		if kubeCBOR.Encode(want.(runtime.Object), io.Discard) == nil {
			t.Fatalf("%s %s: %q, and kube can even serve it", k.Kind, data, err)
		}
		return
	}
	compareWithKube(t, k, string(data), want, wantErr, got, err, true)
}

// compareWithKube checks kubeplay's decoding of a body (shown as body) against
// kube's: both reject it (with the same message, when exact), or both accept
// it and hold the same typed object, compared through kube's own JSON of each.
func compareWithKube(t *testing.T, k kubetypes.Kind, body string, want any, wantErr error, got object.Object, err error, exact bool) {
	t.Helper()
	if wantErr == nil && err != nil && kubeCannotReadBack(k, want, err) {
		return
	}
	switch {
	case wantErr != nil && err == nil:
		t.Fatalf("%s %s: accepted, kube says %q", k.Kind, body, wantErr)
	case wantErr == nil && err != nil:
		t.Fatalf("%s %s: %q, kube accepts it", k.Kind, body, err)
	case wantErr != nil:
		if exact && err.Error() != wantErr.Error() {
			t.Fatalf("%s %s:\n got %q\nwant %q", k.Kind, body, err, wantErr)
		}
		return
	}
	ours, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := kubeDecode(k, ours)
	if err != nil {
		t.Fatalf("%s %s: kube cannot read our result %s: %v", k.Kind, body, ours, err)
	}
	if a, b := asStored(t, k, want), asStored(t, k, again); !reflect.DeepEqual(a, b) {
		t.Fatalf("%s %s: decoded differently\n got %v\nwant %v", k.Kind, body, b, a)
	}
}

// kubeCannotReadBack says err is kubeplay's deliberate refusal of a time RFC
// 3339 cannot write in UTC, and kube, which accepted the body, indeed cannot
// read back the JSON it serves for it.
func kubeCannotReadBack(k kubetypes.Kind, kubeObj any, err error) bool {
	if err.Error() != "Time.MarshalJSON: year outside of range [0,9999]" {
		return false
	}
	doc, jerr := json.Marshal(kubeObj)
	if jerr != nil {
		return true
	}
	_, _, rerr := kubeDecode(k, doc)
	return rerr != nil
}

// kubeCBOR is kube-apiserver's CBOR serializer.
var kubeCBOR = kcbor.NewSerializer(scheme.Scheme, scheme.Scheme)

// asStored is a typed object as kube serves it once stored: through its
// protobuf encoding (a nil []byte comes back empty), in JSON without nulls
// (which JSON cannot tell from absent fields).
func asStored(t *testing.T, k kubetypes.Kind, obj any) any {
	raw, err := obj.(kubetypes.Message).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back := k.New()
	if err := back.Unmarshal(raw); err != nil {
		t.Fatal(err)
	}
	doc, err := json.Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	return jsontest.WithoutNulls(v)
}

// typedJSONSeeds are bodies that reach every rule of kube's typed decoding.
var typedJSONSeeds = []struct{ kind, body string }{
	{"ConfigMap", `{"metadata":{"name":"a"},"data":{"a":1}}`},
	{"ConfigMap", `{"metadata":{"name":"a","labels":{"a":1}},"data":{"b":true}}`},
	{"ConfigMap", `{"data":{"b":true},"metadata":{"name":"a","labels":{"a":1}}}`},
	{"ConfigMap", `{"data":{"a":1},"data":{"a":"x"}}`},
	{"ConfigMap", `{"metadata":{"labels":{"a":"1"},"labels":{"b":"2"},"name":"x","name":null}}`},
	{"ConfigMap", `{"x":1e999999999,"Data":{"a":1},"data":{"a":null},"binaryData":{"a":[1,2,null],"b":"YQ\n==","c":null}}`},
	{"ConfigMap", `{"binaryData":{"a":"!!"}}`},
	{"ConfigMap", `{"binaryData":{"a":[256]}}`},
	{"ConfigMap", `{"binaryData":{"a":["x",{},[]]}}`},
	{"ConfigMap", `{"immutable":"yes","kind":"ConfigMap","apiVersion":"v1"}`},
	{"ConfigMap", `{"metadata":"x"}`},
	{"ConfigMap", `{"metadata":null,"data":null,"immutable":null}`},
	{"ConfigMap", `{"kind":1,"apiVersion":2}`},
	{"ConfigMap", `{"apiVersion":2,"KIND":1}`},
	{"ConfigMap", `{"metadata":{"creationTimestamp":"x"},"kind":[]}`},
	{"ConfigMap", `{"metadata":{"creationTimestamp":"2020-01-01T00:00:00.7+02:00","deletionTimestamp":"0001-01-01T00:00:00Z","generation":-0}}`},
	{"ConfigMap", `{"metadata":{"creationTimestamp":{}}}`},
	{"ConfigMap", `{"metadata":{"uid":true,"finalizers":["a",null],"finalizers":[null,"b"]}}`},
	{"ConfigMap", `{"metadata":{"ownerReferences":[{"controller":"yes"}]}}`},
	{"ConfigMap", `{"metadata":{"managedFields":[{"fieldsV1":{"f:a":1e400}}]}}`},
	{"ConfigMap", `{"metadata":{"managedFields":[{"fieldsV1":{"f:a":{}},"time":"2020-01-01T00:00:00Z"},null]}}`},
	{"ConfigMap", `"text"`},
	{"ConfigMap", `[1]`},
	{"ConfigMap", `null`},
	{"ConfigMap", `{"data":{"a":"b"}} x`},
	{"ConfigMap", `{"data":`},
	{"ConfigMap", `{"data":{"a":"\ud800"}}`},
	{"Deployment", `{"spec":{"replicas":"abc"}}`},
	{"Deployment", `{"spec":{"replicas":1.5}}`},
	{"Deployment", `{"spec":{"replicas":1e400}}`},
	{"Deployment", `{"spec":{"replicas":1e2}}`},
	{"Deployment", `{"spec":{"replicas":2147483648}}`},
	{"Deployment", `{"spec":{"replicas":-0,"paused":"true"}}`},
	{"Deployment", `{"spec":"x"}`},
	{"Deployment", `{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"b"}],"containers":[{"name":"c"},null]}}}}`},
	{"Deployment", `{"spec":{"template":{"spec":{"containers":{}}}}}`},
	{"Deployment", `{"spec":{"template":{"spec":{"containers":[1]}}}}`},
	{"Deployment", `{"spec":{"strategy":{"rollingUpdate":{"maxSurge":true}}}}`},
	{"Deployment", `{"spec":{"strategy":{"rollingUpdate":{"maxSurge":1.5,"maxUnavailable":"25%"}}}}`},
	{"Deployment", `{"spec":{"strategy":{"rollingUpdate":{"maxSurge":null,"maxUnavailable":-0}}}}`},
	{"Pod", `{"spec":{"containers":[{"resources":{"limits":{"cpu":true}}}]}}`},
	{"Pod", `{"spec":{"containers":[{"resources":{"limits":{"cpu":"1\u0030","memory":" 1Gi "}}}]}}`},
	{"Pod", `{"spec":{"containers":[{"resources":{"limits":{"cpu":1e400,"memory":null,"x":0.5}}}]}}`},
	{"Pod", `{"spec":{"containers":[{"command":[1],"resources":{"limits":{"cpu":"abc"}}}]}}`},
	{"Pod", `{"spec":{"restartPolicy":1,"volumes":[{"name":"v","configMap":{"name":1}}]}}`},
	{"Pod", `{"spec":{"volumes":[{"name":"v","hostPath":1}],"activeDeadlineSeconds":9223372036854775808}}`},
	{"Pod", `{"spec":{"containers":[{"livenessProbe":{"httpGet":{"port":{}}}}]}}`},
	{"Pod", `{"spec":{"containers":[{"livenessProbe":{"httpGet":{"port":null}},"ports":[{"containerPort":"80"}]}]}}`},
	{"Pod", `{"status":{"startTime":1}}`},
	{"Pod", `{"status":{"startTime":"0000-01-01T00:00:00+01:00"}}`},
	{"Secret", `{"data":{"a":"YQ"}}`},
	{"Secret", `{"data":{"a":{}},"stringData":{"a":1},"type":1}`},
	{"Event", `{"eventTime":"2024-01-01T00:00:00Z"}`},
	{"Event", `{"eventTime":"2024-01-01T00:00:00.1234567+01:00","series":{"lastObservedTime":null}}`},
	{"Service", `{"spec":{"ports":[{"port":80,"targetPort":"http"},{"targetPort":-1}]}}`},
	{"Lease", `{"spec":{"acquireTime":"x","leaseDurationSeconds":"x"}}`},
	{"Namespace", `{"spec":{"finalizers":[1]},"status":{"phase":1}}`},
}

func TestK8S_WRITE_5_DecodeJSONMatchesKube(t *testing.T) {
	kinds := map[string]kubetypes.Kind{}
	for _, k := range writableKinds() {
		kinds[k.Kind] = k
	}
	for _, s := range typedJSONSeeds {
		checkDecodeJSON(t, kinds[s.kind], []byte(s.body))
	}
}

// FuzzK8S_WRITE_5_DecodeJSON: for any body, DecodeJSON and kube's serializer
// agree on accepting it, on the error's message, and on the object.
func FuzzK8S_WRITE_5_DecodeJSON(f *testing.F) {
	kinds := writableKinds()
	for _, s := range typedJSONSeeds {
		addSeed(f, kinds, s.kind, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		checkDecodeJSON(t, kinds[int(kind)%len(kinds)], data)
	})
}

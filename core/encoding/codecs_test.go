package encoding

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	kubecbor "k8s.io/apimachinery/pkg/runtime/serializer/cbor/direct"

	"kubeplay/core/object"
)

// cborFixtures are objects as kube-apiserver writes them in JSON.
var cborFixtures = []string{
	`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"default","uid":"6f1b","resourceVersion":"12","creationTimestamp":"2026-01-01T00:00:00Z","labels":{"app":"web"}},"data":{"k":"v","empty":""},"binaryData":{"blob":"AAEC/w=="}}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","creationTimestamp":null},"spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{"limits":{"cpu":"500m","memory":"128Mi"}}}],"terminationGracePeriodSeconds":30,"priority":-5},"status":{"phase":"Pending","conditions":[]}}`,
	`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","generation":9007199254740993},"spec":{"replicas":3,"paused":false,"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},"selector":null},"status":{"ratio":0.25,"big":9223372036854775807}}`,
}

func TestK8S_ENC_4_CBORRoundTrip(t *testing.T) {
	for _, fx := range cborFixtures {
		obj, err := object.Decode([]byte(fx))
		if err != nil {
			t.Fatal(err)
		}
		data, err := AppendCBOR(nil, obj)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, SelfDescribedCBOR) {
			t.Fatal("no self-described tag")
		}
		back, err := DecodeCBOR(data)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, obj) {
			t.Errorf("JSON → CBOR → JSON changed the object:\n was %v\n now %v", obj, back)
		}
		// kube's own CBOR decoder reads what we write to the same values.
		var kube any
		if err := kubecbor.Unmarshal(data, &kube); err != nil {
			t.Fatalf("kube's decoder: %v", err)
		}
		dec := json.NewDecoder(strings.NewReader(fx))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(t, kube, want) {
			t.Errorf("kube reads %v, want %v", kube, want)
		}
	}
}

// jsonEqual compares values through their JSON form (numbers by value).
func jsonEqual(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, _ := json.Marshal(b)
	var x, y any
	dx, dy := json.NewDecoder(bytes.NewReader(ja)), json.NewDecoder(bytes.NewReader(jb))
	dx.UseNumber()
	dy.UseNumber()
	_ = dx.Decode(&x)
	_ = dy.Decode(&y)
	return reflect.DeepEqual(x, y)
}

func TestK8S_ENC_4_CBORRejects(t *testing.T) {
	for name, data := range map[string][]byte{
		"duplicate keys":   {0xa2, 0x41, 'a', 0x01, 0x41, 'a', 0x02},
		"truncated":        {0xd9, 0xd9, 0xf7, 0xa1, 0x61},
		"not a map":        {0x83, 0x01, 0x02, 0x03},
		"NaN":              {0xa1, 0x41, 'n', 0xf9, 0x7e, 0x00},
		"invalid UTF-8":    {0xa1, 0x61, 'k', 0x61, 0xff},
		"undefined simple": {0xa1, 0x41, 'k', 0xf7},
		"trailing bytes":   {0xa0, 0x00},
		"bignum":           {0xa1, 0x41, 'k', 0xc2, 0x41, 0x01},
		"too deep":         append(bytes.Repeat([]byte{0xa1, 0x41, 'k'}, 70), 0x01),
	} {
		if _, err := DecodeCBOR(data); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzDecodeCBOR(f *testing.F) {
	for _, fx := range cborFixtures {
		obj, _ := object.Decode([]byte(fx))
		data, _ := AppendCBOR(nil, obj)
		f.Add(data)
	}
	f.Add([]byte{0xa2, 0x41, 'a', 0x01, 0x41, 'a', 0x02})
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := DecodeCBOR(data)
		if err != nil {
			return
		}
		// Whatever decodes is valid JSON form and encodes again.
		if _, err := object.Encode(obj); err != nil {
			t.Fatalf("decoded CBOR does not encode as JSON: %v", err)
		}
		if _, err := AppendCBOR(nil, obj); err != nil {
			t.Fatalf("decoded CBOR does not encode as CBOR: %v", err)
		}
	})
}

func TestK8S_ENC_2_YAMLLimits(t *testing.T) {
	bomb := "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	for c := 'b'; c <= 'i'; c++ {
		p := string(c - 1)
		bomb += string(c) + ": &" + string(c) + " [" + strings.Repeat("*"+p+",", 8) + "*" + p + "]\n"
	}
	if _, err := YAMLToJSON([]byte(bomb)); err == nil || !strings.Contains(err.Error(), "excessive aliasing") {
		t.Fatalf("a billion-laughs document: %v", err)
	}
	got, err := YAMLToJSON([]byte("a: &x {b: 1}\nc: *x\n"))
	if err != nil || string(got) != `{"a":{"b":1},"c":{"b":1}}` {
		t.Fatalf("a small alias: %s %v", got, err)
	}
}

func FuzzYAMLToJSON(f *testing.F) {
	for _, s := range []string{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n", "a: &a [1,2]\nb: *a\n", "- 1\n- [2, {3: 4}]\n", "{"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := YAMLToJSON(data)
		if err != nil {
			return
		}
		if !json.Valid(doc) {
			t.Fatalf("YAMLToJSON produced invalid JSON: %q", doc)
		}
	})
}

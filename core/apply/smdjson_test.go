package apply

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/structured-merge-diff/v4/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v4/value"
)

// structured-merge-diff reads and writes JSON through github.com/json-iterator/go,
// which go.mod replaces with third_party/jsoniter (see its doc). These tests hold
// that replacement to what structured-merge-diff needs of json-iterator's
// ConfigCompatibleWithStandardLibrary: values read as encoding/json reads them
// into interface{} and written as it writes them; FieldsV1 and path elements as
// kube-apiserver 1.32.13 wrote them (the documents below are from its answers).
// They pass with the real json-iterator too (drop the replace directive to see).

// TestK8S_WRITE_2_SMDValuesAsEncodingJSON: value.FromJSON and value.ToJSON.
func TestK8S_WRITE_2_SMDValuesAsEncodingJSON(t *testing.T) {
	for _, doc := range []string{
		`{"a":1,"b":[true,false,null],"c":{"d":"e","f":-1.5e-7}}`,
		`"plain"`, `"esc\"aped\\ \n\t\u00e9 \ud83d\ude00 \/"`, `"<&>"`, `12345678901234567890`, `0`, `-0.5`,
		`[]`, `{}`, ` { "spaced" : [ 1 , 2 ] } `, `null`, `true`,
	} {
		v, err := value.FromJSON([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		var want any
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatal(err)
		}
		if got := v.Unstructured(); !reflect.DeepEqual(got, want) {
			t.Errorf("FromJSON(%s) = %#v, want %#v", doc, got, want)
		}
		out, err := value.ToJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		if marshaled, _ := json.Marshal(want); !bytes.Equal(out, marshaled) {
			t.Errorf("ToJSON(%s) = %s, want %s", doc, out, marshaled)
		}
	}
	// (json-iterator reads a document cut short, `{"a":`, as far as it goes: its
	// end of input is io.EOF, which structured-merge-diff does not count.)
	for _, bad := range []string{`{"a" 1}`, `tru`, `"open`, `{1:2}`, `[1 2]`, `-`} {
		if _, err := value.FromJSON([]byte(bad)); err == nil {
			t.Errorf("FromJSON(%s) read", bad)
		}
	}
	if _, err := value.FromJSON([]byte(strings.Repeat("[", 10001) + strings.Repeat("]", 10001))); err == nil {
		t.Error("10001 nested lists read")
	}
}

// TestK8S_WRITE_2_SMDPathElementsAsKube: path elements read and written back
// exactly, as kube writes them in FieldsV1 keys.
func TestK8S_WRITE_2_SMDPathElementsAsKube(t *testing.T) {
	for _, key := range []string{
		`f:metadata`, `f:kubectl.kubernetes.io/last-applied-configuration`, `f:a"b`,
		`k:{"name":"web"}`, `k:{"containerPort":8080,"protocol":"TCP"}`, `k:{"type":"R\u003e"}`,
		`k:{"ip":"10.0.0.1"}`, `k:{"port":80,"protocol":"TCP"}`,
		`v:"kubernetes"`, `v:1`, `v:true`, `v:null`, `i:3`,
	} {
		pe, err := fieldpath.DeserializePathElement(key)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		back, err := fieldpath.SerializePathElement(pe)
		if err != nil {
			t.Fatal(err)
		}
		if back != key {
			t.Errorf("%s read and written back as %s", key, back)
		}
	}
	for _, bad := range []string{`k:{"name":`, `k:["a"]`, `v:`, `v:{`, `i:x`} {
		if _, err := fieldpath.DeserializePathElement(bad); err == nil && bad != `v:` {
			t.Errorf("%s read", bad)
		}
	}
	// json-iterator reads an empty value as null (its end of input is io.EOF, which
	// structured-merge-diff does not count as an error).
	if pe, err := fieldpath.DeserializePathElement(`v:`); err != nil || pe.Value == nil || !(*pe.Value).IsNull() {
		t.Errorf("v: is %v, %v; want null", pe, err)
	}
}

// TestK8S_WRITE_2_SMDFieldsV1AsKube: FieldsV1 documents from kube's answers
// read into sets and written back byte for byte, in structured-merge-diff's
// order (numbers in keys by value, not as text).
func TestK8S_WRITE_2_SMDFieldsV1AsKube(t *testing.T) {
	for _, doc := range []string{
		`{"f:data":{".":{},"f:a":{},"f:b":{}},"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}`,
		`{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{},"f:resources":{}}},"f:dnsPolicy":{}}}`,
		`{"f:spec":{"f:ports":{".":{},"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{}},"k:{\"port\":443,\"protocol\":\"TCP\"}":{".":{},"f:port":{}}}}}`,
		`{"f:status":{"f:conditions":{"k:{\"type\":\"R\\u003e\"}":{".":{},"f:status":{}}}}}`,
		`{"f:metadata":{"f:finalizers":{".":{},"v:\"kubernetes\"":{}}}}`,
		`{}`,
	} {
		var set fieldpath.Set
		if err := set.FromJSON(strings.NewReader(doc)); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		out, err := set.ToJSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != doc {
			t.Errorf("read and written back:\n%s\nwant\n%s", out, doc)
		}
	}
	for _, bad := range []string{`{"f:a":`, `[]`, `{"k:{bad":{}}`, `{"f:a":1}`, ``} {
		var set fieldpath.Set
		if err := set.FromJSON(strings.NewReader(bad)); err == nil {
			t.Errorf("%q read", bad)
		}
	}
}

package apply

import (
	"encoding/json"
	"math/rand"
	"testing"

	"kubeplay/core/object"
	"kubeplay/core/schema"
)

// Every served kind has its schema and its zero object, and they agree.
func TestEveryServedKindHasASchema(t *testing.T) {
	for _, res := range schema.Builtins() {
		key := res.APIVersion() + "/" + res.Kind
		if _, ok := typeNames[key]; !ok {
			t.Errorf("%s: no type (run go generate in core/apply)", key)
			continue
		}
		pt, err := kindType(res)
		if err != nil {
			t.Fatal(err)
		}
		if !pt.IsValid() {
			t.Errorf("%s: type %s is not in schema.yaml.gz", key, typeNames[key])
		}
		if _, ok := zeroObjects[key]; !ok {
			t.Errorf("%s: no zero object", key)
		}
		if _, err := toTyped(res, zeroObject(res)); err != nil {
			t.Errorf("%s: the zero object does not fit the schema: %v", key, err)
		}
	}
}

// FieldsV1 read and written directly are what structured-merge-diff's own JSON
// reads and writes, for the field sets of fuzzed objects.
func TestK8S_WRITE_2_FieldsV1AsStructuredMergeDiff(t *testing.T) {
	for kind := range diffKinds {
		res := diffKinds[kind].res
		rnd := rand.New(rand.NewSource(int64(kind)))
		f := objectFuzzer(rnd)
		for i := 0; i < 30; i++ {
			tv, err := toTyped(res, fromJSONValue(t, fuzzed(t, kind, f)))
			if err != nil {
				continue // duplicates in a list: no field set
			}
			set, err := tv.ToFieldSet()
			if err != nil {
				t.Fatal(err)
			}
			doc, err := set.ToJSON()
			if err != nil {
				t.Fatal(err)
			}
			want, err := object.DecodeValue(doc)
			if err != nil {
				t.Fatal(err)
			}
			got, err := writeFields(set)
			if err != nil {
				t.Fatal(err)
			}
			if !object.Equal(map[string]any(got), want) {
				t.Fatalf("%s: writeFields\n%s\nToJSON\n%s", res.Kind, mustJSON(got), doc)
			}
			back, err := readFields(got)
			if err != nil {
				t.Fatal(err)
			}
			if !back.Equals(set) {
				t.Fatalf("%s: read back %v, want %v", res.Kind, back, set)
			}
		}
	}
	if _, err := readFields("f:a"); err == nil {
		t.Error("fieldsV1 that is no object was read")
	}
	var bad map[string]any
	_ = json.Unmarshal([]byte(`{"k:{bad":{}}`), &bad)
	if _, err := readFields(bad); err == nil {
		t.Error("a key that is no JSON was read")
	}
}

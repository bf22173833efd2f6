package apply

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/applyconfigurations"

	"kubeplay/core/kinds"
	"kubeplay/core/object"
)

// Every served kind has its schema and its zero object, and they agree.
func TestEveryServedKindHasASchema(t *testing.T) {
	for _, res := range kinds.All() {
		if !res.HasVerb("patch") || res.Untyped || res.ApplyDeduced {
			continue // the create-only reviews; the kinds applies deduce a type of
		}
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

// The schema read from schema.json.gz is client-go's (kube's OpenAPI models as
// structured-merge-diff types), type for type: the generated file is current
// and survives its JSON form.
func TestSchemaIsClientGos(t *testing.T) {
	p, err := parser()
	if err != nil {
		t.Fatal(err)
	}
	resolver := applyconfigurations.NewTypeConverter(runtime.NewScheme()).TypeResolver
	for _, td := range p.Schema.Types {
		pt := resolver.Type(td.Name)
		want, ok := pt.Schema.FindNamedType(td.Name)
		if !ok {
			t.Errorf("%s: not in client-go's schema", td.Name)
			continue
		}
		stringKeys(reflect.ValueOf(&want.Atom))
		// As JSON: Atom.Equals compares a field's elementRelationship by
		// pointer (PersistentVolumeSpec.claimRef's).
		if mustJSON(td.Atom) != mustJSON(want.Atom) {
			t.Errorf("%s differs from client-go's (run go generate in core/apply)", td.Name)
		}
	}
}

// stringKeys gives every default below v (YAML-decoded, with maps keyed by any
// type) string keys, as JSON has them.
func stringKeys(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			stringKeys(v.Elem())
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			stringKeys(v.Index(i))
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			switch f := v.Type().Field(i); {
			case !f.IsExported():
			case f.Name == "Default" && !v.Field(i).IsNil():
				if m, ok := v.Field(i).Interface().(map[any]any); ok {
					out := map[string]any{}
					for k, e := range m {
						out[fmt.Sprint(k)] = e
					}
					v.Field(i).Set(reflect.ValueOf(out))
				}
			default:
				stringKeys(v.Field(i))
			}
		}
	}
}

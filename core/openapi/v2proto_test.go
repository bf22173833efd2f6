package openapi

import (
	"encoding/json"
	"slices"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
)

// TestK8S_URI_2_V2ProtoDefinitions: definitions added to the protobuf v2
// document read, through gnostic's message, as the JSON schemas they were,
// after the built-in ones.
func TestK8S_URI_2_V2ProtoDefinitions(t *testing.T) {
	if err := unpackBuiltins(embeddedDocuments); err != nil {
		t.Fatal(err)
	}
	var def map[string]any
	_ = json.Unmarshal([]byte(`{"description":"A thing","type":"object","required":["spec"],"properties":{
		"spec":{"type":"object","properties":{"size":{"type":"integer","format":"int32","minimum":1,"maximum":9.5},"tags":{"type":"array","items":{"type":"string"},"uniqueItems":true},
		"color":{"type":"string","enum":["red","blue"]},"labels":{"type":"object","additionalProperties":{"type":"string"}},"free":{"x-kubernetes-preserve-unknown-fields":true}}},
		"metadata":{"$ref":"#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta","description":"Standard object's metadata."}},
		"x-kubernetes-group-version-kind":[{"group":"example.com","kind":"Thing","version":"v1"}]}`), &def)
	var doc openapi_v2.Document
	if err := proto.Unmarshal(withProtoDefinitions(builtins.v2Proto, map[string]any{"com.example.v1.Thing": def}), &doc); err != nil {
		t.Fatal(err)
	}
	var builtin openapi_v2.Document
	if err := proto.Unmarshal(builtins.v2Proto, &builtin); err != nil {
		t.Fatal(err)
	}
	named := doc.GetDefinitions().GetAdditionalProperties()
	if len(named) != len(builtin.GetDefinitions().GetAdditionalProperties())+1 || named[len(named)-1].GetName() != "com.example.v1.Thing" {
		t.Fatalf("%d definitions, the last %q", len(named), named[len(named)-1].GetName())
	}
	thing := named[len(named)-1].GetValue()
	props := map[string]*openapi_v2.Schema{}
	for _, p := range thing.GetProperties().GetAdditionalProperties() {
		props[p.GetName()] = p.GetValue()
	}
	spec := map[string]*openapi_v2.Schema{}
	for _, p := range props["spec"].GetProperties().GetAdditionalProperties() {
		spec[p.GetName()] = p.GetValue()
	}
	size, tags, color := spec["size"], spec["tags"], spec["color"]
	switch {
	case thing.GetDescription() != "A thing" || !slices.Equal(thing.GetType().GetValue(), []string{"object"}) || !slices.Equal(thing.GetRequired(), []string{"spec"}):
		t.Errorf("thing: %v", thing)
	case size.GetFormat() != "int32" || size.GetMinimum() != 1 || size.GetMaximum() != 9.5:
		t.Errorf("size: %v", size)
	case tags.GetItems().GetSchema()[0].GetType().GetValue()[0] != "string" || !tags.GetUniqueItems():
		t.Errorf("tags: %v", tags)
	case len(color.GetEnum()) != 2 || color.GetEnum()[1].GetYaml() != "\"blue\"\n":
		t.Errorf("color: %v", color)
	case spec["labels"].GetAdditionalProperties().GetSchema().GetType().GetValue()[0] != "string":
		t.Errorf("labels: %v", spec["labels"])
	case spec["free"].GetVendorExtension()[0].GetName() != "x-kubernetes-preserve-unknown-fields" || spec["free"].GetVendorExtension()[0].GetValue().GetYaml() != "true\n":
		t.Errorf("free: %v", spec["free"])
	case props["metadata"].GetXRef() != "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta":
		t.Errorf("metadata: %v", props["metadata"])
	case thing.GetVendorExtension()[0].GetValue().GetYaml() != `[{"group":"example.com","kind":"Thing","version":"v1"}]`+"\n":
		t.Errorf("group-version-kind: %v", thing.GetVendorExtension())
	}
}

package encoding

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/handlers/negotiation"
)

// kubeMedia are kube-apiserver's serializers for a built-in resource, in its
// order (with CBOR served). Only the fields negotiation reads are set.
var kubeMedia = []runtime.SerializerInfo{
	{MediaType: "application/json", MediaTypeType: "application", MediaTypeSubType: "json", StreamSerializer: &runtime.StreamSerializerInfo{}},
	{MediaType: "application/yaml", MediaTypeType: "application", MediaTypeSubType: "yaml"},
	{MediaType: "application/vnd.kubernetes.protobuf", MediaTypeType: "application", MediaTypeSubType: "vnd.kubernetes.protobuf", StreamSerializer: &runtime.StreamSerializerInfo{}},
	{MediaType: "application/cbor", MediaTypeType: "application", MediaTypeSubType: "cbor", StreamSerializer: &runtime.StreamSerializerInfo{}},
}

// resourceScope restricts conversions as a built-in resource's RequestScope does
// (k8s.io/apiserver/pkg/endpoints/handlers/rest.go).
type resourceScope struct{}

func (resourceScope) AllowsMediaTypeTransform(mimeType, mimeSubType string, gvk *schema.GroupVersionKind) bool {
	if gvk == nil {
		return true
	}
	if gvk.Group != metav1.GroupName || (gvk.Version != "v1" && gvk.Version != "v1beta1") {
		return false
	}
	switch gvk.Kind {
	case "Table":
		return mimeType == "application" && (mimeSubType == "json" || mimeSubType == "yaml")
	case "PartialObjectMetadata", "PartialObjectMetadataList":
		return true
	}
	return false
}
func (resourceScope) AllowsServerVersion(v string) bool { return v == "v1" }
func (resourceScope) AllowsStreamSchema(s string) bool  { return s == "watch" }

// checkAgainstKube compares NegotiateOutput with kube-apiserver's negotiation
// for one Accept header.
func checkAgainstKube(t *testing.T, accept string) {
	t.Helper()
	kube, kubeOK := negotiation.NegotiateMediaTypeOptions(accept, kubeMedia, resourceScope{})
	ours, err := NegotiateOutput(accept, Endpoint{Protobuf: true, Conversions: true})
	if kubeOK != (err == nil) {
		t.Fatalf("Accept %q: kube ok=%v (%s), ours %v", accept, kubeOK, kube.Accepted.MediaType, err)
	}
	if !kubeOK {
		return
	}
	if got := ours.Media.ContentType(); got != kube.Accepted.MediaType {
		t.Fatalf("Accept %q: ours %s, kube %s", accept, got, kube.Accepted.MediaType)
	}
	if (ours.Convert == nil) != (kube.Convert == nil) {
		t.Fatalf("Accept %q: conversion ours %+v, kube %+v", accept, ours.Convert, kube.Convert)
	}
	if c := ours.Convert; c != nil && (c.Kind != kube.Convert.Kind || c.Group != kube.Convert.Group || c.Version != kube.Convert.Version) {
		t.Fatalf("Accept %q: conversion ours %+v, kube %+v", accept, *c, *kube.Convert)
	}
	if ours.Pretty != kube.Pretty {
		t.Fatalf("Accept %q: pretty ours %v, kube %v", accept, ours.Pretty, kube.Pretty)
	}
}

var acceptSeeds = []string{
	"", "*/*", "*", "application/*", "text/html", "application/json", "application/yaml",
	"application/vnd.kubernetes.protobuf, application/json",
	"application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
	"application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/yaml",
	"application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json",
	"application/json;q=0.1, application/cbor", "application/json;q=0, text/plain", "application/json;q=x",
	"application/json;stream=watch", "application/yaml;stream=watch, application/json", "application/json;stream=other",
	"application/json;sv=v1", "application/json;sv=v2, application/yaml", "application/json;pretty=1",
	"application/json;as=Table;g=apps;v=v1, application/cbor", " application/json ; q=0.5 , application/yaml ",
	"application/json;a=b=c", "application/json/x, application/yaml", "application/", "/json", ",,", ";q=1",
	"*/*;q=0.1, application/cbor;q=0.2", "text/*, application/*;q=0.9", "APPLICATION/JSON, application/yaml",
}

func TestK8S_ENC_1_NegotiationMatchesKube(t *testing.T) {
	for _, a := range acceptSeeds {
		checkAgainstKube(t, a)
	}
}

func FuzzNegotiateMatchesKube(f *testing.F) {
	for _, a := range acceptSeeds {
		f.Add(a)
	}
	f.Fuzz(checkAgainstKube)
}

func TestK8S_ENC_1_InputMedia(t *testing.T) {
	for ct, want := range map[string]Media{
		"": JSON, "application/json": JSON, "application/json; charset=utf-8": JSON, "APPLICATION/YAML": YAML,
		"application/vnd.kubernetes.protobuf": Protobuf, "application/cbor": CBOR,
	} {
		if got, err := NegotiateInput(ct, Endpoint{Protobuf: true}); err != nil || got != want {
			t.Errorf("Content-Type %q: %v %v, want %v", ct, got, err, want)
		}
	}
	for _, ct := range []string{"text/plain", "application/vnd.kubernetes.protobuf;stream=watch=x", "application/cbor-seq"} {
		if _, err := NegotiateInput(ct, Endpoint{Protobuf: true}); err == nil {
			t.Errorf("Content-Type %q accepted", ct)
		}
	}
	if _, err := NegotiateInput("application/vnd.kubernetes.protobuf", Endpoint{}); err == nil {
		t.Error("protobuf accepted for a resource without protobuf")
	}
}

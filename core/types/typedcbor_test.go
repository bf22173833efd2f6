package types_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/fxamacker/cbor/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"kubeplay/core/encoding"
	"kubeplay/core/object"
	"kubeplay/core/types"
	"kubeplay/internal/kubetypes"
)

// checkDecodeCBOR compares DecodeCBOR with kube's CBOR serializer on data, as
// checkDecodeJSON does for JSON.
func checkDecodeCBOR(t *testing.T, k kubetypes.Kind, data []byte) {
	t.Helper()
	if doc, err := encoding.DecodeCBORValue(data); err == nil {
		if m, ok := doc.(map[string]any); ok && (named(m["kind"], k.Kind) || named(m["apiVersion"], k.APIVersion)) {
			return // another kind: checked after decoding
		}
	}
	want, skip, wantErr := kubeDecodeWith(kubeCBOR, k, data)
	if skip {
		return
	}
	got, err := types.DecodeCBOR(k.APIVersion, k.Kind, data)
	if !plainKeys(data) {
		return // no encoder of objects writes these; kube's typed and generic decoding differ on them
	}
	doc, docErr := encoding.DecodeCBORValue(data)
	if _, isMap := doc.(map[string]any); docErr == nil && !isMap && doc != nil {
		// Not an object: both reject it, kube naming the CBOR type under any
		// tag (a time tag's number, say) where kubeplay sees the tag's value.
		if wantErr == nil || err == nil {
			t.Fatalf("%s %x: kube says %v, kubeplay %v", k.Kind, data, wantErr, err)
		}
		return
	}
	if docErr != nil {
		// kubeplay reads the whole document first, as kube reads a custom
		// resource's; kube's typed decoding skips what the type does not
		// have (text that is not UTF-8 in an unknown field, say) and checks
		// the rest in another order. So kubeplay may reject more, and word
		// such a rejection otherwise.
		if _, _, err := kubeCBOR.Decode(data, nil, &unstructured.Unstructured{}); err == nil {
			t.Fatalf("%s %x: %q, kube accepts it even as a custom resource", k.Kind, data, docErr)
		}
		if err == nil {
			t.Fatalf("%s %x: accepted what encoding.DecodeCBORValue rejects", k.Kind, data)
		}
		return
	}
	// kube names the first error in the document, kubeplay the first in
	// canonical key order, which every kube client writes.
	compareWithKube(t, k, fmt.Sprintf("%x", data), want, wantErr, got, err, canonical(data))
}

// keysMode decodes any CBOR document keeping map keys and tags as they are.
var keysMode = func() cbor.DecMode {
	m, err := cbor.DecOptions{UnrecognizedTagToAny: cbor.UnrecognizedTagNumAndContentToAny, DupMapKey: cbor.DupMapKeyQuiet}.DecMode()
	if err != nil {
		panic(err)
	}
	return m
}()

// plainKeys says every map key in data is a text or byte string (and data
// can be read without kube's restrictions).
func plainKeys(data []byte) bool {
	var v any
	if keysMode.Unmarshal(data, &v) != nil {
		return false // cannot tell
	}
	var plain func(v any) bool
	plain = func(v any) bool {
		switch v := v.(type) {
		case map[any]any:
			for k, e := range v {
				switch k.(type) {
				case string, cbor.ByteString:
				default:
					return false
				}
				if !plain(e) {
					return false
				}
			}
		case []any:
			for _, e := range v {
				if !plain(e) {
					return false
				}
			}
		case cbor.Tag:
			return plain(v.Content)
		}
		return true
	}
	return plain(v)
}

// canonicalMode writes maps in canonical key order.
var canonicalMode = func() cbor.EncMode {
	m, err := cbor.EncOptions{Sort: cbor.SortCanonical}.EncMode()
	if err != nil {
		panic(err)
	}
	return m
}()

// canonical says data is written as canonical CBOR writes it (so its maps are
// in canonical key order).
func canonical(data []byte) bool {
	var v any
	if keysMode.Unmarshal(data, &v) != nil {
		return false
	}
	again, err := canonicalMode.Marshal(v)
	return err == nil && bytes.Equal(bytes.TrimPrefix(data, []byte{0xd9, 0xd9, 0xf7}), again)
}

// named says v is a string other than want.
func named(v any, want string) bool {
	switch s := v.(type) {
	case string:
		return s != "" && s != want
	case encoding.ByteString:
		return s != "" && string(s) != want
	}
	return false
}

// cborSeeds are the JSON seeds as client-go writes CBOR (strings as byte
// strings), and a few with text strings, which other clients may write.
func cborSeeds(t testing.TB) (kinds []string, docs [][]byte) {
	for _, s := range typedJSONSeeds {
		obj, err := object.Decode([]byte(s.body))
		if err != nil {
			continue
		}
		doc, err := encoding.AppendCBOR(nil, obj)
		if err != nil {
			continue // numbers CBOR cannot hold
		}
		kinds, docs = append(kinds, s.kind), append(docs, doc)
	}
	for _, v := range []map[string]any{
		{"data": map[string]any{"a": "x"}, "binaryData": map[string]any{"b": "YQ=="}},
		{"metadata": map[string]any{"name": 1, "creationTimestamp": "2020-01-01T00:00:00Z"}},
		{"kind": 1, "apiVersion": []any{}},
	} {
		doc, err := canonicalMode.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		kinds, docs = append(kinds, "ConfigMap"), append(docs, doc)
	}
	return kinds, docs
}

func TestK8S_WRITE_5_DecodeCBORMatchesKube(t *testing.T) {
	byKind := map[string]kubetypes.Kind{}
	for _, k := range writableKinds() {
		byKind[k.Kind] = k
	}
	kinds, docs := cborSeeds(t)
	for i, doc := range docs {
		checkDecodeCBOR(t, byKind[kinds[i]], doc)
	}
}

// FuzzK8S_WRITE_5_DecodeCBOR: for any CBOR body, DecodeCBOR and kube's CBOR
// serializer agree on accepting it, on the error's message, and on the object.
func FuzzK8S_WRITE_5_DecodeCBOR(f *testing.F) {
	kinds := writableKinds()
	names, docs := cborSeeds(f)
	for i, doc := range docs {
		for j, k := range kinds {
			if k.Kind == names[i] {
				f.Add(uint8(j), doc)
			}
		}
	}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		checkDecodeCBOR(t, kinds[int(kind)%len(kinds)], data)
	})
}

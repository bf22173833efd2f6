package protobuf_test

import (
	"reflect"
	"testing"

	"kubeplay/core/encoding/protobuf"
)

// roundTrip decodes raw and, when that succeeds, checks that the JSON it gives
// encodes and decodes back to itself. Encoding may fail (a time past year 9999
// formats but does not parse, as with kube's own JSON); panics never happen.
func roundTrip(t *testing.T, apiVersion, kind string, raw []byte) {
	obj, err := protobuf.Unmarshal(apiVersion, kind, raw)
	if err != nil {
		return
	}
	again, err := protobuf.Marshal(nil, apiVersion, kind, obj)
	if err != nil {
		return
	}
	back, err := protobuf.Unmarshal(apiVersion, kind, again)
	if err != nil {
		t.Fatalf("decoding our own encoding %x: %v", again, err)
	}
	if !reflect.DeepEqual(withoutNulls(back), withoutNulls(obj)) {
		t.Fatalf("round trip changed the object\n got %v\nwant %v", back, obj)
	}
}

// withoutNulls drops null fields: a pointer to a zero Time decodes as null and,
// JSON having no other way to say it, encodes as no pointer at all (in kube too).
func withoutNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			if e != nil {
				out[k] = withoutNulls(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = withoutNulls(e)
		}
		return out
	}
	return v
}

// FuzzProtobufEnvelope feeds request bodies: anything that is not an envelope of
// a supported kind is an error, never a panic.
func FuzzProtobufEnvelope(f *testing.F) {
	f.Add([]byte("k8s\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		apiVersion, kind, raw, err := protobuf.ParseEnvelope(data)
		if err != nil || !protobuf.Supported(apiVersion, kind) {
			return
		}
		roundTrip(t, apiVersion, kind, raw)
	})
}

// FuzzUnmarshal feeds messages of every supported kind.
func FuzzUnmarshal(f *testing.F) {
	kinds := kindsUnderTest()
	f.Add(uint8(0), []byte{0x0a, 0x00})
	f.Fuzz(func(t *testing.T, k uint8, raw []byte) {
		kind := kinds[int(k)%len(kinds)]
		roundTrip(t, kind.apiVersion, kind.kind, raw)
	})
}

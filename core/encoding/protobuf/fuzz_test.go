package protobuf_test

import (
	"reflect"
	"testing"

	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/types"
	"kubeplay/internal/jsontest"
	"kubeplay/internal/kubetypes"
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
	if !reflect.DeepEqual(jsontest.WithoutNulls(back), jsontest.WithoutNulls(obj)) {
		t.Fatalf("round trip changed the object\n got %v\nwant %v", back, obj)
	}
}

// FuzzProtobufEnvelope feeds request bodies: anything that is not an envelope of
// a supported kind is an error, never a panic.
func FuzzProtobufEnvelope(f *testing.F) {
	f.Add([]byte("k8s\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		apiVersion, kind, raw, err := protobuf.ParseEnvelope(data)
		if err != nil || !types.Known(apiVersion, kind) {
			return
		}
		roundTrip(t, apiVersion, kind, raw)
	})
}

// FuzzUnmarshal feeds messages of every supported kind.
func FuzzUnmarshal(f *testing.F) {
	kinds := kubetypes.All()
	f.Add(uint8(0), []byte{0x0a, 0x00})
	f.Fuzz(func(t *testing.T, k uint8, raw []byte) {
		kind := kinds[int(k)%len(kinds)]
		roundTrip(t, kind.APIVersion, kind.Kind, raw)
	})
}

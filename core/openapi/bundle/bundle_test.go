package bundle

import (
	"bytes"
	"math/rand"
	"testing"
)

func TestPackUnpack(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	random := make([]byte, 5000)
	rng.Read(random)
	repeated := bytes.Repeat([]byte("description: the same words again; "), 200)
	for _, docs := range [][][]byte{
		nil,
		{{}},
		{[]byte("a")},
		{random},
		{repeated, random, repeated[7:], random[100:3000]},
		{[]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), {}, []byte("b")},
	} {
		packed := Pack(docs)
		got, err := Unpack(packed, sizes(docs))
		if err != nil {
			t.Fatal(err)
		}
		for i := range docs {
			if !bytes.Equal(got[i], docs[i]) {
				t.Fatalf("document %d changed", i)
			}
		}
	}
	// Long repeats cost next to nothing.
	one := Pack([][]byte{random})
	two := Pack([][]byte{random, random})
	if len(two)-len(one) > 64 {
		t.Fatalf("a repeated document added %d bytes", len(two)-len(one))
	}
}

func sizes(docs [][]byte) []int {
	out := make([]int, len(docs))
	for i, d := range docs {
		out[i] = len(d)
	}
	return out
}

// FuzzUnpack: Unpack never panics or returns the wrong sizes, whatever the
// stream, and what Pack writes unpacks to what it packed.
func FuzzUnpack(f *testing.F) {
	f.Add([]byte("one document, then one that repeats it: one document, then one that repeats it"), 40)
	f.Add([]byte{}, 0)
	f.Add(bytes.Repeat([]byte{0}, 100), 50)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		if cut < 0 || cut > len(data) {
			cut = len(data) / 2
		}
		docs := [][]byte{data[:cut], data[cut:]}
		got, err := Unpack(Pack(docs), sizes(docs))
		if err != nil || !bytes.Equal(got[0], docs[0]) || !bytes.Equal(got[1], docs[1]) {
			t.Fatalf("round trip: %v", err)
		}
		// The same bytes as a stream: an error or documents of the asked sizes.
		if got, err := Unpack(data, []int{cut, 10}); err == nil && (len(got[0]) != cut || len(got[1]) != 10) {
			t.Fatalf("unpacked the wrong sizes")
		}
	})
}

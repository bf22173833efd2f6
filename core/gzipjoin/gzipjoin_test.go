package gzipjoin

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// join writes parts into one member: even-numbered ones as segments
// (compressed first, as a cache keeps them), odd ones as they are.
func join(t testing.TB, parts [][]byte) []byte {
	t.Helper()
	var out bytes.Buffer
	z := NewWriter(&out)
	for i, p := range parts {
		if i%2 == 0 {
			if err := z.WriteSegment(Compress(p), p); err != nil {
				t.Fatal(err)
			}
		} else if _, err := z.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// readBack reads a gzip stream as one member, as any client would.
func readBack(t testing.TB, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("gzip header: %v", err)
	}
	zr.Multistream(false)
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gzip read: %v", err)
	}
	if err := zr.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := zr.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("more after the member: %v", err)
	}
	return got
}

// TestK8S_ENC_6_GzipJoin: segments and stored bytes in any order, including
// empty ones and pieces over a stored block's 64 KiB, read back as the
// bytes they hold.
func TestK8S_ENC_6_GzipJoin(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func() []byte {
		b := make([]byte, r.IntN(3000))
		for i := range b {
			b[i] = "abc{}\":,xyz"[r.IntN(11)]
		}
		return b
	}
	for run := range 50 {
		var parts [][]byte
		for range r.IntN(20) {
			parts = append(parts, word())
		}
		if run%10 == 0 {
			parts = append(parts, bytes.Repeat([]byte("z"), 200_000), bytes.Repeat([]byte("q"), 140_000))
		}
		want := bytes.Join(parts, nil)
		if got := readBack(t, join(t, parts)); !bytes.Equal(got, want) {
			t.Fatalf("run %d: read %d bytes back, want %d", run, len(got), len(want))
		}
	}
}

// TestK8S_ENC_6_GzipJoinDamagedSegment: a segment damaged after it was made is
// never sent; its bytes are compressed afresh.
func TestK8S_ENC_6_GzipJoinDamagedSegment(t *testing.T) {
	a, b := []byte(strings.Repeat(`{"kind":"ConfigMap"},`, 100)), []byte(`{"last":true}`)
	seg := Compress(a)
	if !seg.Intact() {
		t.Fatal("a new segment is not intact")
	}
	seg.deflate = bytes.Clone(seg.deflate)
	seg.deflate[len(seg.deflate)/2] ^= 0x10
	if seg.Intact() {
		t.Fatal("a flipped bit went unseen")
	}
	var out bytes.Buffer
	z := NewWriter(&out)
	_ = z.WriteSegment(seg, a)
	_ = z.WriteSegment(Segment{}, b) // never made
	_ = z.WriteSegment(Compress([]byte("other bytes")), b)
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if z.Refreshed != 3 {
		t.Errorf("%d segments compressed afresh, want 3", z.Refreshed)
	}
	if got := readBack(t, out.Bytes()); string(got) != string(a)+string(b)+string(b) {
		t.Errorf("read back %q", got)
	}
}

// FuzzJoin: any bytes, cut anywhere into segments and stored pieces, read
// back exactly through compress/gzip.
func FuzzJoin(f *testing.F) {
	f.Add([]byte(`{"kind":"ConfigMapList","items":[{"a":1},{"b":2}]}`), uint64(7))
	f.Add([]byte{}, uint64(0))
	f.Add(bytes.Repeat([]byte{0}, 70000), uint64(3))
	f.Fuzz(func(t *testing.T, b []byte, cuts uint64) {
		var parts [][]byte
		r := rand.New(rand.NewPCG(cuts, 0))
		for rest := b; ; {
			if len(rest) == 0 || r.IntN(4) == 0 {
				parts = append(parts, rest)
				break
			}
			k := r.IntN(len(rest) + 1)
			parts = append(parts, rest[:k])
			rest = rest[k:]
		}
		if got := readBack(t, join(t, parts)); !bytes.Equal(got, b) {
			t.Fatalf("read %d bytes back, want %d", len(got), len(b))
		}
	})
}

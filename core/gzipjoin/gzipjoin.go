// Package gzipjoin owns gzip streams stitched from pieces compressed
// once: a list served with gzip is made of its items' compressed segments,
// each compressed when first asked for and kept, so the same bytes are
// never compressed twice (kube-apiserver compresses every large answer
// afresh).
//
// A Segment is bytes deflated on their own (RFC 1951) at gzip's best speed,
// as kube compresses, and ended with a sync flush: its blocks are not final
// and it ends on a byte boundary, so segments written one after another
// are one valid deflate stream. A Writer frames them as one gzip member
// (RFC 1952): the header, the segments and any bytes written as they are
// (stored blocks: a list's head and tail), a final empty block, and the
// CRC-32 and length of everything it holds, computed from the uncompressed
// bytes as they are written. Any gzip reader reads the whole.
//
// The package also holds when kube-apiserver compresses at all: for a
// client whose Accept-Encoding has a "gzip" token (Accepts), an answer over
// Threshold bytes.
//
// A segment keeps a CRC-32C of its compressed bytes. A Writer checks it
// before sending them: a segment damaged since it was made is never sent,
// its bytes are compressed afresh instead.
package gzipjoin

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"io"
	"strings"
	"sync"
)

// Level is kube-apiserver's gzip level for its answers: best speed.
const Level = flate.BestSpeed

// Threshold is the size above which kube-apiserver compresses an answer for
// a client that takes gzip.
const Threshold = 128 << 10

// Accepts reads an Accept-Encoding header as kube-apiserver does: a
// "gzip" token, nothing else (gzip;q=0, x-gzip or br alone get identity
// bytes).
func Accepts(acceptEncoding string) bool {
	for tok := range strings.SplitSeq(acceptEncoding, ",") {
		if strings.TrimSpace(tok) == "gzip" {
			return true
		}
	}
	return false
}

// Segment is bytes compressed on their own, ready to be joined.
type Segment struct {
	deflate []byte // non-final deflate blocks ending on a byte boundary
	sum     uint32 // CRC-32C of deflate
	n       int    // how many bytes it holds uncompressed
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// compressor is a deflate writer at Level and the buffer it writes into,
// reused: making a writer costs hundreds of kilobytes.
type compressor struct {
	w   *flate.Writer
	buf bytes.Buffer
}

var compressors = sync.Pool{New: func() any {
	c := &compressor{}
	c.w, _ = flate.NewWriter(&c.buf, Level)
	return c
}}

// Compress is the segment of the concatenation of pieces. Its bytes are
// held at their size, as a cache keeps them.
func Compress(pieces ...[]byte) Segment {
	c := compressors.Get().(*compressor)
	defer compressors.Put(c)
	c.buf.Reset()
	c.w.Reset(&c.buf)
	n := 0
	for _, p := range pieces {
		n += len(p)
		_, _ = c.w.Write(p) // a bytes.Buffer does not fail
	}
	_ = c.w.Flush() // a sync flush: the blocks end byte-aligned, none final
	b := bytes.Clone(c.buf.Bytes())
	return Segment{deflate: b, sum: crc32.Checksum(b, castagnoli), n: n}
}

// Size is how many bytes it takes compressed.
func (s Segment) Size() int { return len(s.deflate) }

// Intact says whether the segment's compressed bytes are those it was made
// with.
func (s Segment) Intact() bool {
	return s.deflate != nil && crc32.Checksum(s.deflate, castagnoli) == s.sum
}

// storedMax is the most a stored block holds.
const storedMax = 65535

// header is a gzip member's header: deflate, no name or time, extra flags
// 4 (the fastest compression, as Go's gzip writer marks BestSpeed), an
// unknown operating system.
var header = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255}

// finalBlock is an empty final block of fixed Huffman codes: its bit, the
// block type, and the end-of-block code.
var finalBlock = []byte{0x03, 0x00}

// Writer writes one gzip member to w from segments and bytes as they are.
type Writer struct {
	w    io.Writer
	crc  uint32 // CRC-32 (IEEE) of what it holds uncompressed
	size uint32 // its length, modulo 2^32 as gzip keeps it
	err  error
	// Refreshed counts the segments found damaged and compressed afresh.
	Refreshed int
}

// NewWriter starts a gzip member on w.
func NewWriter(w io.Writer) *Writer {
	z := &Writer{w: w}
	_, z.err = w.Write(header)
	return z
}

func (z *Writer) write(p []byte) {
	if z.err == nil {
		_, z.err = z.w.Write(p)
	}
}

// plain adds uncompressed bytes to the member's checksum and length.
func (z *Writer) plain(pieces ...[]byte) {
	for _, p := range pieces {
		z.crc = crc32.Update(z.crc, crc32.IEEETable, p)
		z.size += uint32(len(p))
	}
}

// WriteSegment writes seg, which holds the concatenation of pieces. A
// segment whose checksum fails is not written: pieces are compressed
// afresh in its place.
func (z *Writer) WriteSegment(seg Segment, pieces ...[]byte) error {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	if !seg.Intact() || seg.n != n {
		seg = Compress(pieces...)
		z.Refreshed++
	}
	z.plain(pieces...)
	z.write(seg.deflate)
	return z.err
}

// Write writes p as it is, in stored blocks: for the few bytes around the
// segments (a list's head and tail), which compressing would not shrink.
func (z *Writer) Write(p []byte) (int, error) {
	z.plain(p)
	n := len(p)
	for len(p) > 0 && z.err == nil {
		k := min(len(p), storedMax)
		var h [5]byte // not final, stored; byte-aligned already
		binary.LittleEndian.PutUint16(h[1:], uint16(k))
		binary.LittleEndian.PutUint16(h[3:], ^uint16(k))
		z.write(h[:])
		z.write(p[:k])
		p = p[k:]
	}
	if z.err != nil {
		return 0, z.err
	}
	return n, nil
}

// Close ends the member: a final empty block, then the checksum and length.
func (z *Writer) Close() error {
	var t [8]byte
	binary.LittleEndian.PutUint32(t[:4], z.crc)
	binary.LittleEndian.PutUint32(t[4:], z.size)
	z.write(finalBlock)
	z.write(t[:])
	return z.err
}

// WriteList writes to w one member of head, n items and tail (head and
// tail as they are): item i is a lead and a body (a list's comma or a
// protobuf field's head, then the item's bytes) and the segment that holds
// the two. It stops at w's first error.
func WriteList(w io.Writer, head, tail []byte, n int, item func(i int) (seg Segment, lead, body []byte)) error {
	z := NewWriter(w)
	_, _ = z.Write(head)
	for i := range n {
		seg, lead, body := item(i)
		if z.WriteSegment(seg, lead, body) != nil {
			return z.err
		}
	}
	_, _ = z.Write(tail)
	return z.Close()
}

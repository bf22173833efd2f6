package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
)

// Everything the store makes durable (each commit's journal record, the parts of a
// snapshot) is written as a frame, so that damage anywhere in a host's storage is
// found, stays confined to the frame it hit, and never hides the frames after it;
// and so that replay can prove where each frame belongs (replay.go):
//
//	magic    4 bytes  "kpf" 0x02
//	kind     1 byte   frameJournal, frameLegacy, frameSnapshotHead, …Part, …End
//	rev      8 bytes  the store's revision once the frame is applied
//	length   4 bytes  of the payload
//	sum      4 bytes  CRC-32C of the payload
//	store    8 bytes  the identity of the store that wrote it, drawn at random
//	                  when the store was created
//	seq      8 bytes  its place in the store's journal: one more than the frame
//	                  journaled before it; a snapshot's frames carry that of the
//	                  last journal frame the snapshot holds
//	hsum     4 bytes  CRC-32C of the 37 header bytes before it
//	payload  length bytes
//
// (integers little-endian). A reader that meets bytes that are not an intact frame
// skips to the next magic whose header checks (frameScanner): one damaged frame
// costs only itself, and the header of an intact one survives damage to its
// payload. Frames written before store identities (version 1: "kpf" 0x01, and
// no store or seq, so hsum follows sum) are still read, once: the store rewrites
// what it restored from them as a snapshot.
const (
	frameHeaderSize   = 41
	frameHeaderSizeV1 = 25
	// maxFrame bounds a payload: a commit holds at most a few objects of the API's
	// 3 MiB request limit, and snapshot parts are cut at snapshotPartBytes.
	maxFrame = 256 << 20
	// readChunk is how much a scanner reads at a time.
	readChunk = 64 << 10
)

// Frame kinds.
const (
	frameJournal      = 'J' // one commit's journalRecord
	frameLegacy       = 'L' // a journalRecord read from a host's format before frames (no origin)
	frameSnapshotHead = 'H' // a snapshot begins (empty payload)
	frameSnapshotPart = 'S' // a journalRecord of the snapshot's keys
	frameSnapshotEnd  = 'E' // a snapshot ends: payload is the uvarint count of its parts
)

// Frame versions, the magic's last byte.
const (
	frameV1 = 0x01
	frameV2 = 0x02
)

var (
	magicPrefix = []byte("kpf")
	frameMagic  = []byte("kpf\x02")
	castagnoli  = crc32.MakeTable(crc32.Castagnoli)
)

// origin says where a frame belongs: the store that wrote it, its place in that
// store's journal, and the store's revision once it is applied.
type origin struct {
	store uint64
	seq   int64
	rev   int64
}

type frameHeader struct {
	kind byte
	v1   bool // version 1: the origin holds a revision only
	origin
	size   int // of the header
	length int
	sum    uint32
}

// appendFrame appends one frame holding payload to dst.
func appendFrame(dst []byte, kind byte, o origin, payload []byte) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, frameHeaderSize)...)
	dst = append(dst, payload...)
	sealFrame(dst[start:], kind, o)
	return dst
}

// sealFrame writes the header of frame, whose payload follows frameHeaderSize
// reserved bytes.
func sealFrame(frame []byte, kind byte, o origin) {
	h, payload := frame[:frameHeaderSize], frame[frameHeaderSize:]
	copy(h, frameMagic)
	h[4] = kind
	binary.LittleEndian.PutUint64(h[5:], uint64(o.rev))
	binary.LittleEndian.PutUint32(h[13:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(h[17:], crc32.Checksum(payload, castagnoli))
	binary.LittleEndian.PutUint64(h[21:], o.store)
	binary.LittleEndian.PutUint64(h[29:], uint64(o.seq))
	binary.LittleEndian.PutUint32(h[37:], crc32.Checksum(h[:37], castagnoli))
}

// LegacyFrame wraps a journal record that a host read, intact, from the format it
// kept before frames, so the store can replay it; the store snapshots after such
// a restore, which leaves only frames behind.
func LegacyFrame(record []byte) []byte {
	return appendFrame(make([]byte, 0, frameHeaderSize+len(record)), frameLegacy, origin{}, record)
}

// headerSize is the size of the header b begins, by the version its magic names;
// that of the current version when b names none.
func headerSize(b []byte) int {
	if len(b) > len(magicPrefix) && bytes.HasPrefix(b, magicPrefix) && b[len(magicPrefix)] == frameV1 {
		return frameHeaderSizeV1
	}
	return frameHeaderSize
}

// parseFrameHeader reads a header whose magic and checksum hold.
func parseFrameHeader(b []byte) (frameHeader, bool) {
	if len(b) <= len(magicPrefix) || !bytes.HasPrefix(b, magicPrefix) {
		return frameHeader{}, false
	}
	h := frameHeader{size: headerSize(b), v1: b[len(magicPrefix)] == frameV1}
	if !h.v1 && b[len(magicPrefix)] != frameV2 || len(b) < h.size ||
		binary.LittleEndian.Uint32(b[h.size-4:]) != crc32.Checksum(b[:h.size-4], castagnoli) {
		return frameHeader{}, false
	}
	h.kind = b[4]
	h.rev = int64(binary.LittleEndian.Uint64(b[5:]))
	h.length = int(binary.LittleEndian.Uint32(b[13:]))
	h.sum = binary.LittleEndian.Uint32(b[17:])
	if !h.v1 {
		h.store = binary.LittleEndian.Uint64(b[21:])
		h.seq = int64(binary.LittleEndian.Uint64(b[29:]))
	}
	return h, h.length <= maxFrame
}

// piece is what a frameScanner found next: an intact frame, or a stretch of
// bytes holding none.
type piece struct {
	off, n int64 // where the piece lies in the stream, and its length
	at     int   // its number in the stream, from 1
	kind   byte
	v1     bool
	origin
	payload []byte // an intact frame's payload; valid until the scanner's next call

	// For damage: why, whether the header (so kind and origin) survived, and
	// whether the stretch is an unfinished last write: the stream ends inside a
	// frame whose header is intact, or in bytes too few for a header, or in zeros.
	damage   string
	headerOK bool
	torn     bool
}

func (p piece) String() string {
	if p.damage == "" {
		return fmt.Sprintf("frame %q at revision %d", p.kind, p.rev)
	}
	s := fmt.Sprintf("%d bytes at offset %d: %s", p.n, p.off, p.damage)
	if p.headerOK {
		s += fmt.Sprintf(" (revision %d)", p.rev)
	}
	return s
}

// frameScanner reads frames from a byte stream, resynchronising after damage on the
// next magic whose header checks. It holds at most one frame and a read chunk.
type frameScanner struct {
	src    io.Reader
	buf    []byte // read from src, not yet consumed
	off    int64  // stream offset of buf[0]
	pieces int    // returned so far
	eof    bool
	err    error // a read error other than EOF, which ends the scan
	// checked: the payloads' checksums were verified as the bytes were
	// checked whole (NewCheckedMemoryPersister), and are not computed again.
	checked bool
}

func newFrameScanner(r io.Reader) *frameScanner {
	if m, ok := r.(*inMemory); ok {
		// Already in memory: scanned in place, nothing copied.
		return &frameScanner{buf: m.b[m.at:], off: int64(m.at), eof: true, checked: m.checked}
	}
	return &frameScanner{src: r}
}

// inMemory is frames already in memory (a memory persister's, an export's),
// which a frameScanner reads in place; as an io.Reader it reads as
// bytes.Reader does.
type inMemory struct {
	b  []byte
	at int
	// stable: b never changes while a store restored from it lives, so the
	// store may keep strings over it (a MemoryPersister's snapshot).
	stable bool
	// checked: CheckSnapshot has read b whole; its checksums hold.
	checked bool
}

func (m *inMemory) Read(p []byte) (int, error) {
	if m.at >= len(m.b) {
		return 0, io.EOF
	}
	n := copy(p, m.b[m.at:])
	m.at += n
	return n, nil
}

// fill reads until buf holds n bytes or the stream ends; it reports whether it does.
func (sc *frameScanner) fill(n int) bool {
	for len(sc.buf) < n && !sc.eof {
		if cap(sc.buf)-len(sc.buf) < readChunk {
			grown := make([]byte, len(sc.buf), max(n, len(sc.buf))+readChunk)
			copy(grown, sc.buf)
			sc.buf = grown
		}
		m, err := sc.src.Read(sc.buf[len(sc.buf):cap(sc.buf)])
		sc.buf = sc.buf[:len(sc.buf)+m]
		if err != nil {
			sc.eof = true
			if err != io.EOF {
				sc.err = err
			}
		}
	}
	return len(sc.buf) >= n
}

func (sc *frameScanner) consume(n int) {
	sc.buf = sc.buf[n:]
	sc.off += int64(n)
}

// next returns the next piece of the stream; ok is false at its end.
func (sc *frameScanner) next() (p piece, ok bool) {
	if !sc.fill(1) {
		return p, false
	}
	sc.pieces++
	p.off, p.at = sc.off, sc.pieces
	sc.fill(len(magicPrefix) + 1)
	size := headerSize(sc.buf)
	h, hok := frameHeader{}, sc.fill(size)
	if hok {
		h, hok = parseFrameHeader(sc.buf)
	}
	switch {
	case !hok:
		p.damage = "no intact frame header"
		p.torn = len(sc.buf) < size
	case !sc.fill(h.size + h.length):
		p.damage = fmt.Sprintf("the data ends inside a frame of %d bytes", h.size+h.length)
		p.torn = true
	case !sc.checked && crc32.Checksum(sc.buf[h.size:h.size+h.length], castagnoli) != h.sum:
		p.damage = "checksum mismatch"
	default:
		p.kind, p.v1, p.origin, p.payload = h.kind, h.v1, h.origin, sc.buf[h.size:h.size+h.length]
		p.n = int64(h.size + h.length)
		sc.consume(h.size + h.length)
		return p, true
	}
	if hok {
		p.headerOK, p.kind, p.v1, p.origin = true, h.kind, h.v1, h.origin
	}
	zeros := sc.resync()
	p.n = sc.off - p.off
	// Only the end of the stream can be an unfinished write; zeros there are what
	// a file system leaves of one.
	atEnd := len(sc.buf) == 0 && sc.eof
	p.torn = atEnd && (p.torn || zeros)
	return p, true
}

// resync consumes bytes up to the next magic whose header checks, or to the end.
// It reports whether every byte it consumed was zero.
func (sc *frameScanner) resync() (zeros bool) {
	zeros = true
	skip := func(n int) {
		for _, b := range sc.buf[:n] {
			if b != 0 {
				zeros = false
				break
			}
		}
		sc.consume(n)
	}
	skip(1)
	for {
		i := bytes.Index(sc.buf, magicPrefix)
		if i < 0 {
			if sc.eof {
				skip(len(sc.buf))
				return zeros
			}
			// Keep a tail that may be the start of a magic split by the read.
			skip(max(0, len(sc.buf)-(len(magicPrefix)-1)))
			sc.fill(len(sc.buf) + readChunk)
			continue
		}
		skip(i)
		sc.fill(len(magicPrefix) + 1)
		if !sc.fill(headerSize(sc.buf)) {
			skip(len(sc.buf))
			return zeros
		}
		if _, ok := parseFrameHeader(sc.buf); ok {
			return zeros
		}
		skip(1)
	}
}

package web

import (
	"bufio"
	"io"
	"sync"
)

// Buffer sizes: a list's answer (handing the transport one item at a time
// costs a TLS record and a system call per item: half a list's time,
// measured by make bench-vs-kube), and a watch's burst of events (a TLS
// record's worth, held only while the burst is written).
const (
	ListBuffer  = 64 << 10
	WatchBuffer = 16 << 10
)

// Buffered gathers small writes into writes of up to its size, in a pooled
// buffer that Release returns; the zero Buffered holds none.
type Buffered struct{ *bufio.Writer }

var buffers = map[int]*sync.Pool{ListBuffer: bufferPool(ListBuffer), WatchBuffer: bufferPool(WatchBuffer)}

func bufferPool(size int) *sync.Pool {
	return &sync.Pool{New: func() any { return bufio.NewWriterSize(nil, size) }}
}

// NewBuffered buffers writes to w in a buffer of size ListBuffer or
// WatchBuffer.
func NewBuffered(w io.Writer, size int) Buffered {
	bw := buffers[size].Get().(*bufio.Writer)
	bw.Reset(w)
	return Buffered{bw}
}

// Release returns the buffer, unflushed, once what was written is sent.
func (b *Buffered) Release() {
	if b.Writer == nil {
		return
	}
	size := b.Size()
	b.Reset(nil)
	buffers[size].Put(b.Writer)
	b.Writer = nil
}

package requestlog

import (
	"io"

	"kubeplay/core/web"
)

// recorder is the response writer a logged request is answered through: it
// notes the code, counts the bytes and keeps the first BodyCap of the body.
// An answer that is flushed before it ends (a watch, a followed log) is
// logged when it is first flushed, as open, and again when it ends; any
// other when it ends.
type recorder struct {
	web.ResponseWriter
	log   *Log
	entry *Entry
	body  *bodyReader

	code    int
	bytes   int64
	kept    []byte
	cut     bool
	flushed bool
}

func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = web.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	r.kept, r.cut = keep(r.kept, b[:n], r.cut)
	return n, err
}

func (r *recorder) Flush() {
	if !r.flushed {
		r.flushed = true
		e := r.entry
		e.Code, e.Open = r.code, true
		if e.Code == 0 {
			e.Code = web.StatusOK
		}
		r.log.add(e, nil, nil, false, false)
	}
	if f, ok := r.ResponseWriter.(web.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Unwrap() web.ResponseWriter { return r.ResponseWriter }

// finish logs the answer as it ended.
func (r *recorder) finish() {
	e := r.entry
	latency := r.log.clock.Now().Sub(e.Time)
	var reqBytes int64
	var reqBody []byte
	var reqCut bool
	if r.body != nil {
		reqBytes, reqBody, reqCut = r.body.n, r.body.kept, r.body.cut
	}
	if r.flushed {
		r.log.ended(e, e.Code, latency, reqBytes, r.bytes, reqBody, r.kept, reqCut, r.cut)
		return
	}
	e.Code, e.LatencyMicros, e.RequestBytes, e.ResponseBytes = r.code, latency.Microseconds(), reqBytes, r.bytes
	r.log.add(e, reqBody, r.kept, reqCut, r.cut)
}

// bodyReader keeps the first BodyCap of a request body as the handler reads
// it, and counts it all.
type bodyReader struct {
	io.ReadCloser
	n    int64
	kept []byte
	cut  bool
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	b.kept, b.cut = keep(b.kept, p[:n], b.cut)
	return n, err
}

// keep appends what of b fits under BodyCap to kept; cut says some did not.
func keep(kept, b []byte, cut bool) ([]byte, bool) {
	room := BodyCap - len(kept)
	if len(b) > room {
		return append(kept, b[:max(room, 0)]...), true
	}
	return append(kept, b...), cut
}

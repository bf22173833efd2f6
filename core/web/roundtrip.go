package web

import (
	"context"
	"fmt"
	"io"
	"sync"
)

// Response is a handler's answer as a client reads it: the status and
// header as they were when the status was written, and the body still
// streaming (a watch keeps it open). Body must be closed.
type Response struct {
	Code   int
	Header Header
	Body   io.ReadCloser
}

// HeaderTransportError marks an answer that no server gave: a handler over a
// transport (the page's fetch) sets it on the 503 Status it answers with
// when the transport failed (the Status's message is the failure's), so a
// client can tell that from a server's own 503, as a network client tells a
// failed connection from an answer.
const HeaderTransportError = "X-Kubeplay-Transport-Error"

// RoundTrip serves r with h in a goroutine of its own and returns as soon as
// h has written its status: what a client of an in-process handler (the
// core's own clients, the page's kubectl over the page's fetch) reads as a
// network client reads a response. Closing the body cancels r's context
// (cancel, which must be r's); a handler's panic is a 500 or a broken body.
func RoundTrip(h Handler, r *Request, cancel context.CancelFunc) *Response {
	pr, pw := io.Pipe()
	w := &pipeWriter{header: Header{}, body: pw, started: make(chan struct{})}
	go func() {
		defer cancel()
		defer func() {
			if v := recover(); v != nil {
				pw.CloseWithError(fmt.Errorf("handler panicked: %v", v))
				w.WriteHeader(StatusInternalServerError)
			}
		}()
		h.ServeHTTP(w, r)
		w.WriteHeader(StatusOK)
		pw.Close()
	}()
	<-w.started
	return &Response{Code: w.code, Header: w.sent, Body: &cancelOnClose{ReadCloser: pr, cancel: cancel}}
}

// pipeWriter is the handler's side of a streamed answer.
type pipeWriter struct {
	header  Header
	sent    Header // the header as it was when the status was written
	code    int
	body    *io.PipeWriter
	once    sync.Once
	started chan struct{}
}

func (w *pipeWriter) Header() Header { return w.header }

func (w *pipeWriter) WriteHeader(code int) {
	w.once.Do(func() {
		w.code, w.sent = code, w.header.Clone()
		close(w.started)
	})
}

// Write hands b to the reader, waiting until it has taken it: a client that
// stops reading holds its watch back, as a network client's would.
func (w *pipeWriter) Write(b []byte) (int, error) {
	w.WriteHeader(StatusOK)
	return w.body.Write(b)
}

// Flush has nothing to do: every Write reaches the reader.
func (w *pipeWriter) Flush() {}

// cancelOnClose ends the request when its reader closes the body.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	c.cancel()
	return c.ReadCloser.Close()
}

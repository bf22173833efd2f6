//go:build !js

package web

import (
	"bytes"
	"context"
	"io"
	"net/http"
)

type (
	Request        = http.Request
	ResponseWriter = http.ResponseWriter
	Header         = http.Header
	Handler        = http.Handler
	HandlerFunc    = http.HandlerFunc
	Flusher        = http.Flusher
	MaxBytesError  = http.MaxBytesError
)

// ErrAbortHandler is the panic value that aborts a response on purpose.
var ErrAbortHandler = http.ErrAbortHandler

// MaxBytesReader limits a request body to n bytes; reading more fails with a
// *MaxBytesError.
func MaxBytesReader(w ResponseWriter, r io.ReadCloser, n int64) io.ReadCloser {
	return http.MaxBytesReader(w, r, n)
}

// Flush sends what w has buffered to the client, through any wrappers that
// unwrap to a Flusher.
func Flush(w ResponseWriter) error { return http.NewResponseController(w).Flush() }

// NewRequest builds a server-side request for rawURL with body, cancelled with ctx.
func NewRequest(ctx context.Context, method, rawURL string, body []byte) (*Request, error) {
	var rd io.Reader
	if len(body) > 0 {
		rd = bytes.NewReader(body)
	}
	r, err := http.NewRequestWithContext(ctx, method, rawURL, rd)
	if err != nil {
		return nil, err
	}
	r.RequestURI = r.URL.RequestURI()
	return r, nil
}

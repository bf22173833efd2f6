//go:build !js

package web

import (
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

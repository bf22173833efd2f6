//go:build js

package web

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/url"
	"slices"
)

// Request is an HTTP request as a host hands it to the core.
type Request struct {
	Method        string
	URL           *url.URL
	Header        Header
	Body          io.ReadCloser
	ContentLength int64
	Host          string
	RemoteAddr    string
	RequestURI    string
	ctx           context.Context
}

// NewRequest builds a server-side request for rawURL with body, cancelled with ctx.
func NewRequest(ctx context.Context, method, rawURL string, body []byte) (*Request, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	r := &Request{
		Method: method, URL: u, Header: Header{}, Body: noBody{}, ContentLength: int64(len(body)),
		Host: u.Host, RequestURI: u.RequestURI(), ctx: ctx,
	}
	if len(body) > 0 {
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	return r, nil
}

// Context is the request's context: cancelled when the client goes away.
func (r *Request) Context() context.Context {
	if r.ctx == nil {
		return context.Background()
	}
	return r.ctx
}

// WithContext returns a shallow copy of r with its context changed to ctx.
func (r *Request) WithContext(ctx context.Context) *Request {
	if ctx == nil {
		panic("nil context")
	}
	r2 := *r
	r2.ctx = ctx
	return &r2
}

// UserAgent is the client's User-Agent header.
func (r *Request) UserAgent() string { return r.Header.Get("User-Agent") }

type noBody struct{}

func (noBody) Read([]byte) (int, error) { return 0, io.EOF }
func (noBody) Close() error             { return nil }

// Header maps canonical header names to their values, as net/http's does.
type Header map[string][]string

// Get is the first value of key, or "".
func (h Header) Get(key string) string {
	if v := h[CanonicalHeaderKey(key)]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Values are all the values of key.
func (h Header) Values(key string) []string { return h[CanonicalHeaderKey(key)] }

// Set replaces the values of key with value.
func (h Header) Set(key, value string) { h[CanonicalHeaderKey(key)] = []string{value} }

// Add appends value to the values of key.
func (h Header) Add(key, value string) {
	key = CanonicalHeaderKey(key)
	h[key] = append(h[key], value)
}

// Del removes key.
func (h Header) Del(key string) { delete(h, CanonicalHeaderKey(key)) }

// Clone is a deep copy of h.
func (h Header) Clone() Header {
	if h == nil {
		return nil
	}
	c := make(Header, len(h))
	for k, v := range h {
		c[k] = slices.Clone(v)
	}
	return c
}

// CanonicalHeaderKey is net/textproto's canonical form of a header name:
// "content-type" → "Content-Type". A name holding a byte that is not a token
// character is returned as it is.
func CanonicalHeaderKey(s string) string {
	upper, canonical := true, true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isTokenByte(c) {
			return s
		}
		if upper && 'a' <= c && c <= 'z' || !upper && 'A' <= c && c <= 'Z' {
			canonical = false
		}
		upper = c == '-'
	}
	if canonical {
		return s
	}
	b := []byte(s)
	upper = true
	for i, c := range b {
		if upper && 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		} else if !upper && 'A' <= c && c <= 'Z' {
			b[i] = c - 'A' + 'a'
		}
		upper = c == '-'
	}
	return string(b)
}

// isTokenByte reports whether c may appear in a header name (RFC 9110 tchar).
func isTokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

// ResponseWriter is how a handler answers.
type ResponseWriter interface {
	Header() Header
	Write([]byte) (int, error)
	WriteHeader(statusCode int)
}

// Flusher is a ResponseWriter that can send what it buffered.
type Flusher interface{ Flush() }

// Handler answers requests.
type Handler interface {
	ServeHTTP(ResponseWriter, *Request)
}

// HandlerFunc is a function as a Handler.
type HandlerFunc func(ResponseWriter, *Request)

// ServeHTTP calls f(w, r).
func (f HandlerFunc) ServeHTTP(w ResponseWriter, r *Request) { f(w, r) }

// ErrAbortHandler is the panic value that aborts a response on purpose.
var ErrAbortHandler = errors.New("net/http: abort Handler")

// errNotSupported is net/http's answer for a writer that cannot flush.
var errNotSupported = errors.New("feature not supported")

// Flush sends what w has buffered to the client, through any wrappers that
// unwrap to a Flusher.
func Flush(w ResponseWriter) error {
	for {
		switch t := w.(type) {
		case Flusher:
			t.Flush()
			return nil
		case interface{ Unwrap() ResponseWriter }:
			w = t.Unwrap()
		default:
			return errNotSupported
		}
	}
}

// MaxBytesError is the error of reading past a MaxBytesReader's limit.
type MaxBytesError struct {
	Limit int64
}

func (e *MaxBytesError) Error() string { return "http: request body too large" }

// MaxBytesReader limits a request body to n bytes; reading more fails with a
// *MaxBytesError.
func MaxBytesReader(_ ResponseWriter, r io.ReadCloser, n int64) io.ReadCloser {
	if n < 0 {
		n = 0
	}
	return &maxBytesReader{r: r, left: n, limit: n}
}

type maxBytesReader struct {
	r     io.ReadCloser
	left  int64
	limit int64
	err   error
}

func (l *maxBytesReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	// One byte past the limit tells whether the body goes beyond it.
	if int64(len(p))-1 > l.left {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	if int64(n) <= l.left {
		l.left -= int64(n)
		l.err = err
		return n, err
	}
	n = int(l.left)
	l.left = 0
	l.err = &MaxBytesError{Limit: l.limit}
	return n, l.err
}

func (l *maxBytesReader) Close() error { return l.r.Close() }

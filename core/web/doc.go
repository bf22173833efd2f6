// Package web is the HTTP surface the core is written against: handlers, requests,
// response writers and the few helpers the API server needs.
//
// Natively these are net/http's own types (aliases), so the core is an ordinary
// http.Handler for servers, httptest and clients. In WebAssembly they are a small
// stand-in with the same names and semantics: net/http and the TLS stack it pulls
// in cost 1.4 MB of the browser's .wasm, which every visitor reads and compiles
// before the first answer, while the hosts there (a service worker, a Durable
// Object) hand requests over as values and need none of its client or server.
package web

import "strings"

// The methods and status codes the core uses, with net/http's values.
const (
	MethodGet    = "GET"
	MethodHead   = "HEAD"
	MethodPost   = "POST"
	MethodPut    = "PUT"
	MethodPatch  = "PATCH"
	MethodDelete = "DELETE"
	// MethodOptions is passed on by kube's proxy subresources.
	MethodOptions = "OPTIONS"

	StatusOK                    = 200
	StatusCreated               = 201
	StatusAccepted              = 202
	StatusNoContent             = 204
	StatusMovedPermanently      = 301
	StatusNotModified           = 304
	StatusBadRequest            = 400
	StatusUnauthorized          = 401
	StatusForbidden             = 403
	StatusNotFound              = 404
	StatusMethodNotAllowed      = 405
	StatusNotAcceptable         = 406
	StatusConflict              = 409
	StatusGone                  = 410
	StatusPreconditionFailed    = 412
	StatusRequestEntityTooLarge = 413
	StatusUnsupportedMediaType  = 415
	StatusUnprocessableEntity   = 422
	StatusTooManyRequests       = 429
	StatusInternalServerError   = 500
	StatusServiceUnavailable    = 503
	StatusGatewayTimeout        = 504
)

// UserAgentHeader carries the User-Agent of a client that cannot set its own:
// a browser page's fetch may not set User-Agent (Chromium drops it and sends
// its own), so the page's kubectl sends its agent in this header of
// kubeplay's, and the core (apiserver's first filter) makes it the request's
// User-Agent and removes it before anything else sees the request.
const UserAgentHeader = "X-Kubeplay-User-Agent"

// NotFound is net/http's NotFound: the plain 404 a mux answers for a path no
// handler serves.
func NotFound(w ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(StatusNotFound)
	_, _ = w.Write([]byte("404 page not found\n"))
}

// IsUpgrade says whether r asks to be upgraded to another protocol (SPDY,
// WebSocket), as kube's httpstream.IsUpgradeRequest does: its Connection
// header names "upgrade".
func IsUpgrade(r *Request) bool {
	for _, v := range r.Header.Values("Connection") {
		for _, token := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(token), "upgrade") {
				return true
			}
		}
	}
	return false
}

// Package sitepolicy is the security policy of the built playground: the
// response headers every host that serves its files (the native command, the
// edge's front Worker) puts on them.
//
// The page runs only its own scripts (no inline script, so a response shown in
// the page cannot run as code), may call any http(s) API (the remote target is
// the user's choice), and may not be framed. 'wasm-unsafe-eval' lets the
// service worker, whose policy comes with sw.js, compile the core's wasm.
// Inline styles are allowed: CodeMirror writes its own into a <style> element
// (a nonce would have to change per response, and the worker caches the page);
// images and fonts only from the site keep a style from sending data away.
package sitepolicy

import "net/http"

// ContentSecurityPolicy is the page's and the service worker's policy.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; connect-src 'self' http: https:; object-src 'none'; base-uri 'none'; " +
	"form-action 'self'; frame-ancestors 'none'"

// SetHeaders sets the policy's headers on a site file's response.
func SetHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
}

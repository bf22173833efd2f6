// Package sitepolicy is the security policy of the built playground: the
// response headers every host that serves its files puts on them. It lives
// with the page, whose code the policy follows. The headers are kept in
// headers.json, which the native command reads through this package and the
// edge's front Worker (edge/front/front.mjs) imports as it is.
//
// The page runs only its own scripts (no inline script, so a response shown in
// the page cannot run as code), may call any http(s) API (the remote target is
// the user's choice), and may not be framed; nothing is sniffed as another
// type. 'wasm-unsafe-eval' lets the service worker, whose policy comes with
// sw.js, compile the core's wasm, and the page the terminal's kubectl
// module (kubeplay-kubectl.wasm). Inline styles are allowed: CodeMirror writes
// its own into a <style> element (a nonce would have to change per response,
// and the worker caches the page); images and fonts only from the site keep a
// style from sending data away.
package sitepolicy

import (
	_ "embed"
	"encoding/json"
	"net/http"
)

//go:embed headers.json
var headersJSON []byte

// headers is headers.json: header name → value.
var headers = func() map[string]string {
	var h map[string]string
	if err := json.Unmarshal(headersJSON, &h); err != nil {
		panic("sitepolicy: headers.json: " + err.Error())
	}
	return h
}()

// SetHeaders sets the policy's headers on a site file's response.
func SetHeaders(h http.Header) {
	for name, value := range headers {
		h.Set(name, value)
	}
}

// Package sitepolicy is the security policy of the built playground: the
// response headers every host that serves its files puts on them. It lives
// with the page, whose code the policy follows. The headers are kept in
// headers.json, which the native command reads through this package and the
// edge's front Worker (edge/front/front.mjs) imports as it is.
//
// The page runs only its own scripts (no inline script, so a response shown in
// the page cannot run as code), may call any http(s) API (the remote target is
// the user's choice), and may not be framed, but for the embed page
// (/embed/, LEARN-4), which any site may frame: it runs one tutorial,
// exercise or sandbox, in its own origin's sandbox (which a browser
// partitions by the embedding site), and cannot reach the page around it.
// Nothing is sniffed as another type. 'wasm-unsafe-eval' lets the service worker, whose policy comes with
// sw.js, compile the core's wasm, and the page the terminal's kubectl
// module (kubeplay-kubectl.wasm). Inline styles are allowed: CodeMirror writes
// its own into a <style> element (a nonce would have to change per response,
// and the worker caches the page); images and fonts only from the site keep a
// style from sending data away.
package sitepolicy

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
)

//go:embed headers.json
var headersJSON []byte

// policy is headers.json: the site's headers, the embed page's, and the
// paths of the embed pages.
var policy = func() (p struct {
	Site       map[string]string `json:"site"`
	Embed      map[string]string `json:"embed"`
	EmbedPaths []string          `json:"embedPaths"`
}) {
	if err := json.Unmarshal(headersJSON, &p); err != nil || len(p.Site) == 0 || len(p.Embed) == 0 {
		panic(fmt.Sprintf("sitepolicy: headers.json: %v", err))
	}
	return p
}()

// SetHeaders sets the policy's headers on the response of the site file at
// path (as the site names it, "/embed.html").
func SetHeaders(h http.Header, path string) {
	headers := policy.Site
	if slices.Contains(policy.EmbedPaths, path) {
		headers = policy.Embed
	}
	for name, value := range headers {
		h.Set(name, value)
	}
}

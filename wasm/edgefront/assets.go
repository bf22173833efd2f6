//go:build js && wasm

package main

import (
	"mime"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/syumai/workers/cloudflare"
	"github.com/syumai/workers/cloudflare/fetch"

	"kubeplay/sitepolicy"
)

// serveAsset answers from the ASSETS binding (Workers static assets, or a disk
// service in local workerd): the built playground, with its security headers.
// A sandbox creation's link offers the page a sandbox as its target (in the
// URL fragment, so the token never reaches a server log).
func serveAsset(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, r)
		return
	}
	name := r.URL.Path
	if name == "/" {
		name = "/index.html"
	}
	if !siteFile(name) {
		writeStatus(w, errNotFound())
		return
	}
	req, err := fetch.NewRequest(r.Context(), r.Method, "https://assets"+name, nil)
	if err != nil {
		writeStatus(w, errNotFound())
		return
	}
	res, err := fetch.NewClient(fetch.WithBinding(cloudflare.GetBinding("ASSETS"))).Do(req, nil)
	if err != nil {
		writeStatus(w, errUnavailable("static assets did not answer: "+err.Error()))
		return
	}
	if res.StatusCode == http.StatusNotFound {
		res.Body.Close()
		writeStatus(w, errNotFound())
		return
	}
	// Workers static assets name the type; a local disk service does not.
	if ct := res.Header.Get("Content-Type"); ct == "" || ct == "application/octet-stream" {
		if t := mime.TypeByExtension(path.Ext(name)); t != "" {
			res.Header.Set("Content-Type", t)
		}
	}
	sitepolicy.SetHeaders(res.Header)
	relay(w, res)
}

// siteFile reports whether name is a file of the built site, as SITE_FILES
// (written by edge/build.mjs and edge/workerd.mjs) lists them. A directory
// (which local workerd would list) or a symlink (whose target may be outside
// the site) never is.
func siteFile(name string) bool {
	return slices.Contains(strings.Fields(cloudflare.Getenv("SITE_FILES")), name)
}

package main

import (
	"log"
	"net/http"
	"os"
	"regexp"
	"strings"
)

// apiPath matches the paths the core serves; the service worker intercepts the
// same ones in the browser.
var apiPath = regexp.MustCompile(`^/(api|apis|version|openapi|healthz|livez|readyz|metrics|debug)(/|$)`)

// newHandler serves the API from the core and, when site is set, the built
// playground from that directory at every other path, all behind the guard.
func newHandler(api http.Handler, o options) http.Handler {
	return newGuard(withSite(api, o.site), o.listen, splitList(o.allowedHosts), splitList(o.cors))
}

// withSite serves the built playground in site at the paths that are not the API's.
func withSite(api http.Handler, site string) http.Handler {
	if site == "" {
		return api
	}
	if st, err := os.Stat(site); err != nil || !st.IsDir() {
		log.Printf("playground site %q is not built (make site); serving the API only", site)
		return api
	}
	files := http.FileServer(http.Dir(site))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if apiPath.MatchString(r.URL.Path) {
			api.ServeHTTP(w, r)
			return
		}
		// The worker script and the page must be revalidated so new builds take over.
		if r.URL.Path == "/sw.js" || r.URL.Path == "/" || r.URL.Path == "/index.html" {
			w.Header().Set("Cache-Control", "no-cache")
		}
		files.ServeHTTP(w, r)
	})
}

// splitList splits a comma-separated flag value.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

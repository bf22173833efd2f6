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
// playground from that directory at every other path.
func newHandler(api http.Handler, site string, allowedOrigins []string) http.Handler {
	api = withCORS(api, allowedOrigins)
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

func splitOrigins(s string) []string {
	var out []string
	for _, o := range strings.Split(s, ",") {
		if o = strings.TrimSpace(o); o != "" {
			out = append(out, o)
		}
	}
	return out
}

// withCORS lets the listed origins call the API from a browser, as
// kube-apiserver's --cors-allowed-origins does.
func withCORS(next http.Handler, origins []string) http.Handler {
	if len(origins) == 0 {
		return next
	}
	allowed := map[string]bool{}
	for _, o := range origins {
		allowed[o] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && (allowed[origin] || allowed["*"]) {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Allow-Credentials", "true")
			h.Set("Access-Control-Allow-Methods", "POST, GET, OPTIONS, PUT, DELETE, PATCH")
			h.Set("Access-Control-Allow-Headers", "Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since, Accept, X-Kubeplay-Target")
			h.Set("Access-Control-Expose-Headers", "Date, Content-Type, Content-Length, Audit-Id, Retry-After")
			h.Add("Vary", "Origin")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

package main

import (
	"io/fs"
	"log"
	"mime"
	"net/http"
	"os"
	"path"
	"regexp"
	"strings"

	"kubeplay/core/xds"
	"kubeplay/internal/control"
	"kubeplay/ui/sitepolicy"
)

// apiPath matches the paths the core serves; the service worker intercepts the
// same ones in the browser.
var apiPath = regexp.MustCompile(`^/(api|apis|version|openapi|healthz|livez|readyz|metrics|debug|xds|v3)(/|$)`)

// withXDS serves the discovery service's HTTP transports (core/xds) beside
// the API.
func withXDS(api http.Handler, xs *xds.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if xds.IsHTTPPath(r.URL.Path) {
			xs.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}

// newHandler serves the API from the core, the workshop's control protocol
// (ctl, when there is a workshop) and, when site is set, the built
// playground from that directory at every other path, all behind the guard.
func newHandler(api, ctl http.Handler, o options) http.Handler {
	h := withSite(api, o.site)
	if ctl != nil {
		site := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if control.Handles(r.URL.Path) {
				ctl.ServeHTTP(w, r)
				return
			}
			site.ServeHTTP(w, r)
		})
	}
	return newGuard(h, o.listen, splitList(o.allowedHosts), splitList(o.cors))
}

// withSite serves the built playground in site at the paths that are not the API's.
func withSite(api http.Handler, site string) http.Handler {
	if site == "" {
		return api
	}
	root, err := os.OpenRoot(site)
	if err != nil {
		log.Printf("playground site %q is not built (make site); serving the API only", site)
		return api
	}
	files := siteFiles{root}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if apiPath.MatchString(r.URL.Path) {
			api.ServeHTTP(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
}

// pages are the site's pages served at a path of their own (edge/front/front.mjs
// has the same): the instructor page (WORK-2). The embed page is the
// directory /embed/'s index.html.
var pages = map[string]string{"/instructor": "/instructor.html"}

// siteFiles serves the files of the built site and nothing else: a directory
// answers with its index.html or 404, never with a listing, and the os.Root
// keeps every path, through symlinks too, inside the site.
type siteFiles struct{ root *os.Root }

func (s siteFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeStatus(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "the server does not allow this method on the requested resource")
		return
	}
	name := path.Clean(r.URL.Path)
	file := name
	if page, ok := pages[name]; ok {
		file = page
	}
	f, st := s.open(file)
	if st != nil && st.IsDir() {
		f.Close()
		file = path.Join(name, "index.html")
		f, st = s.open(file)
		if st != nil && !strings.HasSuffix(r.URL.Path, "/") {
			f.Close()
			http.Redirect(w, r, path.Base(name)+"/", http.StatusMovedPermanently)
			return
		}
	}
	if st == nil || !st.Mode().IsRegular() {
		if st != nil {
			f.Close()
		}
		writeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
		return
	}
	defer f.Close()
	h := w.Header()
	sitepolicy.SetHeaders(h, file)
	// The worker script and the page must be revalidated so new builds take over.
	if name == "/sw.js" || name == "/" || name == "/index.html" || file == pages["/instructor"] {
		h.Set("Cache-Control", "no-cache")
	}
	// The file's brotli copy (make site-br writes NAME.br) to a client that
	// takes it: what the modules' budgets count. A copy older than the file
	// is not of it.
	if br, brst := s.open(file + ".br"); brst != nil {
		defer br.Close()
		h.Add("Vary", "Accept-Encoding")
		if brst.Mode().IsRegular() && !brst.ModTime().Before(st.ModTime()) && acceptsBrotli(r.Header.Get("Accept-Encoding")) {
			h.Set("Content-Encoding", "br")
			if ctype := mime.TypeByExtension(path.Ext(st.Name())); ctype != "" {
				h.Set("Content-Type", ctype)
			}
			http.ServeContent(w, r, st.Name(), st.ModTime(), br)
			return
		}
	}
	http.ServeContent(w, r, st.Name(), st.ModTime(), f)
}

// acceptsBrotli says whether an Accept-Encoding header takes br (with a q-value
// other than 0).
func acceptsBrotli(accept string) bool {
	for _, clause := range strings.Split(accept, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(clause), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "br") {
			continue
		}
		q, hasQ := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
		return !hasQ || strings.Trim(q, "0.") != ""
	}
	return false
}

// open opens the site's file at the URL path name; nil info when there is none.
func (s siteFiles) open(name string) (*os.File, fs.FileInfo) {
	rel := strings.TrimPrefix(name, "/")
	if rel == "" {
		rel = "."
	}
	f, err := s.root.Open(rel)
	if err != nil {
		return nil, nil
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil
	}
	return f, st
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

package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeSite lays out a built site in a temporary directory, with files outside
// it that symlinks inside point at.
func writeSite(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	outside := filepath.Join(dir, "outside")
	for name, content := range map[string]string{
		"site/index.html":           "<!doctype html><title>kubeplay</title>",
		"site/instructor.html":      "<!doctype html><title>kubeplay — instructor</title>",
		"site/embed/index.html":     "<!doctype html><title>kubeplay embed</title>",
		"site/ui/app.js":            "console.log('app')",
		"site/tutorials/index.json": "[]",
		"site/docs/index.html":      "<!doctype html><title>docs</title>",
		"outside/secret.txt":        "SECRET",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"escape":     outside,
		"secret.txt": filepath.Join(outside, "secret.txt"),
		"up":         "../outside",
	} {
		if err := os.Symlink(target, filepath.Join(site, link)); err != nil {
			t.Fatal(err)
		}
	}
	return site
}

// The static site serves the built files only: no directory listings, nothing
// reached through a symlink out of the site, 404 for a directory without an
// index.html; every file carries the page's security headers.
func TestPLAY_8_SiteServesOnlyBuiltFiles(t *testing.T) {
	s := startPlayground(t, options{site: writeSite(t)})
	for _, path := range []string{"/ui/", "/ui", "/tutorials/", "/tutorials", "/escape/secret.txt", "/escape/", "/secret.txt", "/up/secret.txt", "/%2e%2e/outside/secret.txt", "/missing.js"} {
		code, _, body := send(t, s, "GET", path, "", nil, "")
		if code != http.StatusNotFound || strings.Contains(body, "app.js") || strings.Contains(body, "SECRET") || strings.Contains(body, "index.json") {
			t.Errorf("GET %s: %d %q, want 404 without the directory's or the outside's content", path, code, body)
		}
	}
	for path, want := range map[string]string{"/": "<title>kubeplay", "/index.html": "<title>kubeplay", "/ui/app.js": "console.log", "/docs/": "<title>docs", "/tutorials/index.json": "[]"} {
		code, hdr, body := send(t, s, "GET", path, "", nil, "")
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("GET %s: %d %q", path, code, body)
		}
		if csp := hdr.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("GET %s: Content-Security-Policy %q", path, csp)
		}
		if hdr.Get("X-Content-Type-Options") != "nosniff" || hdr.Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s: X-Content-Type-Options %q, X-Frame-Options %q", path, hdr.Get("X-Content-Type-Options"), hdr.Get("X-Frame-Options"))
		}
	}
	// The embed page (LEARN-4) alone may be framed, by any site.
	code, hdr, body := send(t, s, "GET", "/embed/", "", nil, "")
	if csp := hdr.Get("Content-Security-Policy"); code != http.StatusOK || !strings.Contains(body, "kubeplay embed") ||
		!strings.Contains(csp, "script-src 'self'") || !strings.HasSuffix(csp, "frame-ancestors *") ||
		hdr.Get("X-Frame-Options") != "" || hdr.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("GET /embed/: %d %q, headers %v", code, body, hdr)
	}
	if code, _, body := send(t, s, "POST", "/index.html", "", nil, ""); code != http.StatusMethodNotAllowed {
		t.Errorf("POST /index.html: %d %s", code, body)
	}
	// The API is the core's, site or not.
	if code, _, body := send(t, s, "GET", "/version", "", nil, ""); code != http.StatusOK || !strings.Contains(body, "gitVersion") {
		t.Errorf("GET /version: %d %s", code, body)
	}
}

// The instructor page is served at /instructor, with the site's security
// headers, revalidated like the playground's page.
func TestWORK_2_InstructorPageAtItsPath(t *testing.T) {
	s := startPlayground(t, options{site: writeSite(t)})
	code, hdr, body := send(t, s, "GET", "/instructor", "", nil, "")
	if code != http.StatusOK || !strings.Contains(body, "instructor</title>") {
		t.Fatalf("GET /instructor: %d %q", code, body)
	}
	if !strings.HasPrefix(hdr.Get("Content-Type"), "text/html") || hdr.Get("Cache-Control") != "no-cache" || hdr.Get("X-Frame-Options") != "DENY" ||
		!strings.Contains(hdr.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("GET /instructor: headers %v", hdr)
	}
	if code, _, _ := send(t, s, "POST", "/instructor", "", nil, ""); code != http.StatusMethodNotAllowed {
		t.Errorf("POST /instructor: %d, want 405", code)
	}
}

// A file's brotli copy (make site writes NAME.br) is served to a client that
// takes br, with the file's type; others get the file itself.
func TestPLAY_8_SiteServesBrotli(t *testing.T) {
	site := writeSite(t)
	compressed := []byte("\x1b\x11\x00 the brotli copy's bytes, served as they are")
	for _, name := range []string{"ui/app.js.br", "docs/index.html.br"} {
		if err := os.WriteFile(filepath.Join(site, name), compressed, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// index.html changed after its copy was made: the copy is stale.
	if err := os.WriteFile(filepath.Join(site, "index.html.br"), compressed, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(site, "index.html.br"), old, old); err != nil {
		t.Fatal(err)
	}
	s := startPlayground(t, options{site: site})
	for _, c := range []struct {
		path, accept, encoding, ctype string
	}{
		{"/ui/app.js", "gzip, deflate, br, zstd", "br", "text/javascript; charset=utf-8"},
		{"/ui/app.js", "gzip", "", "text/javascript; charset=utf-8"},
		{"/ui/app.js", "br;q=0, gzip", "", "text/javascript; charset=utf-8"},
		{"/docs/", "br", "br", "text/html; charset=utf-8"},
		{"/index.html", "br", "", "text/html; charset=utf-8"},   // a stale copy
		{"/tutorials/index.json", "br", "", "application/json"}, // no copy
	} {
		req, _ := http.NewRequest("GET", s.url+c.path, nil)
		req.Header.Set("Accept-Encoding", c.accept)
		res, err := http.DefaultTransport.RoundTrip(req) // no transparent decoding
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != c.encoding || res.Header.Get("Content-Type") != c.ctype {
			t.Errorf("GET %s (%s): %d %q %q", c.path, c.accept, res.StatusCode, res.Header.Get("Content-Encoding"), res.Header.Get("Content-Type"))
		}
		if c.encoding == "br" && !bytes.Equal(body, compressed) {
			t.Errorf("GET %s: not the .br copy", c.path)
		}
	}
}

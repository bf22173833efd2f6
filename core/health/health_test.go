package health

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestK8S_URI_2_Health: /healthz, /livez and /readyz answer as
// kube-apiserver 1.32.13 does (recorded with the refapi kit): their checks
// in its order, each at its own path, ?verbose and ?exclude=, and while a
// post-start hook has not finished, a 500 that says which, its own path
// saying why.
func TestK8S_URI_2_Health(t *testing.T) {
	serve := func(path string, pending ...string) (int, string, string) {
		w := httptest.NewRecorder()
		Serve(w, httptest.NewRequest("GET", path, nil), pending)
		return w.Code, w.Body.String(), w.Header().Get("X-Content-Type-Options")
	}
	for _, c := range []struct {
		path    string
		pending []string
		code    int
		body    string // a prefix, when it ends in "…"
		nosniff bool
	}{
		{"/readyz", nil, 200, "ok", false},
		{"/livez", nil, 200, "ok", false},
		{"/readyz?exclude=nope", nil, 200, "ok", false},
		{"/readyz/etcd", nil, 200, "ok", false},
		{"/readyz/shutdown", nil, 200, "ok", false},
		{"/readyz/poststarthook/rbac/bootstrap-roles", nil, 200, "ok", false},
		{"/livez/shutdown", nil, 404, "404 page not found\n", true},
		{"/healthz/etcd-readiness", nil, 404, "404 page not found\n", true},
		{"/readyz/", nil, 404, "404 page not found\n", true},
		{"/readyz/etcd/", nil, 404, "404 page not found\n", true},
		{"/readyz/nope", nil, 404, "404 page not found\n", true},
		{"/readyz/poststarthook/rbac/bootstrap-roles", []string{BootstrapRoles}, 500, "internal server error: not finished\n", true},
		{"/readyz/etcd", []string{BootstrapRoles}, 200, "ok", false},
	} {
		code, body, nosniff := serve(c.path, c.pending...)
		if code != c.code || body != c.body || (nosniff == "nosniff") != c.nosniff {
			t.Errorf("%s (pending %v): %d %q nosniff=%q, want %d %q", c.path, c.pending, code, body, nosniff, c.code, c.body)
		}
	}

	code, body, _ := serve("/readyz?verbose")
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if code != 200 || len(lines) != 34 || lines[0] != "[+]ping ok" || lines[3] != "[+]etcd-readiness ok" || lines[32] != "[+]shutdown ok" || lines[33] != "readyz check passed" {
		t.Errorf("/readyz?verbose: %d %q", code, body)
	}
	code, body, _ = serve("/livez?verbose")
	if lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n"); code != 200 || len(lines) != 31 || lines[2] != "[+]etcd ok" ||
		lines[3] != "[+]poststarthook/start-apiserver-admission-initializer ok" || lines[30] != "livez check passed" {
		t.Errorf("/livez?verbose: %d %q", code, body)
	}
	// kube answers unknown exclusions in a sorted, quoted list, verbose only.
	_, body, _ = serve("/readyz?exclude=etcd&exclude=zz&exclude=aa&verbose")
	if !strings.Contains(body, "[+]etcd excluded: ok\n[+]etcd-readiness ok\n") ||
		!strings.HasSuffix(body, "[+]shutdown ok\nwarn: some health checks cannot be excluded: no matches for \"aa\",\"zz\"\nreadyz check passed\n") {
		t.Errorf("exclusions: %q", body)
	}
	// Unfinished hooks fail every endpoint, verbose or not, with the list.
	for _, root := range []string{"readyz", "livez", "healthz"} {
		code, body, nosniff := serve("/"+root, BootstrapRoles, BootstrapController)
		if code != 500 || nosniff != "nosniff" || !strings.Contains(body, "[+]poststarthook/start-service-ip-repair-controllers ok\n[-]poststarthook/rbac/bootstrap-roles failed: reason withheld\n[+]poststarthook/scheduling/bootstrap-system-priority-classes ok\n") ||
			!strings.Contains(body, "[-]poststarthook/bootstrap-controller failed: reason withheld\n") || !strings.HasSuffix(body, "\n"+root+" check failed\n") {
			t.Errorf("/%s with hooks pending: %d %q", root, code, body)
		}
	}
}

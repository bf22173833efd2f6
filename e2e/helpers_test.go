// Package e2e drives the real core with real clients: kubectl, client-go, and the
// playground binary itself.
package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kubeplay/core/apiserver"
	"kubeplay/core/controllers"
	"kubeplay/core/sandbox"
)

// startServer serves a fresh in-memory core over loopback HTTP for the test.
func startServer(t testing.TB, cfg apiserver.Config) (*httptest.Server, *sandbox.Server) {
	t.Helper()
	return startCore(t, sandbox.Config{API: cfg})
}

// startCore is startServer with the core's configuration.
func startCore(t testing.TB, cfg sandbox.Config) (*httptest.Server, *sandbox.Server) {
	t.Helper()
	srv, err := sandbox.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		srv.Close()
	})
	return hs, srv
}

// fromTheServer says whether the server's own controllers (the namespace
// controller, the garbage collector, the CustomResourceDefinition controller)
// sent r: what the tests count is their clients' requests.
func fromTheServer(r *http.Request) bool {
	ua := r.UserAgent()
	return strings.HasPrefix(ua, controllers.UserAgent) || strings.HasPrefix(ua, "kube-apiserver/")
}

// writeKubeconfig writes a kubeconfig pointing at url and returns its path.
func writeKubeconfig(t testing.TB, url string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: kp\n  cluster:\n    server: " + url +
		"\nusers:\n- name: kp\n  user:\n    token: kubeplay\ncontexts:\n- name: kp\n  context:\n    cluster: kp\n    user: kp\n    namespace: default\ncurrent-context: kp\n"
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

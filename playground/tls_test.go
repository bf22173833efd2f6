package main

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWORK_1_TLSThatKubectlTrusts: with --tls the server answers HTTPS
// (HTTP/2 too) with a certificate its own CA signed for localhost and this
// machine's addresses; the kubeconfig it writes embeds that CA, so kubectl
// verifies the server and sends its token (`auth whoami` is the token's
// user, not the tokenless sandbox user), while a request without a token is
// system:anonymous. A restart keeps the CA, so kubeconfigs handed out stay
// valid; a name added to --allowed-hosts gets a new serving certificate
// from the same CA.
func TestWORK_1_TLSThatKubectlTrusts(t *testing.T) {
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	s := startPlayground(t, options{tls: tlsOptions{on: true, dir: filepath.Join(dir, "tls")}, kubeconfigOut: kc})
	if !strings.HasPrefix(s.url, "https://") {
		t.Fatalf("url %s", s.url)
	}
	out, err := exec.Command("kubectl", "--kubeconfig", kc, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}").CombinedOutput()
	if err != nil || string(out) != "kubernetes-admin" {
		t.Fatalf("kubectl auth whoami: %v: %s", err, out)
	}
	caPEM, err := os.ReadFile(filepath.Join(dir, "tls", caFile))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}, Timeout: 10 * time.Second}
	res, err := client.Get(strings.Replace(s.url, "127.0.0.1", "localhost", 1) + "/api/v1/namespaces")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 403 || res.ProtoMajor != 2 {
		t.Errorf("a request without a token over TLS: %d over HTTP/%d, want system:anonymous's 403 over HTTP/2", res.StatusCode, res.ProtoMajor)
	}

	// Restarted with a new name: the same CA, a certificate that names it.
	s.shutdown()
	s2 := startPlayground(t, options{tls: tlsOptions{on: true, dir: filepath.Join(dir, "tls")}, allowedHosts: "laptop.lan"})
	again, _ := os.ReadFile(filepath.Join(dir, "tls", caFile))
	if string(again) != string(caPEM) {
		t.Error("a restart made a new CA")
	}
	conn, err := tls.Dial("tcp", strings.TrimPrefix(s2.url, "https://"), &tls.Config{RootCAs: pool, ServerName: "laptop.lan"})
	if err != nil {
		t.Fatalf("the certificate for laptop.lan: %v", err)
	}
	conn.Close()
}

// TestWORK_1_TLSBadFiles: certificate files that cannot be read or parsed
// stop the start with a message naming them.
func TestWORK_1_TLSBadFiles(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.pem")
	if err := os.WriteFile(bad, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o    tlsOptions
		want string
	}{
		{tlsOptions{on: true, certFile: bad, keyFile: bad}, "--tls-cert " + bad},
		{tlsOptions{on: true, certFile: filepath.Join(dir, "missing.pem"), keyFile: bad}, "no such file"},
		{tlsOptions{on: true, certFile: bad}, "--tls-cert and --tls-key go together"},
	} {
		o := options{listen: "127.0.0.1:0", limits: defaultLimits, apiOnly: true, tls: c.o}
		if s, err := start(o); err == nil || !strings.Contains(err.Error(), c.want) {
			if s != nil {
				s.shutdown()
			}
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
	// A kept CA that is damaged is named, with how to start afresh.
	tlsDir := filepath.Join(dir, "tls")
	if err := os.MkdirAll(tlsDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tlsDir, caFile), []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := start(options{listen: "127.0.0.1:0", limits: defaultLimits, apiOnly: true, tls: tlsOptions{on: true, dir: tlsDir}}); err == nil || !strings.Contains(err.Error(), "the kept CA") {
		t.Errorf("a damaged CA: %v", err)
	}
}

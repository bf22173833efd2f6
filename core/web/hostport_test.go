package web

import (
	"net"
	"testing"
)

var hostports = []string{
	"", "example.com", "example.com:443", "host:", ":80", "10.0.0.1", "10.0.0.1:6443",
	"::1", "[::1]", "[::1]:8080", "[::1]:", "a:b:c", "[a]b:1", "[[::1]]:1", "[::1]:80:80",
	"[::1]]:80", "x]:80", "x[:80", "[fe80::1%eth0]:443",
}

func TestHostPortMatchesNet(t *testing.T) {
	for _, hp := range hostports {
		checkHostPort(t, hp)
	}
}

func FuzzHostPortMatchesNet(f *testing.F) {
	for _, hp := range hostports {
		f.Add(hp)
	}
	f.Fuzz(checkHostPort)
}

func checkHostPort(t *testing.T, hp string) {
	_, _, err := net.SplitHostPort(hp)
	if got := HasPort(hp); got != (err == nil) {
		t.Errorf("HasPort(%q) = %v, net.SplitHostPort error %v", hp, got, err)
	}
	if got, want := JoinHostPort(hp, "443"), net.JoinHostPort(hp, "443"); got != want {
		t.Errorf("JoinHostPort(%q) = %q, net says %q", hp, got, want)
	}
}

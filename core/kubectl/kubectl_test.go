package kubectl

import (
	"bytes"
	"context"
	"net/http"
	"testing"
)

func TestLEARN_1_VersionAndUnknownCommand(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/version" || r.Header.Get("User-Agent") != "kubectl/"+Version+" (linux/amd64) kubernetes/kubeplay" {
			t.Errorf("request %s %s UA %q", r.Method, r.URL, r.Header.Get("User-Agent"))
		}
		w.Write([]byte(`{"gitVersion":"v1.32.13+kubeplay"}`))
	})
	var out, errOut bytes.Buffer
	env := &Env{Handler: h, Server: "http://127.0.0.1:1", Platform: "linux/amd64", Stdout: &out, Stderr: &errOut}
	if code := Run(context.Background(), env, []string{"version"}); code != 0 || out.String() != "Client Version: v1.32.13\nKustomize Version: v5.5.0\nServer Version: v1.32.13+kubeplay\n" {
		t.Fatalf("version: %d %q %q", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := Run(context.Background(), env, []string{"-n", "x", "frobnicate"}); code != 1 || errOut.String() != "error: unknown command \"frobnicate\" for \"kubectl\"\n" {
		t.Fatalf("unknown: %d %q", code, errOut.String())
	}
}

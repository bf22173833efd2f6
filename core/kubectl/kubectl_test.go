package kubectl

import (
	"bytes"
	"context"
	"net/http"
	"strings"
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
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"frobnicate", "-n", "x"}, "Error: unknown command \"frobnicate\" for \"kubectl\"\n"},
		{[]string{"-n", "x", "frobnicate"}, "Error: flags cannot be placed before plugin name: -n\n"},
		{[]string{"get", "pods", "--frob"}, "Error: unknown flag: --frob\nSee 'kubectl get --help' for usage.\n"},
	} {
		errOut.Reset()
		if code := Run(context.Background(), env, c.args); code != 1 || errOut.String() != c.err {
			t.Errorf("%q: %d %q, want 1 %q", c.args, code, errOut.String(), c.err)
		}
	}
	out.Reset()
	if code := Run(context.Background(), env, nil); code != 0 || !strings.HasPrefix(out.String(), "kubectl controls the Kubernetes cluster manager.\n") {
		t.Errorf("no command: %d %q", code, out.String())
	}
}

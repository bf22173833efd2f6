package main

import (
	"kubeplay/core/auth"

	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestROB_5_TokenFileTurnsAnonymousOff: with --token-file, a request without a
// token is 401 Unauthorized, as kube-apiserver with a token authenticator and
// AlwaysAllow answers it (anonymous requests once created objects and
// impersonated system:masters there); --anonymous-auth=true turns them back
// on, and without a token file the sandbox's own table keeps them.
func TestROB_5_TokenFileTurnsAnonymousOff(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(file, []byte("alice-token,alice,alice-uid,\"devs\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	yes := true
	n := 0
	for _, c := range []struct {
		what      string
		o         options
		anonymous int // what a request without a token gets
	}{
		// Under AlwaysAllow (alice is bound to no role): what these say is
		// who a request is.
		{"a token file", options{tokenFile: file, authorization: auth.ModeAlwaysAllow}, 401},
		{"a token file and --anonymous-auth=true", options{tokenFile: file, anonymousAuth: &yes, authorization: auth.ModeAlwaysAllow}, 201},
		{"the sandbox's own table", options{}, 201},
	} {
		s := startPlayground(t, c.o)
		for _, req := range []struct {
			header map[string]string
			want   int
		}{
			{nil, c.anonymous},
			{map[string]string{"Impersonate-User": "admin", "Impersonate-Group": "system:masters"}, c.anonymous},
			{map[string]string{"Authorization": "Bearer alice-token"}, 201},
		} {
			if c.o.tokenFile == "" && req.want == 201 && req.header["Authorization"] != "" {
				req.header["Authorization"] = "Bearer kubeplay"
			}
			n++
			code, _, body := send(t, s, "POST", cmPath, "", merge(req.header, map[string]string{"Content-Type": "application/json"}), configMapBody(fmt.Sprintf("cm-%d", n)))
			if code != req.want {
				t.Errorf("%s, %v: %d %s", c.what, req.header, code, body)
			}
			if code == 401 && !strings.Contains(body, `"reason":"Unauthorized"`) {
				t.Errorf("%s: not kube's 401: %s", c.what, body)
			}
		}
	}
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range []map[string]string{a, b} {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

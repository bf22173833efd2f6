package kubectl

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// diffStamp is what differs between two runs of kubectl diff: its
// directories' random names and the files' times.
var diffStamp = regexp.MustCompile(`(LIVE|MERGED)-\d+|\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} [+-]\d{4}`)

// TestLEARN_1_DiffFile plays kubectl diff -f against a sandbox: a new
// object is a dry-run create, a changed one apply's client-side patch
// (with the live resourceVersion) sent as a dry run, an unchanged one no
// write at all; exit 1 when different, 0 when the same, 2 on an error.
// The outputs and requests are kubectl 1.32's, as it printed and sent
// them against the playground.
func TestLEARN_1_DiffFile(t *testing.T) {
	sb := newTestSandbox(t)
	var requests []string
	env := &Env{Handler: sb, Server: "http://127.0.0.1", Namespace: "default", Platform: "linux/amd64",
		Exchange: func(e Exchange) {
			if !strings.Contains(e.URL, "/openapi/") && !strings.HasSuffix(e.URL, "/api?timeout=32s") && !strings.HasSuffix(e.URL, "/apis?timeout=32s") {
				requests = append(requests, e.Method+" "+strings.TrimPrefix(e.URL, "http://127.0.0.1")+" "+volatile.ReplaceAllString(string(e.RequestBody), "X"))
			}
		}}
	cm := func(data string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d1\ndata:\n" + data
	}
	run := func(stdin string, args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		env.Stdin, env.Stdout, env.Stderr = strings.NewReader(stdin), &out, &errOut
		requests = nil
		code := Run(context.Background(), env, args)
		return volatile.ReplaceAllString(diffStamp.ReplaceAllString(out.String(), "$1"), "X"), errOut.String(), code
	}
	cases := []struct {
		name, stdin      string
		args             []string
		stdout, stderr   string
		code             int
		wantRequests     []string
		setupApplyBefore bool
	}{
		{name: "new", stdin: cm("  a: \"1\"\n"), args: []string{"diff", "-f", "-"}, code: 1,
			stdout: "diff -u -N /tmp/LIVE/v1.ConfigMap.default.d1 /tmp/MERGED/v1.ConfigMap.default.d1\n" +
				"--- /tmp/LIVE/v1.ConfigMap.default.d1\n+++ /tmp/MERGED/v1.ConfigMap.default.d1\n@@ -0,0 +1,9 @@\n" +
				"+apiVersion: v1\n+data:\n+  a: \"1\"\n+kind: ConfigMap\n+metadata:\n+  creationTimestamp: \"X\"\n+  name: d1\n+  namespace: default\n+  uid: X\n",
			wantRequests: []string{
				"GET /api/v1/namespaces/default/configmaps/d1 ",
				`POST /api/v1/namespaces/default/configmaps?dryRun=All&fieldManager=kubectl-client-side-apply {"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap","metadata":{"name":"d1","namespace":"default"}}` + "\n",
			}},
		{name: "same", stdin: cm("  a: \"1\"\n"), args: []string{"diff", "-f", "-"}, setupApplyBefore: true,
			wantRequests: []string{"GET /api/v1/namespaces/default/configmaps/d1 "}},
		{name: "changed", stdin: cm("  b: \"2\"\n"), args: []string{"diff", "-f", "-"}, code: 1,
			stdout: "diff -u -N /tmp/LIVE/v1.ConfigMap.default.d1 /tmp/MERGED/v1.ConfigMap.default.d1\n" +
				"--- /tmp/LIVE/v1.ConfigMap.default.d1\n+++ /tmp/MERGED/v1.ConfigMap.default.d1\n@@ -1,6 +1,6 @@\n" +
				" apiVersion: v1\n data:\n-  a: \"1\"\n+  b: \"2\"\n kind: ConfigMap\n metadata:\n   annotations:\n",
			wantRequests: []string{
				"GET /api/v1/namespaces/default/configmaps/d1 ",
				`PATCH /api/v1/namespaces/default/configmaps/d1?dryRun=All&fieldManager=kubectl-client-side-apply {"data":{"a":null,"b":"2"},"metadata":{X}}`,
			}},
		{name: "no file", args: []string{"diff"}, code: 2, stderr: "error: must specify one of -f and -k\n"},
		{name: "force without server-side", stdin: cm(""), args: []string{"diff", "--force-conflicts", "-f", "-"}, code: 2,
			stderr: "error: --force-conflicts only works with --server-side\n"},
		{name: "unknown kind", stdin: "apiVersion: v1\nkind: Foo\nmetadata:\n  name: x\n", args: []string{"diff", "-f", "-"}, code: 2,
			stderr: "error: resource mapping not found for name: \"x\" namespace: \"\" from \"STDIN\": no matches for kind \"Foo\" in version \"v1\"\nensure CRDs are installed first\n"},
	}
	for _, tc := range cases {
		if tc.setupApplyBefore {
			if _, errOut, code := run(tc.stdin, "apply", "-f", "-"); code != 0 {
				t.Fatalf("%s: apply: %s", tc.name, errOut)
			}
		}
		stdout, stderr, code := run(tc.stdin, tc.args...)
		if tc.name == "changed" {
			// The rest of the hunk is the annotation's, unchanged.
			stdout = stdout[:min(len(stdout), len(tc.stdout))]
		}
		if stdout != tc.stdout || stderr != tc.stderr || code != tc.code {
			t.Errorf("%s: got exit %d, stdout\n%s\nstderr\n%s\nwant exit %d, stdout\n%s\nstderr\n%s", tc.name, code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
		}
		if tc.wantRequests != nil && strings.Join(requests, "\n") != strings.Join(tc.wantRequests, "\n") {
			t.Errorf("%s: requests\n%s\nwant\n%s", tc.name, strings.Join(requests, "\n"), strings.Join(tc.wantRequests, "\n"))
		}
	}
}

// TestLEARN_1_GetDescribeFile plays get -f and describe -f: each
// manifest's object fetched by name in its own namespace (a missing one's
// namespace asked after), printed as get and describe print objects; one
// file of one object is a single item to -o yaml, the standard input a
// List, as kubectl's builder implies.
func TestLEARN_1_GetDescribeFile(t *testing.T) {
	sb := newTestSandbox(t)
	dir := t.TempDir()
	manifest := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c1\n  namespace: team\n"
	if err := os.WriteFile(filepath.Join(dir, "c1.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	var requests []string
	env := &Env{Handler: sb, Server: "http://127.0.0.1", Namespace: "default", Platform: "linux/amd64", Files: os.DirFS(dir),
		Exchange: func(e Exchange) {
			if !strings.Contains(e.URL, "/openapi/") && !strings.HasSuffix(e.URL, "api?timeout=32s") && !strings.HasSuffix(e.URL, "apis?timeout=32s") {
				requests = append(requests, e.Method+" "+strings.TrimPrefix(e.URL, "http://127.0.0.1"))
			}
		}}
	run := func(stdin string, args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		env.Stdin, env.Stdout, env.Stderr = strings.NewReader(stdin), &out, &errOut
		requests = nil
		code := Run(context.Background(), env, args)
		return out.String(), errOut.String(), code
	}
	for _, args := range [][]string{{"create", "namespace", "team"}, {"create", "configmap", "c1", "-n", "team", "--from-literal=a=1"}} {
		if _, errOut, code := run("", args...); code != 0 {
			t.Fatal(errOut)
		}
	}
	two := manifest + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: gone\n  namespace: team\n"
	out, errOut, code := run(two, "get", "-f", "-", "-o", "name")
	wantReqs := "GET /api/v1/namespaces/team/configmaps/c1\nGET /api/v1/namespaces/team/configmaps/gone\nGET /api/v1/namespaces/team"
	if out != "configmap/c1\n" || errOut != "Error from server (NotFound): configmaps \"gone\" not found\n" || code != 1 || strings.Join(requests, "\n") != wantReqs {
		t.Errorf("get -f -: exit %d, stdout %q, stderr %q, requests\n%s", code, out, errOut, strings.Join(requests, "\n"))
	}
	if out, _, _ := run("", "get", "-f", "c1.yaml", "-o", "yaml"); !strings.HasPrefix(out, "apiVersion: v1\ndata:\n") {
		t.Errorf("get -f c1.yaml -o yaml is not the single object:\n%s", out)
	}
	if out, _, _ := run(manifest, "get", "-f", "-", "-o", "yaml"); !strings.HasPrefix(out, "apiVersion: v1\nitems:\n") {
		t.Errorf("get -f - -o yaml is not a List:\n%s", out)
	}
	// A document that cannot be mapped is reported after the others are
	// printed, as kubectl's ContinueOnError builder reports it.
	out, errOut, code = run("apiVersion: v1\nkind: Foo\nmetadata:\n  name: x\n---\n"+manifest, "get", "-f", "-", "-o", "name")
	if out != "configmap/c1\n" || errOut != "resource mapping not found for name: \"x\" namespace: \"\" from \"STDIN\": no matches for kind \"Foo\" in version \"v1\"\nensure CRDs are installed first\n" || code != 1 {
		t.Errorf("get -f - with an unknown kind: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, errOut, code := run("apiVersion: v1\nkind: Foo\nmetadata:\n  name: x\n", "describe", "-f", "-"); code != 1 || !strings.HasPrefix(errOut, "resource mapping not found") {
		t.Errorf("describe -f - with an unknown kind: exit %d, stderr %q", code, errOut)
	}
	out, errOut, code = run(two, "describe", "-f", "-")
	if !strings.HasPrefix(out, "Name:         c1\nNamespace:    team\n") || errOut != "Error from server (NotFound): configmaps \"gone\" not found\n" || code != 1 {
		t.Errorf("describe -f -: exit %d, stdout\n%s\nstderr %q", code, out, errOut)
	}
}

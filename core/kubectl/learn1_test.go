package kubectl_test

// This file owns the golden tests of describe, events, explain, wait and
// auth (LEARN-1): a fixture of objects with fixed names, addresses and
// times in an in-process API-only sandbox; each case's exit code, stdout,
// stderr and requests recorded from the real kubectl 1.32 into
// testdata/learn1 (go test -run TestLEARN_1_Goldens -args -learn1-record, with
// /usr/bin/kubectl) and compared with this package's, in-process, after
// normalizing what two runs make differently (uids, server timestamps,
// resourceVersions, ages and the columns they widen).

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"kubeplay/core/auth"
	"kubeplay/core/kubectl"
	"kubeplay/core/sandbox"
)

var learn1Record = flag.Bool("learn1-record", false, "record the goldens from /usr/bin/kubectl")

// learn1Cases are the command lines, one golden file each.
var learn1Cases = []string{
	"describe pod web-1",
	"describe pods",
	"describe pod/web-1 configmap/app-config",
	"describe deploy web",
	"describe rs web-abc",
	"describe svc web",
	"describe node node-a",
	"describe ns default",
	"describe ns quota-ns",
	"describe cm app-config",
	"describe secret app-secret",
	"describe job job-1",
	"describe lease -n kube-node-lease node-a",
	"describe pods -l app=web",
	"describe pods -l app=none",
	"describe pods -A -l app=none",
	"describe pods we",
	"describe pod nosuch",
	"describe pod/a pod/b",
	"describe",
	"describe pod web-1 --show-events=false",
	"events",
	"events --for pod/web-1",
	"events -A --types=Warning",
	"events --types=Foo",
	"explain pods.spec.containers.ports",
	"explain deploy --recursive",
	"explain svc.spec.type",
	"explain pods.spec.nope",
	"auth whoami",
	"auth can-i create pods",
	"auth can-i create nodes",
	"auth can-i list secrets --as=system:serviceaccount:default:default",
	"wait --for=condition=Available deploy/web --timeout=0",
	"wait --for=condition=Nope deploy/web --timeout=0",
	"wait --for=jsonpath={.status.phase}=Running pod/web-1 --timeout=5s",
	"wait --for=delete pod/nosuch",
}

func TestLEARN_1_Goldens(t *testing.T) {
	srv, err := sandbox.NewServer(sandbox.Config{APIOnly: true, Tokenless: learn1Ptr(auth.Admin())})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	learn1Fixture(t, hs.URL)
	for i, line := range learn1Cases {
		args := strings.Fields(line)
		file := filepath.Join("testdata", "learn1", fmt.Sprintf("%02d-%s.golden", i, learn1Name(line)))
		t.Run(learn1Name(line), func(t *testing.T) {
			if *learn1Record {
				got := learn1Real(t, hs.URL, args)
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (record the goldens with -args -learn1-record)", err)
			}
			if got := learn1Ours(hs.URL, srv, args); got != string(want) {
				t.Errorf("kubectl %s differs from kubectl 1.32's (%s):\n%s", line, file, learn1Diff(string(want), got))
			}
		})
	}
}

func learn1Ptr[T any](v T) *T { return &v }

func learn1Name(line string) string {
	return strings.Trim(regexp.MustCompile(`[^a-zA-Z0-9]+`).ReplaceAllString(line, "-"), "-")
}

// learn1Real runs /usr/bin/kubectl against the sandbox and returns its
// normalized learn1Transcript.
func learn1Real(t *testing.T, server string, args []string) string {
	t.Helper()
	home := t.TempDir()
	cfg := filepath.Join(home, "kubeconfig")
	os.WriteFile(cfg, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: kp\n  cluster:\n    server: "+server+
		"\nusers:\n- name: kp\n  user: {}\ncontexts:\n- name: kp\n  context:\n    cluster: kp\n    user: kp\n    namespace: default\ncurrent-context: kp\n"), 0o600)
	run := func(extra ...string) (string, string, int) {
		cmd := exec.Command("/usr/bin/kubectl", append(append([]string{}, args...), extra...)...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+cfg, "HOME="+home)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code := 0
		if err := cmd.Run(); err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			code = ee.ExitCode()
		}
		return stdout.String(), stderr.String(), code
	}
	// The requests from a run at -v=6; the output from one without.
	_, log, _ := run("-v=6")
	stdout, stderr, code := run()
	var reqs []string
	request := regexp.MustCompile(`(?m)^[IWEF]\d{4} [\d:.]+ +\d+ round_trippers.go:\d+\] (GET|POST|PUT|PATCH|DELETE) (\S+) `)
	for _, m := range request.FindAllStringSubmatch(log, -1) {
		reqs = append(reqs, m[1]+" "+strings.TrimPrefix(m[2], server))
	}
	return learn1Transcript(code, stdout, stderr, reqs)
}

// learn1Ours runs this package's kubectl in-process and returns its
// normalized learn1Transcript.
func learn1Ours(server string, h http.Handler, args []string) string {
	var stdout, stderr bytes.Buffer
	var reqs []string
	env := &kubectl.Env{Handler: h, Server: server, Namespace: "default", Stdout: &stdout, Stderr: &stderr,
		Exchange: func(ex kubectl.Exchange) { reqs = append(reqs, ex.Method+" "+strings.TrimPrefix(ex.URL, server)) }}
	code := kubectl.Run(context.Background(), env, args)
	return learn1Transcript(code, stdout.String(), stderr.String(), reqs)
}

var (
	l1UID         = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	l1RFC3339     = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
	l1RFC1123     = regexp.MustCompile(`[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d [+-]\d{4}`)
	l1RV          = regexp.MustCompile(`(Resource Version:\s+)\d+`)
	l1Age         = regexp.MustCompile(`\b\d+[smhdy](\d+[smhd])?\b|<unknown>`)
	l1Spaces      = regexp.MustCompile(`(\S)  +`)
	l1QueryVal    = regexp.MustCompile(`(resourceVersion|timeoutSeconds|hash)=[^&]+`)
	l1FieldSel    = regexp.MustCompile(`fieldSelector=([^&]+)`)
	l1ServerTimes = regexp.MustCompile(`2026-|2025-|2027-`)
)

// learn1Transcript is a run as a golden file holds it: exit code, stdout,
// stderr, requests (discovery's left out: it is cached between runs),
// normalized.
func learn1Transcript(code int, stdout, stderr string, reqs []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "exit %d\n--- stdout\n%s--- stderr\n%s--- requests\n", code, learn1Normalize(stdout), learn1Normalize(stderr))
	for _, r := range reqs {
		method, u, _ := strings.Cut(r, " ")
		if path, _, _ := strings.Cut(u, "?"); path == "/api" || path == "/apis" {
			continue
		}
		u = l1QueryVal.ReplaceAllString(u, "$1=N")
		u = l1FieldSel.ReplaceAllStringFunc(u, func(s string) string {
			v, _ := url.QueryUnescape(strings.TrimPrefix(s, "fieldSelector="))
			terms := strings.Split(v, ",")
			sort.Strings(terms)
			return "fieldSelector=" + url.QueryEscape(strings.Join(terms, ","))
		})
		b.WriteString(method + " " + l1UID.ReplaceAllString(u, "<uid>") + "\n")
	}
	return b.String()
}

// learn1Normalize replaces what differs between two runs; a line with an age
// has its column spacing squeezed, the ages' widths being the run's.
func learn1Normalize(s string) string {
	s = l1UID.ReplaceAllString(s, "<uid>")
	s = l1RV.ReplaceAllString(s, "${1}N")
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if !l1Age.MatchString(l) && !l1RFC3339.MatchString(l) && !l1RFC1123.MatchString(l) {
			continue
		}
		l = l1RFC3339.ReplaceAllStringFunc(l, func(ts string) string {
			if l1ServerTimes.MatchString(ts) {
				return "<time>"
			}
			return ts
		})
		l = l1RFC1123.ReplaceAllStringFunc(l, func(ts string) string {
			if strings.Contains(ts, " 2025 ") || strings.Contains(ts, " 2026 ") || strings.Contains(ts, " 2027 ") {
				return "<date>"
			}
			return ts
		})
		l = l1Age.ReplaceAllString(l, "<age>")
		lines[i] = l1Spaces.ReplaceAllString(l, "$1  ")
	}
	return strings.Join(lines, "")
}

// learn1Diff shows the first lines where want and got differ.
func learn1Diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, wl, gl)
		}
	}
	return ""
}

// learn1Fixture creates the objects the goldens describe: fixed names,
// addresses and (past) times; owners' uids read back for their dependents.
func learn1Fixture(t *testing.T, server string) {
	t.Helper()
	do := func(method, path string, body any) map[string]any {
		data, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, server+path, bytes.NewReader(data))
		req.Header.Set("Content-Type", "application/json")
		if method == "PATCH" {
			req.Header.Set("Content-Type", "application/merge-patch+json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode/100 != 2 && resp.StatusCode != 409 {
			t.Fatalf("%s %s: %d %v", method, path, resp.StatusCode, out)
		}
		return out
	}
	uid := func(o map[string]any) string { return o["metadata"].(map[string]any)["uid"].(string) }
	var fixture map[string][]map[string]any
	data, err := os.ReadFile(filepath.Join("testdata", "learn1", "fixture.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &fixture); err != nil {
		t.Fatal(err)
	}
	uids := map[string]string{}
	for _, step := range fixture["steps"] {
		path := step["path"].(string)
		body := step["body"].(map[string]any)
		raw, _ := json.Marshal(body)
		text := string(raw)
		for name, u := range uids {
			text = strings.ReplaceAll(text, "UID:"+name, u)
		}
		json.Unmarshal([]byte(text), &body)
		method := "POST"
		if m, ok := step["method"].(string); ok {
			method = m
		}
		out := do(method, path, body)
		if key, ok := step["uid"].(string); ok {
			uids[key] = uid(out)
		}
	}
}

// TestLEARN_1_ContainerCommandsSayWhy: exec, attach, port-forward, cp,
// proxy and debug say in one sentence why a sandbox of simulated Pods
// cannot, and what to use instead; exit 1; no request (never a NotFound).
func TestLEARN_1_ContainerCommandsSayWhy(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"exec", "-it", "web-1", "-c", "nginx", "--", "sh"}, "error: kubectl exec cannot run a command here: the sandbox's Pods are simulated and run no processes; use `kubectl logs POD`"},
		{[]string{"attach", "web-1"}, "use `kubectl logs -f POD`"},
		{[]string{"port-forward", "svc/web", "8080:80"}, "error: kubectl port-forward cannot forward a port here"},
		{[]string{"cp", "web-1:/etc/hosts", "hosts"}, "error: kubectl cp cannot copy files here"},
		{[]string{"proxy", "--port=8001"}, "error: kubectl proxy cannot listen here"},
		{[]string{"debug", "-it", "web-1", "--image=busybox"}, "error: kubectl debug cannot start a debugging container here"},
	} {
		var stdout, stderr bytes.Buffer
		requests := 0
		env := &kubectl.Env{Handler: http.NotFoundHandler(), Server: "http://127.0.0.1:1", Stdout: &stdout, Stderr: &stderr,
			Exchange: func(kubectl.Exchange) { requests++ }}
		code := kubectl.Run(context.Background(), env, c.args)
		if code != 1 || stdout.Len() != 0 || !strings.HasPrefix(stderr.String(), c.want) && !strings.Contains(stderr.String(), c.want) ||
			strings.Count(stderr.String(), "\n") != 1 || requests != 0 {
			t.Errorf("kubectl %s: exit %d, %d requests, stdout %q, stderr %q; want exit 1 and %q", strings.Join(c.args, " "), code, requests, stdout.String(), stderr.String(), c.want)
		}
	}
}

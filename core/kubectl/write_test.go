package kubectl

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kubeplay/core/auth"
	"kubeplay/core/sandbox"
)

// The write commands' cases (testdata/write/*.txt) are played by the real
// kubectl into goldens (testdata/write/*.golden: its stdout, stderr, exit
// code and the requests that reached the server), each against a fresh
// API-only sandbox, when KUBECTL_RECORD=1 and /usr/bin/kubectl is there;
// the test plays them with this package against a fresh sandbox in-process
// and wants the same.
//
// A case file: lines "setup: ARGS" (commands run first, by the same
// kubectl), "run: ARGS" (the command compared), "stdin: FILE", and
// "urls-only" (compare requests' methods and URLs only: kubectl's typed
// clients send protobuf where this package sends JSON); then files, each
// after a "-- NAME --" line.

type writeCase struct {
	name     string
	editor   string // "FROM => TO": what the editor replaces; "empty": it empties the file
	setup    [][]string
	run      []string
	stdin    string
	urlsOnly bool
	files    map[string]string
}

// golden is what kubectl did.
type golden struct {
	Stdout   string          `json:"stdout"`
	Stderr   string          `json:"stderr"`
	Code     int             `json:"code"`
	Requests []goldenRequest `json:"requests"`
	Edits    []string        `json:"edits,omitempty"` // the files the editor was given
}

type goldenRequest struct {
	Method      string `json:"method"`
	URL         string `json:"url"` // path and query
	Accept      string `json:"accept,omitempty"`
	ContentType string `json:"contentType,omitempty"`
	Body        string `json:"body,omitempty"`
}

func readCase(t *testing.T, path string) writeCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := writeCase{name: strings.TrimSuffix(filepath.Base(path), ".txt"), files: map[string]string{}}
	var file string
	for _, line := range strings.SplitAfter(string(data), "\n") {
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") {
			file = strings.TrimSuffix(strings.TrimPrefix(trimmed, "-- "), " --")
			c.files[file] = ""
			continue
		}
		if file != "" {
			c.files[file] += line
			continue
		}
		switch k, v, _ := strings.Cut(trimmed, ": "); k {
		case "setup":
			c.setup = append(c.setup, splitArgs(v))
		case "run":
			c.run = splitArgs(v)
		case "stdin":
			c.stdin = v
		case "urls-only":
			c.urlsOnly = true
		case "editor":
			c.editor = v
		}
	}
	return c
}

// splitArgs splits a command line on spaces, with '...' quoting.
func splitArgs(s string) []string {
	var args []string
	var cur strings.Builder
	quoted, any := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, any = !quoted, true
		case r == ' ' && !quoted:
			if any {
				args = append(args, cur.String())
			}
			cur.Reset()
			any = false
		default:
			cur.WriteRune(r)
			any = true
		}
	}
	if any {
		args = append(args, cur.String())
	}
	return args
}

// newTestSandbox is a fresh API-only sandbox whose tokenless requests are
// its admin's.
func newTestSandbox(t *testing.T) *sandbox.Sandbox {
	t.Helper()
	admin := auth.Admin()
	sb, err := sandbox.New(sandbox.Config{APIOnly: true, Tokenless: &admin})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

var klogTime = regexp.MustCompile(`(?m)^E\d{4} \d\d:\d\d:\d\d\.\d{6}\s+\d+ `)
var editFile = regexp.MustCompile(`/tmp/kubectl-edit-\d+\.yaml`)
var watchTimeout = regexp.MustCompile(`timeoutSeconds=\d+|resourceVersion=[1-9]\d*`)

// volatile is what differs between two fresh sandboxes in a request's
// body: UIDs, times, resource versions.
var volatile = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ|"resourceVersion":"\d+"|resourceVersion: "\d+"`)

// normalize masks what differs between runs: klog's time and process,
// edit's temporary file.
func normalize(s string) string {
	return editFile.ReplaceAllString(klogTime.ReplaceAllString(s, "E0000 00:00:00.000000 1 "), "/tmp/kubectl-edit-N.yaml")
}

// normalizeURL masks a watch's random timeout and the resource version it
// starts from (background writes make it differ).
func normalizeURL(u string) string {
	return watchTimeout.ReplaceAllStringFunc(u, func(s string) string { return s[:strings.IndexByte(s, '=')+1] + "N" })
}

// runOurs plays a case with this package against a fresh sandbox.
func runOurs(t *testing.T, c writeCase, dir string) golden {
	sb := newTestSandbox(t)
	var g golden
	var out, errOut bytes.Buffer
	env := &Env{Handler: sb, Server: "http://127.0.0.1", Namespace: "default", Platform: "linux/amd64", Files: os.DirFS(dir)}
	ctx := context.Background()
	// Setup is not under test: a command that fails is tried again for a
	// while (what kubectl wait does in the recording, here a CRD being
	// established), and wait itself is skipped.
	for _, args := range c.setup {
		if args[0] == "wait" {
			// kubectl wait's condition, polled: the CRD Established.
			if len(args) > 2 && args[1] == "--for=condition=Established" {
				for try := 0; try < 200; try++ {
					var out bytes.Buffer
					env.Stdout, env.Stderr = &out, &bytes.Buffer{}
					Run(ctx, env, []string{"get", args[2], "-o", `jsonpath={.status.conditions[?(@.type=="Established")].status}`})
					if out.String() == "True" {
						break
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
			continue
		}
		for try := 0; try < 200; try++ {
			env.Stdout, env.Stderr = &bytes.Buffer{}, &bytes.Buffer{}
			if Run(ctx, env, args) == 0 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	env.Stdout, env.Stderr = &out, &errOut
	env.Edit = func(_ context.Context, _ string, content []byte) ([]byte, error) {
		g.Edits = append(g.Edits, string(content))
		if c.editor == "empty" {
			return nil, nil
		}
		from, to, _ := strings.Cut(c.editor, " => ")
		return []byte(strings.ReplaceAll(string(content), from, to)), nil
	}
	if c.stdin != "" {
		env.Stdin = strings.NewReader(c.files[c.stdin])
	}
	env.Exchange = func(e Exchange) {
		r := goldenRequest{Method: e.Method, URL: normalizeURL(strings.TrimPrefix(e.URL, env.Server)), Body: string(e.RequestBody)}
		for _, h := range e.RequestHeader {
			switch h[0] {
			case "Accept":
				r.Accept = h[1]
			case "Content-Type":
				r.ContentType = h[1]
			}
		}
		g.Requests = append(g.Requests, r)
	}
	g.Code = Run(ctx, env, c.run)
	g.Stdout, g.Stderr = out.String(), normalize(errOut.String())
	return g
}

// runKubectl plays a case with the real kubectl against a sandbox that
// records the requests of the compared command as they reach it (kubectl's
// caches answer the others: discovery, immutable OpenAPI documents).
func runKubectl(t *testing.T, c writeCase, dir string) golden {
	var g golden
	sb := newTestSandbox(t)
	var mu sync.Mutex
	recording := false
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		// /usr/bin/kubectl is gcloud's dispatcher, which asks the
		// server's version (with a 5s timeout) to choose a kubectl.
		if recording && r.URL.RequestURI() != "/version?timeout=5s" {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			g.Requests = append(g.Requests, goldenRequest{Method: r.Method, URL: normalizeURL(r.URL.RequestURI()),
				Accept: r.Header.Get("Accept"), ContentType: r.Header.Get("Content-Type"), Body: string(body)})
		}
		mu.Unlock()
		sb.ServeHTTP(w, r)
	}))
	defer hs.Close()
	kubeconfig := filepath.Join(t.TempDir(), "config")
	os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: "+hs.URL+
		"\ncontexts:\n- name: c\n  context:\n    cluster: c\n    namespace: default\ncurrent-context: c\n"), 0o600)
	cache := t.TempDir()
	// The editor keeps each file it is given and makes the case's
	// change: sed, its FROM and TO free of sed's special characters.
	editor := filepath.Join(t.TempDir(), "editor")
	edits := filepath.Join(t.TempDir(), "edits")
	os.Mkdir(edits, 0o755)
	change := `: > "$1"`
	if from, to, ok := strings.Cut(c.editor, " => "); ok {
		change = `sed -i 's|` + from + `|` + to + `|g' "$1"`
	}
	os.WriteFile(editor, []byte("#!/bin/sh\ncp \"$1\" "+edits+"/$(ls "+edits+" | wc -l)\n"+change+"\n"), 0o755)
	kubectl := func(args []string) *exec.Cmd {
		cmd := exec.Command("/usr/bin/kubectl", append([]string{"--cache-dir", cache}, args...)...)
		cmd.Dir = dir
		cmd.Env = []string{"KUBECONFIG=" + kubeconfig, "HOME=" + dir, "KUBE_EDITOR=" + editor}
		return cmd
	}
	for _, args := range c.setup {
		kubectl(args).Run()
	}
	cmd := kubectl(c.run)
	if c.stdin != "" {
		cmd.Stdin = strings.NewReader(c.files[c.stdin])
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	mu.Lock()
	recording = true
	mu.Unlock()
	err := cmd.Run()
	mu.Lock()
	recording = false
	mu.Unlock()
	g.Stdout, g.Stderr = out.String(), normalize(errOut.String())
	if ee, ok := err.(*exec.ExitError); ok {
		g.Code = ee.ExitCode()
	}
	for i := 0; ; i++ {
		data, err := os.ReadFile(filepath.Join(edits, strconv.Itoa(i)))
		if err != nil {
			break
		}
		g.Edits = append(g.Edits, string(data))
	}
	return g
}

// TestLEARN_1_WriteCommandsMatchKubectl plays every case of
// testdata/write with this package and compares what it prints, its exit
// code and the requests it sends (in order, with Accept, Content-Type and
// body) with what the real kubectl did.
func TestLEARN_1_WriteCommandsMatchKubectl(t *testing.T) {
	paths, _ := filepath.Glob("testdata/write/*.txt")
	sort.Strings(paths)
	if len(paths) == 0 {
		t.Fatal("no cases in testdata/write")
	}
	record := os.Getenv("KUBECTL_RECORD") == "1"
	if _, err := os.Stat("/usr/bin/kubectl"); err != nil {
		record = false
	}
	for _, path := range paths {
		c := readCase(t, path)
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			goldenPath := strings.TrimSuffix(path, ".txt") + ".golden"
			if record {
				g := runKubectl(t, c, dir)
				data, _ := json.MarshalIndent(g, "", "  ")
				if err := os.WriteFile(goldenPath, append(data, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			data, err := os.ReadFile(goldenPath)
			if err != nil {
				t.Fatalf("no golden (record with KUBECTL_RECORD=1): %v", err)
			}
			var want golden
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			got := runOurs(t, c, dir)
			if got.Stdout != want.Stdout || got.Stderr != want.Stderr || got.Code != want.Code {
				t.Errorf("kubectl %s:\nkubectl printed (exit %d):\n%s%s\nours (exit %d):\n%s%s", strings.Join(c.run, " "),
					want.Code, want.Stdout, want.Stderr, got.Code, got.Stdout, got.Stderr)
			}
			compareRequests(t, c, want.Requests, got.Requests)
			if len(want.Edits) != len(got.Edits) {
				t.Errorf("kubectl opened the editor %d times, ours %d", len(want.Edits), len(got.Edits))
			}
			for i := 0; i < len(want.Edits) && i < len(got.Edits); i++ {
				if w, g := volatile.ReplaceAllString(want.Edits[i], "X"), volatile.ReplaceAllString(got.Edits[i], "X"); w != g {
					t.Errorf("the editor's file %d:\nkubectl:\n%s\nours:\n%s", i, w, g)
				}
			}
		})
	}
}

func compareRequests(t *testing.T, c writeCase, want, got []goldenRequest) {
	t.Helper()
	show := func(rs []goldenRequest) string {
		var b strings.Builder
		for _, r := range rs {
			b.WriteString(r.Method + " " + r.URL + "\n")
		}
		return b.String()
	}
	if len(want) != len(got) {
		t.Errorf("kubectl sent %d requests:\n%sours %d:\n%s", len(want), show(want), len(got), show(got))
		return
	}
	for i := range want {
		w, g := want[i], got[i]
		if c.urlsOnly {
			w = goldenRequest{Method: w.Method, URL: w.URL}
			g = goldenRequest{Method: g.Method, URL: g.URL}
		}
		w.Body = volatile.ReplaceAllString(w.Body, "X")
		g.Body = volatile.ReplaceAllString(g.Body, "X")
		if w != g {
			t.Errorf("request %d:\nkubectl: %+v\nours:    %+v", i, w, g)
		}
	}
}

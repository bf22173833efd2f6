package kubectl_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kubeplay/core/kubectl"
)

// syncBuffer is a Buffer a watch writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// goldenEnv is an Env over goldenSandbox that records each request's URL.
func goldenEnv(t *testing.T) (*kubectl.Env, *syncBuffer, *syncBuffer, func() []string) {
	sb := goldenSandbox(t)
	var mu sync.Mutex
	var urls []string
	out, errOut := &syncBuffer{}, &syncBuffer{}
	env := &kubectl.Env{Handler: sb, Server: "http://127.0.0.1:8080", Stdout: out, Stderr: errOut,
		Exchange: func(e kubectl.Exchange) {
			mu.Lock()
			defer mu.Unlock()
			urls = append(urls, e.Method+" "+e.URL)
		}}
	return env, out, errOut, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(urls)
	}
}

func TestLEARN_1_GetFollowsContinue(t *testing.T) {
	env, out, _, urls := goldenEnv(t)
	if code := kubectl.Run(context.Background(), env, strings.Fields("get cm -n golden -l app --chunk-size=1")); code != 0 {
		t.Fatalf("exit %d", code)
	}
	want := "NAME         DATA   AGE\ndb-config    2      0s\nweb-config   1      0s\n"
	if out.String() != want {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
	var lists []string
	for _, u := range urls() {
		if strings.Contains(u, "/configmaps") {
			lists = append(lists, u)
		}
	}
	if len(lists) != 2 || !strings.HasSuffix(lists[0], "/api/v1/namespaces/golden/configmaps?labelSelector=app&limit=1") ||
		!strings.Contains(lists[1], "?continue=") || !strings.HasSuffix(lists[1], "&labelSelector=app&limit=1") {
		t.Errorf("requests %q: want a chunk of 1, then the next following continue", lists)
	}
}

func TestLEARN_1_GetWatchPrintsRowsAfterTheList(t *testing.T) {
	env, out, errOut, urls := goldenEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() { done <- kubectl.Run(ctx, env, strings.Fields("get cm -n golden -l app -w")) }()
	// The watch starts from the list's resourceVersion: it sees the create
	// even if it starts after it.
	waitFor(t, func() bool { return strings.Contains(out.String(), "web-config") })
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/api/v1/namespaces/golden/configmaps",
		strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a-much-longer-name","labels":{"app":"x"}}}`))
	env.Handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	waitFor(t, func() bool { return strings.Contains(out.String(), "a-much-longer-name") })
	cancel()
	if code := <-done; code != 1 {
		t.Errorf("exit %d after Ctrl-C, want kubectl's 1", code)
	}
	// The watch's row has no header and keeps the list's column widths
	// where it fits them, as kubectl's tab writer remembers them.
	want := "NAME         DATA   AGE\ndb-config    2      0s\nweb-config   1      0s\na-much-longer-name   0      0s\n"
	if out.String() != want || errOut.String() != "" {
		t.Errorf("stdout %q stderr %q, want %q", out.String(), errOut.String(), want)
	}
	u := urls()
	watch := regexp.MustCompile(`^GET http://127\.0\.0\.1:8080/api/v1/namespaces/golden/configmaps\?labelSelector=app&resourceVersion=[0-9]+&watch=true$`)
	if !watch.MatchString(u[len(u)-1]) {
		t.Errorf("last request %q: want the watch from the list's resourceVersion", u[len(u)-1])
	}
}

func TestLEARN_1_GetWatchNamedObjectSkipsItsFirstEvent(t *testing.T) {
	env, out, _, urls := goldenEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		done <- kubectl.Run(ctx, env, strings.Fields("get cm web-config -n golden -w -o json --output-watch-events"))
	}()
	// The watch from "0" begins with the object as it is (ADDED), which
	// kubectl does not print: patch until a change (MODIFIED) comes after.
	for i := 0; !strings.Contains(out.String(), `"MODIFIED"`); i++ {
		if i == 500 {
			t.Fatalf("no change printed: %q", out.String())
		}
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("PATCH", "/api/v1/namespaces/golden/configmaps/web-config", strings.NewReader(fmt.Sprintf(`{"data":{"b":"%d"}}`, i)))
		req.Header.Set("Content-Type", "application/merge-patch+json")
		env.Handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("patch: %d %s", rec.Code, rec.Body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	// The object got first, as an ADDED event; then only changes: not the
	// watch's first event, the object again.
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	for i, l := range lines {
		if want := `{"type":"MODIFIED",`; i == 0 && !strings.HasPrefix(l, `{"type":"ADDED",`) || i > 0 && !strings.HasPrefix(l, want) {
			t.Errorf("line %d: %.40s…", i, l)
		}
	}
	u := urls()
	if want := "GET http://127.0.0.1:8080/api/v1/namespaces/golden/configmaps?fieldSelector=metadata.name%3Dweb-config&resourceVersion=0&watch=true"; u[len(u)-1] != want {
		t.Errorf("watch %q, want %q", u[len(u)-1], want)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("condition not reached")
}

func TestLEARN_1_VerboseRequestLines(t *testing.T) {
	env, out, errOut, _ := goldenEnv(t)
	if code := kubectl.Run(context.Background(), env, strings.Fields("get cm web-config -n golden -v=6")); code != 0 {
		t.Fatalf("exit %d", code)
	}
	line := regexp.MustCompile(`(?m)^I[0-9]{4} [0-9:.]{15} +[0-9]+ round_trippers\.go:560\] GET http://127\.0\.0\.1:8080/api/v1/namespaces/golden/configmaps/web-config 200 OK in [0-9]+ milliseconds$`)
	if !line.MatchString(errOut.String()) || !strings.HasPrefix(out.String(), "NAME") {
		t.Errorf("-v=6 stderr:\n%s", errOut.String())
	}
	env.Stderr = &syncBuffer{}
	kubectl.Run(context.Background(), env, strings.Fields("get cm nope -n golden -v=8"))
	got := env.Stderr.(*syncBuffer).String()
	for _, want := range []string{
		"round_trippers.go:470] GET http://127.0.0.1:8080/api/v1/namespaces/golden/configmaps/nope\n",
		"round_trippers.go:476] Request Headers:\n",
		"round_trippers.go:480]     Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json\n",
		"round_trippers.go:581] Response Status: 404 Not Found in ",
		`helper.go:105] "Request Body" body=""` + "\n",
		"helper.go:105] \"Response Body\" body=<\n\t{\"kind\":\"Status\"",
		"helpers.go:246] server response object: %s[{\n  \"kind\": \"Status\",\n",
		"\nError from server (NotFound): configmaps \"nope\" not found\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("-v=8 stderr lacks %q:\n%s", want, got)
		}
	}
}

func TestLEARN_1_CompleteWordsFlagsTypesAndNames(t *testing.T) {
	env, _, _, urls := goldenEnv(t)
	ctx := context.Background()
	for line, want := range map[string][]string{
		"kubectl con":              {"config"},
		"config v":                 {"view"},
		"get --wat":                {"--watch", "--watch-only"},
		"get deploym":              {"deployments"},
		"get al":                   {"all"},
		"get cm -n golden w":       {"web-config"},
		"get -n golden deploy/w":   {"deploy/web"},
		"get cm,deploy -n golden ": {"db-config", "web-config"},
		"explain pods ":            nil,
		"get cm -o js":             {"json", "jsonpath", "jsonpath-as-json", "jsonpath-file"},
		"get cm -n gol":            {"golden"},
	} {
		if got := kubectl.Complete(ctx, env, line); !slices.Equal(got, want) {
			t.Errorf("Complete(%q) = %q, want %q", line, got, want)
		}
	}
	if got := kubectl.Complete(ctx, env, "get "); !slices.Contains(got, "cm") || !slices.Contains(got, "configmaps") || !slices.Contains(got, "pods") {
		t.Errorf("Complete(get ) = %q: want resource names and short names", got)
	}
	n := len(urls())
	kubectl.Complete(ctx, env, "get cm -n golden ")
	if got := urls()[n:]; len(got) != 1 || got[0] != "GET http://127.0.0.1:8080/api/v1/namespaces/golden/configmaps?limit=500" {
		t.Errorf("completing names sent %q: want one list request", got)
	}
}

func TestLEARN_1_ConfigSetContextNamespace(t *testing.T) {
	env, out, _, _ := goldenEnv(t)
	ctx := context.Background()
	if code := kubectl.Run(ctx, env, strings.Fields("config set-context --current --namespace=golden")); code != 0 || out.String() != "Context \"kubeplay\" modified.\n" {
		t.Fatalf("set-context: %d %q", code, out.String())
	}
	if env.Namespace != "golden" {
		t.Fatalf("Env.Namespace %q", env.Namespace)
	}
	out.b.Reset()
	kubectl.Run(ctx, env, strings.Fields("get cm web-config -o name"))
	kubectl.Run(ctx, env, strings.Fields("config get-contexts"))
	want := "configmap/web-config\nCURRENT   NAME       CLUSTER    AUTHINFO   NAMESPACE\n*         kubeplay   kubeplay   kubeplay   golden\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

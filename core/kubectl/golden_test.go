package kubectl_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"kubeplay/core/apiserver"
	"kubeplay/core/auth"
	"kubeplay/core/clock"
	"kubeplay/core/kubectl"
	"kubeplay/core/sandbox"
)

// goldenCases are command lines whose output testdata/golden holds as
// /usr/bin/kubectl 1.32 printed it against goldenSandbox (recorded with
// KUBEPLAY_RECORD_KUBECTL=1 go test ./core/kubectl -run GetFamilyAsKubectl).
var goldenCases = []struct{ name, line string }{
	{"table", "get cm -n golden -l app"},
	{"table-named", "get cm web-config -n golden"},
	{"table-some-missing", "get cm web-config nope -n golden"},
	{"table-all-missing", "get cm nope nope2 -n golden"},
	{"table-kinds", "get cm,deploy -n golden -l app"},
	{"table-type-name", "get deploy/web cm/web-config -n golden"},
	{"table-all-namespaces", "get cm -A -l app"},
	{"table-show-labels", "get cm -n golden -l app --show-labels"},
	{"table-label-columns-sorted", "get cm -n golden -l app -L app --sort-by=.metadata.name"},
	{"table-no-headers-wide", "get deploy -n golden -o wide --no-headers"},
	{"table-none", "get cm -n golden -l nothing=here"},
	{"table-none-cluster", "get ns -l nothing=here"},
	{"yaml-list", "get cm -n golden -l app -o yaml"},
	{"yaml-list-empty", "get cm -n golden -l nothing=here -o yaml"},
	{"json-one", "get cm web-config -n golden -o json"},
	{"yaml-one-missing", "get cm web-config nope -n golden -o yaml"},
	{"name", "get cm,deploy -n golden -l app -o name"},
	{"jsonpath-names", "get cm -n golden -l app -o jsonpath={.items[*].metadata.name}"},
	{"jsonpath-range", `get cm -n golden -l app -o jsonpath={range.items[*]}{.metadata.name}{"\t"}{.data}{"\n"}{end}`},
	{"jsonpath-filter", `get cm -n golden -o jsonpath={.items[?(@.metadata.labels.app=="db")].data.x}`},
	{"jsonpath-recursive", "get deploy web -n golden -o jsonpath={..image}"},
	{"jsonpath-nested-range", `get deploy -n golden -o jsonpath={range.items[*]}{.metadata.name}{":"}{range.spec.template.spec.containers[*]}{"\n-"}{.name}{"="}{.image}{end}{"\n"}{end}`},
	{"jsonpath-negative-step-union", "get deploy web -n golden -o jsonpath={.spec.template.spec.containers[-1].name}|{.spec.template.spec.containers[::2].name}|{.spec.template.spec.containers[0,1].image}"},
	{"jsonpath-exists-filter", "get cm -n golden -o jsonpath={.items[?(@.metadata.labels.tier)].metadata.name}"},
	{"jsonpath-number-filter", "get deploy -n golden -o jsonpath={.items[?(@.spec.replicas>=2)].spec.replicas}{.items[?(@.spec.replicas<2)].metadata.name}"},
	{"jsonpath-maps-and-lists", "get cm web-config -n golden -o jsonpath={.metadata.labels}{.data}{.metadata.managedFields[0].fieldsV1}"},
	{"jsonpath-missing", "get cm web-config -n golden -o jsonpath=[{.nope}][{.metadata.nope.deeper}][{.data.a}]"},
	{"jsonpath-quoted-text", `get cm web-config -n golden -o jsonpath={"a\tb"}{.data.a}{"\n"}`},
	{"jsonpath-step-error", "get deploy web -n golden -o jsonpath={.spec.template.spec.containers[0:2:0]}"},
	{"jsonpath-compare-error", "get cm -n golden -o jsonpath={.items[?(@.metadata.name==1)]}"},
	{"jsonpath-bad-index", "get deploy web -n golden -o jsonpath={.spec.template.spec.containers[x]}"},
	{"jsonpath-as-json", "get cm -n golden -l app -o jsonpath-as-json={.items[*].metadata.labels}"},
	{"jsonpath-error", "get cm web-config -n golden -o jsonpath={.data[0]}"},
	{"jsonpath-parse-error", "get cm web-config -n golden -o jsonpath={.data"},
	{"sort-missing-field", "get cm -n golden -l app --sort-by=.nope"},
	{"sort-unsortable-table", "get cm -n golden -l app --sort-by=.metadata.labels"},
	{"sort-unsortable-name", "get cm -n golden -l app --sort-by=.data -o name"},
	{"sort-missing-field-name", "get cm -n golden -l app --sort-by=.nope -o name"},
	{"go-template-range", `get cm -n golden -l app -o 'go-template={{range .items}}{{.metadata.name}}{{"\t"}}{{len .data}}{{"\n"}}{{end}}'`},
	{"go-template-if-with-vars", `get deploy web -n golden -o 'go-template={{with .spec}}{{if gt .replicas 1.0}}{{$.metadata.name}} has {{.replicas}}{{else}}few{{end}}{{end}}{{range $i, $c := .spec.template.spec.containers}} {{$i}}={{$c.name}}{{end}} {{index .metadata.labels "app"}} {{.nope}} {{printf "%q" .kind}}'`},
	{"go-template-base64decode", `get cm db-config -n golden -o 'go-template={{.data.x | base64decode}}'`},
	{"go-template-exec-error", `get cm web-config -n golden -o 'go-template={{.metadata.name.x}}'`},
	{"go-template-parse-error", `get cm web-config -n golden -o 'go-template={{.metadata.name'`},
	{"go-template-missing-key-error", `get cm web-config -n golden -o 'go-template={{.nope}}' --allow-missing-template-keys=false`},
	{"custom-columns", "get cm -n golden -l app -o custom-columns=NAME:.metadata.name,APP:.metadata.labels.app,DATA:.data"},
	{"bad-output", "get cm -n golden -o foo"},
	{"unknown-type", "get foo"},
	{"name-and-selector", "get cm web-config -n golden -l app"},
	{"type-name-mixed", "get cm/web-config deploy"},
	{"no-type", "get"},
	{"verbose-6", "get cm web-config -n golden -v=6"},
	{"verbose-6-not-found", "get cm nope -n golden -v=6"},
	{"verbose-2-name", "get cm -n golden -l app -o name -v=2"},
	{"api-resources-apps", "api-resources --api-group=apps"},
	{"api-resources-wide-cluster", "api-resources -o wide --namespaced=false --verbs=list"},
	{"api-versions", "api-versions"},
	{"cluster-info", "cluster-info"},
	{"config-view", "config view"},
	{"config-view-json", "config view -o json"},
	{"config-get-contexts", "config get-contexts"},
	{"config-current-context", "config current-context"},
	{"version-bad-output", "version -o xml"},
}

// goldenTime is the sandbox's clock: objects' timestamps and ages are the
// same in every run.
var goldenTime = time.Date(2026, 12, 3, 11, 0, 0, 0, time.UTC)

// goldenSandbox is an API-only sandbox on a clock that does not move,
// holding namespace golden's ConfigMaps and Deployment.
func goldenSandbox(t *testing.T) *sandbox.Sandbox {
	t.Helper()
	admin := auth.Admin()
	sb, err := sandbox.New(sandbox.Config{APIOnly: true, Tokenless: &admin, API: apiserver.Config{Clock: clock.NewFake(goldenTime)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	for _, o := range []struct{ path, body string }{
		{"/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"golden"}}`},
		{"/api/v1/namespaces/golden/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web-config","labels":{"app":"web","tier":"front"}},"data":{"a":"1"}}`},
		{"/api/v1/namespaces/golden/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"db-config","labels":{"app":"db"}},"data":{"x":"y","z":"<w&>"}}`},
		{"/apis/apps/v1/namespaces/golden/deployments", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"}},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"},{"name":"side","image":"busybox"}]}}}}`},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", o.path, strings.NewReader(o.body))
		req.Header.Set("Content-Type", "application/json")
		sb.ServeHTTP(rec, req)
		if rec.Code != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", o.path, rec.Code, rec.Body)
		}
	}
	return sb
}

var (
	goldenUID = regexp.MustCompile(`(uid"?:\s*"?)[0-9a-f-]{36}`)
	goldenRV  = regexp.MustCompile(`(resourceVersion"?:\s*"?)[0-9]+`)
	goldenURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`)
	// klog's line prefix: severity, date, time, pid.
	goldenKlog = regexp.MustCompile(`(?m)^([IWEF])[0-9]{4} [0-9:.]{15} +[0-9]+ `)
	goldenMs   = regexp.MustCompile(`in [0-9]+ milliseconds`)
	goldenConf = regexp.MustCompile(`Config loaded from file:  .*`)
)

// normalize hides what differs between two sandboxes seeded alike.
func normalize(s string) string {
	s = goldenUID.ReplaceAllString(s, "${1}UID")
	s = goldenRV.ReplaceAllString(s, "${1}RV")
	s = goldenKlog.ReplaceAllString(s, "${1}KLOG ")
	s = goldenMs.ReplaceAllString(s, "in N milliseconds")
	s = goldenConf.ReplaceAllString(s, "Config loaded from file:  KUBECONFIG")
	return goldenURL.ReplaceAllString(s, "SERVER")
}

// goldenRecord is one run's exit code and output as testdata keeps it.
func goldenRecord(code int, stdout, stderr string) string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s\n--- stderr\n%s", code, normalize(stdout), normalize(stderr))
}

// splitLine splits a case's line at spaces outside single quotes, as the
// shell would.
func splitLine(line string) []string {
	var args []string
	var cur strings.Builder
	quoted, started := false, false
	for _, r := range line {
		switch {
		case r == '\'':
			quoted, started = !quoted, true
		case r == ' ' && !quoted:
			if started {
				args = append(args, cur.String())
			}
			cur.Reset()
			started = false
		default:
			cur.WriteRune(r)
			started = true
		}
	}
	if started {
		args = append(args, cur.String())
	}
	return args
}

// TestLEARN_1_GetFamilyAsKubectl runs each golden case with this package's
// kubectl against a fresh sandbox and compares stdout, stderr and the exit
// code with what kubectl 1.32 printed for the same line against a sandbox
// seeded alike.
func TestLEARN_1_GetFamilyAsKubectl(t *testing.T) {
	if os.Getenv("KUBEPLAY_RECORD_KUBECTL") != "" {
		recordGolden(t)
		return
	}
	sb := goldenSandbox(t)
	// One Env for every case, as the recording ran kubectl in one home: its
	// discovery is fetched once and cached, as kubectl caches it on disk.
	var out, errOut bytes.Buffer
	env := &kubectl.Env{Handler: sb, Server: "http://127.0.0.1:8080", Kubeconfig: "/home/you/.kube/config", Stdout: &out, Stderr: &errOut}
	// The recording begins with discovery cached; so does each case here,
	// whichever cases run.
	kubectl.Run(context.Background(), env, []string{"api-versions"})
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", "golden", tc.name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			out.Reset()
			errOut.Reset()
			code := kubectl.Run(context.Background(), env, splitLine(tc.line))
			if got := goldenRecord(code, out.String(), errOut.String()); got != string(want) {
				t.Errorf("kubectl %s:\n%s\nkubectl 1.32 printed:\n%s", tc.line, got, want)
			}
		})
	}
}

// recordGolden runs /usr/bin/kubectl for each case against a sandbox on a
// loopback listener and writes what it printed to testdata/golden.
func recordGolden(t *testing.T) {
	sb := goldenSandbox(t)
	srv := httptest.NewServer(sb)
	defer srv.Close()
	home := t.TempDir()
	kubeconfig := filepath.Join(home, "config")
	// The Env's kubeconfig: one cluster, context and user named kubeplay,
	// no namespace, no credentials.
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: kubeplay\n  cluster:\n    server: " + srv.URL +
		"\ncontexts:\n- name: kubeplay\n  context:\n    cluster: kubeplay\n    user: kubeplay\ncurrent-context: kubeplay\nusers:\n- name: kubeplay\n  user: {}\n"
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join("testdata", "golden"), 0o755); err != nil {
		t.Fatal(err)
	}
	warm := exec.Command("/usr/bin/kubectl", "api-versions")
	warm.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "HOME="+home)
	if err := warm.Run(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range goldenCases {
		cmd := exec.Command("/usr/bin/kubectl", splitLine(tc.line)...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "HOME="+home)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		code := 0
		if err := cmd.Run(); err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			code = ee.ExitCode()
		}
		rec := goldenRecord(code, out.String(), errOut.String())
		if err := os.WriteFile(filepath.Join("testdata", "golden", tc.name+".txt"), []byte(rec), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

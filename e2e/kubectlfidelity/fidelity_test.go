package kubectlfidelity

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLEARN_1_KubectlFidelity plays the sessions of the gate
// (testdata/identical.txt: the commands the page's kubectl already prints
// and sends as kubectl 1.32 does) with the real kubectl and with
// core/kubectl, and fails if any of them differs beyond the known
// differences.
func TestLEARN_1_KubectlFidelity(t *testing.T) {
	const bin = "/usr/bin/kubectl"
	if _, err := os.Stat(bin); err != nil {
		t.Skip("!!! SKIPPED: kubectl is not installed at " + bin + "; the differential test of the page's kubectl did NOT run. !!!")
	}
	known, err := LoadKnown(filepath.Join("testdata", "known.txt"))
	if err != nil {
		t.Fatal(err)
	}
	gate, err := LoadGate(filepath.Join("testdata", "identical.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(gate) == 0 {
		t.Fatal("the gate is empty")
	}
	var sessions []*Session
	for _, name := range GateSessions(gate) {
		b, err := os.ReadFile(filepath.Join("testdata", "sessions", name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := ParseSession(name, string(b))
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, s)
	}
	reports, err := PlayAndCompare(context.Background(), sessions, Options{Kubectl: bin}, known, len(sessions))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range CheckGate(gate, reports) {
		t.Errorf("%s", p)
	}
}

// TestLEARN_1_KubectlFidelitySessionsParse checks every session and the
// known differences parse, and the session format's parts.
func TestLEARN_1_KubectlFidelitySessionsParse(t *testing.T) {
	sessions, err := LoadSessions(filepath.Join("testdata", "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadKnown(filepath.Join("testdata", "known.txt")); err != nil {
		t.Fatal(err)
	}
	if len(sessions) < 2 {
		t.Fatalf("%d sessions", len(sessions))
	}
	s, err := ParseSession("x", "# c\n@cluster simulated\nkubectl get cm -o jsonpath='{.a b}' \"x\\\"y\"\n@interrupt 1s\nkubectl apply -f - <<EOF\na: b\nEOF\n@sleep 2s\n")
	if err != nil {
		t.Fatal(err)
	}
	if !s.Simulated || len(s.Steps) != 3 || s.Commands() != 2 {
		t.Fatalf("parsed %+v", s)
	}
	if got := strings.Join(s.Steps[0].Args, "|"); got != `get|cm|-o|jsonpath={.a b}|x"y` {
		t.Errorf("args %q", got)
	}
	if st := s.Steps[1]; st.Stdin != "a: b\n" || st.Interrupt.Seconds() != 1 || st.Text != "kubectl apply -f -" {
		t.Errorf("heredoc step %+v", st)
	}
	for _, bad := range []string{"kubectl get <<EOF\nx\n", "@cluster big\nkubectl get", "ls -l", "@interrupt 1s\n", "kubectl get 'x"} {
		if _, err := ParseSession("bad", bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestLEARN_1_KubectlFidelityNormalize checks what the normalization hides
// and what it keeps.
func TestLEARN_1_KubectlFidelityNormalize(t *testing.T) {
	n := newNormalizer([]string{"v1.32.4-x", "abc123"}, "/tmp/home", "")
	in := "I1203 11:30:06.408118   19694 round_trippers.go:553] GET http://h/api 200 OK in 3 milliseconds\n" +
		"NAME                    READY   AGE\n" +
		"web-5756966654-x2b4q    1/1     5s\n" +
		"web-5756966654-zz9kd    1/1     12m3s\n" +
		"\n" +
		"uid: 0b2f4a2e-1c3d-4e5f-8a9b-0c1d2e3f4a5b resourceVersion: \"42\" at 2026-12-03T11:30:06Z\n" +
		"Client Version: v1.32.4-x\nServer Version: v1.32.4-x+kubeplay\n" +
		"again web-5756966654-x2b4q in /tmp/home/.kube/config\n"
	want := "I GET http://h/api 200 OK in <n> milliseconds\n" +
		"NAME  READY  AGE\n" +
		"web-5756966654-<gen#1>  1/1  <age>\n" +
		"web-5756966654-<gen#2>  1/1  <age>\n" +
		"\n" +
		"uid: <uid#1> resourceVersion: \"<rv>\" at <time>\n" +
		"Client Version: <client>\nServer Version: v1.32.4-x+kubeplay\n" +
		"again web-5756966654-<gen#1> in <home>/.kube/config\n"
	if got := n.output(in); got != want {
		t.Errorf("output:\n%s\nwant:\n%s\ndiff:\n%s", got, want, unifiedDiff(want, got, 1))
	}
	reqs := n.requests([]Request{{Method: "GET", Path: "/api/v1/namespaces/d/events",
		Query:  "fieldSelector=involvedObject.uid%3D0b2f4a2e-1c3d-4e5f-8a9b-0c1d2e3f4a5b%2CinvolvedObject.name%3Dx&limit=500",
		Accept: "application/json", UserAgent: "kubectl/v1.32.4 (linux/amd64) kubernetes/abc123"},
		{Method: "PATCH", Path: "/x", Query: "timeout=32s", ContentType: "application/merge-patch+json", Body: []byte(`{"b":1,"a":"<"}`)}})
	wantReqs := "GET /api/v1/namespaces/d/events?fieldSelector=involvedObject.name%3Dx%2CinvolvedObject.uid%3D<uid#1>&limit=500\n" +
		"  Accept: application/json\n  User-Agent: kubectl/<client>\n" +
		"PATCH /x?timeout=32s\n  Accept: \n  Content-Type: application/merge-patch+json\n  User-Agent: \n" +
		"  | {\n  |   \"a\": \"<\",\n  |   \"b\": 1\n  | }\n"
	if reqs != wantReqs {
		t.Errorf("requests:\n%s\nwant:\n%s", reqs, wantReqs)
	}
}

// TestLEARN_1_KubectlFidelityKnown checks a known difference explains only
// the diffs every changed line of which it matches.
func TestLEARN_1_KubectlFidelityKnown(t *testing.T) {
	known, err := LoadKnown(filepath.Join("testdata", "known.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var accept *KnownDifference
	for _, k := range known {
		if k.ID == "json-not-protobuf" {
			accept = k
		}
	}
	if accept == nil {
		t.Fatal("no json-not-protobuf")
	}
	st := Step{Text: "kubectl describe cm x"}
	only := unifiedDiff("GET /x\n  Accept: application/vnd.kubernetes.protobuf,application/json\n", "GET /x\n  Accept: application/json\n", 2)
	more := unifiedDiff("GET /x\n  Accept: application/vnd.kubernetes.protobuf,application/json\n", "GET /y\n  Accept: application/json\n", 2)
	if !accept.explains(st, PartDiff{Part: "requests", Diff: only}) {
		t.Errorf("does not explain\n%s", only)
	}
	if accept.explains(st, PartDiff{Part: "requests", Diff: more}) || accept.explains(st, PartDiff{Part: "stdout", Diff: only}) {
		t.Errorf("explains more than the Accept header:\n%s", more)
	}
}

// TestLEARN_1_KubectlFidelityClientVersion checks `version -o yaml|json`'s
// client fields are hidden and the server's kept.
func TestLEARN_1_KubectlFidelityClientVersion(t *testing.T) {
	n := newNormalizer([]string{"v1.32.4-x", ""}, "", "")
	yaml := "clientVersion:\n  goVersion: go1.23.8\n  minor: 32+\nkustomizeVersion: v5.5.0\nserverVersion:\n  goVersion: go1.26.8\n"
	if got, want := n.output(yaml), "clientVersion:\n  goVersion: <client>\n  minor: <client>\nkustomizeVersion: v5.5.0\nserverVersion:\n  goVersion: go1.26.8\n"; got != want {
		t.Errorf("yaml: %q, want %q", got, want)
	}
	json := "{\n  \"clientVersion\": {\n    \"major\": \"1\",\n    \"goVersion\": \"go1.23.8\"\n  },\n  \"serverVersion\": {\n    \"goVersion\": \"go1.26.8\"\n  }\n}\n"
	if got, want := n.output(json), "{\n  \"clientVersion\": {\n    \"major\": <client>,\n    \"goVersion\": <client>\n  },\n  \"serverVersion\": {\n    \"goVersion\": \"go1.26.8\"\n  }\n}\n"; got != want {
		t.Errorf("json: %q, want %q", got, want)
	}
}

// TestLEARN_1_KubectlFidelityVerbose checks -v's random orders are sorted.
func TestLEARN_1_KubectlFidelityVerbose(t *testing.T) {
	n := newNormalizer([]string{"v1.32.4"}, "", "")
	in := "I1203 11:30:06.408118   19694 round_trippers.go:473] curl -v -XGET  -H \"User-Agent: kubectl/v1.32.4 (linux/amd64) kubernetes/abc\" -H \"Accept: application/json\" 'http://h/x'\n" +
		"I1203 11:30:06.408118   19694 round_trippers.go:560] Response Headers:\n" +
		"I1203 11:30:06.408118   19694 round_trippers.go:563]     Date: Thu, 03 Dec 2026 11:30:06 GMT\n" +
		"I1203 11:30:06.408118   19694 round_trippers.go:563]     Audit-Id: 0b2f4a2e-1c3d-4e5f-8a9b-0c1d2e3f4a5b\n"
	want := "I curl -v -XGET  -H \"Accept: application/json\" -H \"User-Agent: kubectl/<client>\" 'http://h/x'\n" +
		"I Response Headers:\n" +
		"I  Audit-Id: <uid#1>\n" +
		"I  Date: <time>\n"
	if got := n.output(in); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestLEARN_1_KubectlFidelityGate checks the gate's round trip and what it
// reports.
func TestLEARN_1_KubectlFidelityGate(t *testing.T) {
	reports := []CommandReport{
		{Session: "a", Mode: "api-only", Step: Step{Line: 2, Text: "kubectl version --client"}, Verdict: Identical},
		{Session: "a", Mode: "api-only", Step: Step{Line: 3, Text: "kubectl get"}, Verdict: Different,
			Diffs: []PartDiff{{Part: "stderr", Diff: "-x\n+y\n"}}},
		{Session: "w", Mode: "simulated", Step: Step{Line: 2, Text: "kubectl get pods"}, Verdict: Identical},
	}
	path := filepath.Join(t.TempDir(), "identical.txt")
	if err := WriteGate(path, reports); err != nil {
		t.Fatal(err)
	}
	gate, err := LoadGate(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(gate) != 1 || gate[0] != (GateEntry{"a", 2, "kubectl version --client"}) {
		t.Fatalf("gate %v", gate)
	}
	if p := CheckGate(gate, reports); len(p) != 0 {
		t.Errorf("identical reported: %v", p)
	}
	gate = append(gate, GateEntry{"a", 3, "kubectl get"}, GateEntry{"a", 9, "kubectl gone"})
	if p := CheckGate(gate, reports); len(p) != 2 || !strings.Contains(p[0], "no longer identical") || !strings.Contains(p[1], "no such command") {
		t.Errorf("problems %q", p)
	}
}

package apiserver

import (
	"strings"
	"testing"
	"time"

	"kubeplay/core/clock"
	"kubeplay/core/object"
)

const pods = "/api/v1/namespaces/default/pods"

// pod creates a Pod with one container c (or the ones named), on node ("" for
// none).
func (s *testServer) pod(t testing.TB, name, node string, labels map[string]string, containers ...string) {
	t.Helper()
	if len(containers) == 0 {
		containers = []string{"c"}
	}
	var cs []any
	for _, c := range containers {
		cs = append(cs, map[string]any{"name": c, "image": "nginx"})
	}
	spec := map[string]any{"containers": cs}
	if node != "" {
		spec["nodeName"] = node
	}
	s.do("POST", pods, map[string]any{"metadata": map[string]any{"name": name, "labels": labels}, "spec": spec}).must(t, 201)
}

const successCreated = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}`

// TestK8S_URI_3_Binding: a Binding assigns a Pod to a node once, with its
// PodScheduled condition, as the scheduler's write; kube's answers to a
// second binding and to a name mismatch.
func TestK8S_URI_3_Binding(t *testing.T) {
	s := newTestServer(t, testConfig{})
	s.pod(t, "b1", "", nil)
	bind := func(name, node string) *response {
		return s.do("POST", pods+"/b1/binding", map[string]any{"apiVersion": "v1", "kind": "Binding", "metadata": map[string]any{"name": name}, "target": map[string]any{"apiVersion": "v1", "kind": "Node", "name": node}})
	}
	if r := bind("b1", "node-1").must(t, 201); !jsonEqual(string(r.Body), successCreated) {
		t.Errorf("binding answered %s", r.Body)
	}
	p := s.do("GET", pods+"/b1", nil).must(t, 200)
	conds := object.Path(p.Obj, "status", "conditions").([]any)
	if p.str("spec", "nodeName") != "node-1" || len(conds) != 1 || object.Path(conds[0], "type") != "PodScheduled" || object.Path(conds[0], "status") != "True" {
		t.Errorf("bound pod: %s", p.Body)
	}
	if strings.Contains(string(mustJSON(object.Path(p.Obj, "metadata", "managedFields"))), "binding") {
		t.Errorf("a binding is not recorded in managedFields: %s", p.Body)
	}
	bind("b1", "node-2").wantStatus(t, 409, "Conflict", `Operation cannot be fulfilled on pods/binding "b1": pod b1 is already assigned to node "node-1"`)
	bind("zz", "node-2").wantStatus(t, 400, "BadRequest", "name in URL does not match name in Binding object")
}

// TestK8S_URI_3_Eviction: an eviction deletes the Pod (gracefully) unless the
// PodDisruptionBudget that selects it forbids it: kube's 429 while the
// budget's status is not current or allows no disruption; one allowed
// disruption is used up.
func TestK8S_URI_3_Eviction(t *testing.T) {
	s := newTestServer(t, testConfig{})
	evict := func(name string) *response {
		return s.do("POST", pods+"/"+name+"/eviction", map[string]any{"apiVersion": "policy/v1", "kind": "Eviction", "metadata": map[string]any{"name": name}})
	}
	app := map[string]string{"app": "x"}
	s.pod(t, "pending", "", app)
	if r := evict("pending").must(t, 201); !jsonEqual(string(r.Body), successCreated) {
		t.Errorf("eviction answered %s", r.Body)
	}
	s.do("GET", pods+"/pending", nil).must(t, 404)
	evict("nope").wantStatus(t, 404, "NotFound", `pods "nope" not found`)
	s.pod(t, "web", "node-1", app)
	s.do("PATCH", pods+"/web/status", `{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`, "Content-Type", "application/merge-patch+json").must(t, 200)
	s.do("POST", pods+"/web/eviction", map[string]any{"apiVersion": "policy/v1", "kind": "Eviction", "metadata": map[string]any{"name": "other"}}).
		wantStatus(t, 400, "BadRequest", "name in URL does not match name in Eviction object")

	const pdbs = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
	s.do("POST", pdbs, `{"metadata":{"name":"pdb"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"x"}}}}`).must(t, 201)
	r := evict("web").wantStatus(t, 429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.")
	if got := string(mustJSON(r.Obj["details"])); got != `{"causes":[{"message":"The disruption budget pdb is still being processed by the server.","reason":"DisruptionBudget"}],"retryAfterSeconds":10}` || r.Header.Get("Retry-After") != "10" {
		t.Errorf("details %s, Retry-After %q", got, r.Header.Get("Retry-After"))
	}
	status := func(s string) string {
		return `{"status":{"observedGeneration":1,"currentHealthy":1,"desiredHealthy":1,"expectedPods":1,` + s + `}}`
	}
	s.do("PATCH", pdbs+"/pdb/status", status(`"disruptionsAllowed":0`), "Content-Type", "application/merge-patch+json").must(t, 200)
	r = evict("web").wantStatus(t, 429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.")
	if got := string(mustJSON(r.Obj["details"])); got != `{"causes":[{"message":"The disruption budget pdb needs 1 healthy pods and has 1 currently","reason":"DisruptionBudget"}]}` {
		t.Errorf("details %s", got)
	}
	s.do("PATCH", pdbs+"/pdb/status", status(`"disruptionsAllowed":1`), "Content-Type", "application/merge-patch+json").must(t, 200)
	evict("web").must(t, 201)
	if p := s.do("GET", pods+"/web", nil).must(t, 200); p.str("metadata", "deletionTimestamp") == "" || object.Path(p.Obj, "metadata", "deletionGracePeriodSeconds") != float64(30) {
		t.Errorf("evicted pod: %s", p.Body)
	}
	pdb := s.do("GET", pdbs+"/pdb", nil).must(t, 200)
	if object.Path(pdb.Obj, "status", "disruptionsAllowed") != float64(0) || object.Path(pdb.Obj, "status", "disruptedPods", "web") == nil {
		t.Errorf("budget after the eviction: %s", pdb.Body)
	}
}

// TestK8S_URI_3_Log: the sandbox's generated logs: kube's answers for a Pod
// on no node (nothing), on a node that does not exist, with several
// containers; tailLines, timestamps, limitBytes; follow streams new lines as
// the clock moves.
func TestK8S_URI_3_Log(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
	s := newTestServer(t, testConfig{Config: Config{Clock: clk}})
	s.pod(t, "two", "", nil, "a", "b")
	s.do("GET", pods+"/two/log", nil).wantStatus(t, 400, "BadRequest", "a container name must be specified for pod two, choose one of: [a b]")
	s.do("GET", pods+"/two/log?container=zz", nil).wantStatus(t, 400, "BadRequest", "container zz is not valid for pod two")
	s.do("GET", pods+"/two/log?container=a", nil).must(t, 204)
	s.do("GET", pods+"/nope/log", nil).wantStatus(t, 404, "NotFound", `pods "nope" not found`)
	s.pod(t, "web", "node-1", nil)
	s.do("GET", pods+"/web/log", nil).wantStatus(t, 404, "NotFound", `pods "node-1" not found`)
	s.do("POST", "/api/v1/nodes", `{"metadata":{"name":"node-1"}}`).must(t, 201)
	s.do("GET", pods+"/web/log?tailLines=x", nil).wantStatus(t, 400, "BadRequest", `strconv.ParseInt: parsing "x": invalid syntax`)

	clk.Step(12 * time.Second) // lines at 0s, 5s, 10s
	r := s.do("GET", pods+"/web/log", nil).must(t, 200)
	lines := strings.SplitAfter(string(r.Body), "\n")
	if len(lines) != 4 || r.Header.Get("Content-Type") != "text/plain" || lines[0] != "2026/11/23 10:00:00 c[1]: started, listening on :8080\n" ||
		lines[2] != "2026/11/23 10:00:10 c[1]: GET /healthz 200 (default/web, request 3)\n" {
		t.Errorf("log %q", r.Body)
	}
	if r := s.do("GET", pods+"/web/log?tailLines=1&timestamps=true", nil).must(t, 200); string(r.Body) != "2026-11-23T10:00:10.000000000Z 2026/11/23 10:00:10 c[1]: GET /healthz 200 (default/web, request 3)\n" {
		t.Errorf("tail with timestamps %q", r.Body)
	}
	if r := s.do("GET", pods+"/web/log?limitBytes=10", nil).must(t, 200); string(r.Body) != "2026/11/23" {
		t.Errorf("limitBytes %q", r.Body)
	}

	w := s.watch(pods + "/web/log?follow=true&tailLines=1")
	if line := <-w.lines; !strings.HasSuffix(string(line), "request 3)") {
		t.Fatalf("followed %q", line)
	}
	// The stream's timer for the next line is due at the line's time: were
	// it set after this step, it would fire at once.
	clk.Step(5 * time.Second)
	if line := <-w.lines; !strings.HasSuffix(string(line), "request 4)") {
		t.Fatalf("followed %q", line)
	}
	s.do("DELETE", pods+"/web?gracePeriodSeconds=0", nil).must(t, 200)
	clk.Step(5 * time.Second)
	if !w.ended(5 * time.Second) {
		t.Error("the stream outlived its pod")
	}
}

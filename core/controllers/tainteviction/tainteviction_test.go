package tainteviction

import (
	"slices"
	"testing"
	"time"

	"kubeplay/core/client/clienttest"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
)

const (
	pods  = "/api/v1/namespaces/default/pods"
	nodes = "/api/v1/nodes"
)

// harness is the controller on a fake API and a fake clock; its informers
// run, its queue does not: the test syncs keys itself.
type harness struct {
	t     *testing.T
	api   *clienttest.API
	clock *clock.Fake
	tc    *Controller
}

func newHarness(t *testing.T) *harness {
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	api := clienttest.New(t, clk)
	tc := New(api, clk)
	api.Run(tc.pods, tc.nodes)
	api.Create(nodes, object.Object{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": "n1"}})
	return &harness{t: t, api: api, clock: clk, tc: tc}
}

func (h *harness) sync(key string) []clienttest.Write {
	h.t.Helper()
	ws, err := h.api.Sync(h.tc.sync, key, h.tc.pods, h.tc.nodes)
	if err != nil {
		h.t.Fatalf("sync %s: %v", key, err)
	}
	return ws
}

func (h *harness) taint(taints ...any) {
	h.api.Edit(nodes+"/n1", func(o object.Object) { o["spec"] = map[string]any{"taints": taints} })
}

var evictTaint = map[string]any{"key": "kubernetes.io/e2e-evict-taint-key", "value": "evictTaintVal", "effect": "NoExecute"}

// newPod is a Pod on n1 with tolerations.
func newPod(name string, tolerations ...any) object.Object {
	return object.Object{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name},
		"spec":   map[string]any{"nodeName": "n1", "tolerations": tolerations, "containers": []any{map[string]any{"name": "c", "image": "pause"}}},
		"status": map[string]any{"phase": "Running"}}
}

func tolerating(seconds int) map[string]any {
	t := map[string]any{"key": "kubernetes.io/e2e-evict-taint-key", "operator": "Equal", "value": "evictTaintVal", "effect": "NoExecute"}
	if seconds >= 0 {
		t["tolerationSeconds"] = seconds
	}
	return t
}

// TestSIM_1_TaintEvictionUntolerated: a Pod that does not tolerate its
// node's NoExecute taint is marked DisruptionTarget and deleted at once,
// with kube's event; NoSchedule taints leave it be.
func TestSIM_1_TaintEvictionUntolerated(t *testing.T) {
	h := newHarness(t)
	h.api.Create(pods, newPod("p"))
	h.taint(map[string]any{"key": "k", "effect": "NoSchedule"})
	if ws := h.sync("default/p"); len(clienttest.Changes(ws)) != 0 {
		t.Fatalf("a NoSchedule taint evicted: %v", clienttest.Changes(ws))
	}
	h.taint(evictTaint)
	ws := h.sync("default/p")
	if got := clienttest.Changes(ws); !slices.Equal(got, []string{"patch pods/status default/p", "delete pods default/p"}) {
		t.Fatalf("writes %v", got)
	}
	if got := clienttest.Events(ws); !slices.Equal(got, []string{"Normal TaintManagerEviction: Marking for deletion Pod default/p"}) {
		t.Errorf("events %v", got)
	}
	cond := controllers.MustJSON(object.Objects(object.Child(ws[slices.IndexFunc(ws, func(w clienttest.Write) bool { return w.Verb == "patch" })].Object, "status"), "conditions"))
	want := `[{"lastProbeTime":null,"lastTransitionTime":"2026-03-01T09:00:00Z","message":"Taint manager: deleting due to NoExecute taint","reason":"DeletionByTaintManager","status":"True","type":"DisruptionTarget"}]`
	if cond != want {
		t.Errorf("conditions %s\nwant       %s", cond, want)
	}
}

// TestSIM_1_TaintEvictionTolerationSeconds is upstream's "evicts pods with
// minTolerationSeconds": Pods tolerating the taint for 5 and 25 seconds go
// when their time has passed since the taint was seen, one tolerating it
// forever stays; the least tolerationSeconds of the tolerations used wins.
func TestSIM_1_TaintEvictionTolerationSeconds(t *testing.T) {
	h := newHarness(t)
	h.api.Create(pods, newPod("five", tolerating(5)))
	h.api.Create(pods, newPod("twentyfive", tolerating(25), map[string]any{"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}))
	h.api.Create(pods, newPod("forever", tolerating(-1)))
	h.taint(evictTaint)
	for _, p := range []string{"five", "twentyfive", "forever"} {
		if ws := h.sync("default/" + p); len(clienttest.Changes(ws)) != 0 {
			t.Fatalf("%s evicted at once: %v", p, clienttest.Changes(ws))
		}
	}
	h.clock.Step(5 * time.Second)
	if got := clienttest.Changes(h.sync("default/five")); !slices.Equal(got, []string{"patch pods/status default/five", "delete pods default/five"}) {
		t.Fatalf("after 5s: %v", got)
	}
	if ws := h.sync("default/twentyfive"); len(clienttest.Changes(ws)) != 0 {
		t.Fatalf("twentyfive evicted after 5s: %v", clienttest.Changes(ws))
	}
	h.clock.Step(20 * time.Second)
	if got := clienttest.Changes(h.sync("default/twentyfive")); !slices.Equal(got, []string{"patch pods/status default/twentyfive", "delete pods default/twentyfive"}) {
		t.Fatalf("after 25s: %v", got)
	}
	h.clock.Step(time.Hour)
	if ws := h.sync("default/forever"); len(clienttest.Changes(ws)) != 0 {
		t.Fatalf("a Pod tolerating forever evicted: %v", clienttest.Changes(ws))
	}
}

// TestSIM_1_TaintEvictionRemovingTaintCancels: the taint removed before the
// Pod's time is up cancels its deletion, with kube's event, and the Pod stays.
func TestSIM_1_TaintEvictionRemovingTaintCancels(t *testing.T) {
	h := newHarness(t)
	h.api.Create(pods, newPod("p", tolerating(10)))
	h.taint(evictTaint)
	h.sync("default/p")
	h.clock.Step(5 * time.Second)
	h.taint()
	ws := h.sync("default/p")
	if len(clienttest.Changes(ws)) != 0 {
		t.Fatalf("writes %v", clienttest.Changes(ws))
	}
	if got := clienttest.Events(ws); !slices.Equal(got, []string{"Normal TaintManagerEviction: Cancelling deletion of Pod default/p"}) {
		t.Errorf("events %v", got)
	}
	h.clock.Step(time.Minute)
	if ws := h.sync("default/p"); len(clienttest.Changes(ws)) != 0 {
		t.Fatalf("evicted after the taint went: %v", clienttest.Changes(ws))
	}
}

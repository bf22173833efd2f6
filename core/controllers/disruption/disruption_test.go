package disruption

import (
	"slices"
	"strings"
	"testing"
	"time"

	"kubeplay/core/client/clienttest"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
)

// harness is the disruption controller on a fake API and a fake clock; its
// informers run, its queues do not: the test syncs keys itself.
type harness struct {
	t     *testing.T
	api   *clienttest.API
	clock *clock.Fake
	dc    *Controller
}

const (
	budgets = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
	pods    = "/api/v1/namespaces/default/pods"
)

func newHarness(t *testing.T) *harness {
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	api := clienttest.New(t, clk)
	dc := New(api, clk)
	api.Run(dc.budgets, dc.pods, dc.rcs, dc.sets, dc.deploys, dc.states)
	return &harness{t: t, api: api, clock: clk, dc: dc}
}

// sync syncs the budget key once the informers have seen every change, and
// returns its writes.
func (h *harness) sync(key string) []clienttest.Write {
	h.t.Helper()
	ws, err := h.api.Sync(h.dc.sync, key, h.dc.budgets, h.dc.pods, h.dc.rcs, h.dc.sets, h.dc.deploys, h.dc.states)
	if err != nil {
		h.t.Fatalf("sync %s: %v", key, err)
	}
	return ws
}

// status is the budget's status as its last write left it.
func (h *harness) status(name string) string {
	h.t.Helper()
	return controllers.MustJSON(h.api.MustGet(budgets + "/" + name)["status"])
}

func newBudget(name string, spec map[string]any) object.Object {
	return object.Object{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": map[string]any{"name": name}, "spec": spec}
}

var selectWeb = map[string]any{"matchLabels": map[string]any{"app": "web"}}

// newPod is a Running Pod labelled app=web, ready or not, controlled by
// owner (none when nil).
func newPod(name string, ready bool, owner object.Object) object.Object {
	p := object.Object{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name, "labels": map[string]any{"app": "web"}},
		"spec":   map[string]any{"nodeName": "n1", "containers": []any{map[string]any{"name": "c", "image": "nginx"}}},
		"status": map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": map[bool]string{true: "True", false: "False"}[ready]}}}}
	if owner != nil {
		object.Meta(p)["ownerReferences"] = []any{map[string]any{"apiVersion": owner["apiVersion"], "kind": owner["kind"],
			"name": object.MetaString(owner, "name"), "uid": object.MetaString(owner, "uid"), "controller": true}}
	}
	return p
}

// workload is a controller of kind at path with replicas, controlled by
// owner (none when nil).
func (h *harness) workload(path, apiVersion, kind, name string, replicas int, owner object.Object) object.Object {
	w := object.Object{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name}, "spec": map[string]any{"replicas": replicas}}
	if owner != nil {
		object.Meta(w)["ownerReferences"] = []any{map[string]any{"apiVersion": owner["apiVersion"], "kind": owner["kind"],
			"name": object.MetaString(owner, "name"), "uid": object.MetaString(owner, "uid"), "controller": true}}
	}
	return h.api.Create(path, w)
}

// TestSIM_1_DisruptionBudgetCountsPods: minAvailable as a count expects the
// Pods selected, whatever controls them; the budget allows what its healthy
// (ready) Pods have beyond it, and says so in its DisruptionAllowed
// condition; a budget that says so already is not written again; no Pod is
// kube's NoPods event.
func TestSIM_1_DisruptionBudgetCountsPods(t *testing.T) {
	h := newHarness(t)
	h.api.Create(budgets, newBudget("web", map[string]any{"minAvailable": 2, "selector": selectWeb}))
	ws := h.sync("default/web")
	if got := clienttest.Changes(ws); !slices.Equal(got, []string{"update poddisruptionbudgets/status default/web"}) {
		t.Fatalf("writes %v", got)
	}
	if got := clienttest.Events(ws); !slices.Equal(got, []string{"Normal NoPods: No matching pods found"}) {
		t.Errorf("events %v", got)
	}
	want := `{"conditions":[{"lastTransitionTime":"2026-03-01T09:00:00Z","message":"","observedGeneration":1,"reason":"InsufficientPods","status":"False","type":"DisruptionAllowed"}],` +
		`"currentHealthy":0,"desiredHealthy":2,"disruptionsAllowed":0,"expectedPods":0,"observedGeneration":1}`
	if got := h.status("web"); got != want {
		t.Errorf("status %s\nwant   %s", got, want)
	}

	h.clock.Step(time.Minute)
	h.api.Create(pods, newPod("a", true, nil))
	h.api.Create(pods, newPod("b", true, nil))
	h.api.Create(pods, newPod("c", true, nil))
	h.api.Create(pods, newPod("unready", false, nil))
	other := newPod("other", true, nil)
	object.Meta(other)["labels"] = map[string]any{"app": "db"}
	h.api.Create(pods, other)
	h.sync("default/web")
	want = `{"conditions":[{"lastTransitionTime":"2026-03-01T09:01:00Z","message":"","observedGeneration":1,"reason":"SufficientPods","status":"True","type":"DisruptionAllowed"}],` +
		`"currentHealthy":3,"desiredHealthy":2,"disruptionsAllowed":1,"expectedPods":4,"observedGeneration":1}`
	if got := h.status("web"); got != want {
		t.Errorf("status %s\nwant   %s", got, want)
	}
	if ws := h.sync("default/web"); len(clienttest.Changes(ws)) != 0 {
		t.Errorf("a settled budget written again: %v", clienttest.Changes(ws))
	}

	// A Pod being deleted is not healthy; a new generation is observed.
	h.api.Edit(pods+"/a", func(o object.Object) {
		object.Meta(o)["deletionTimestamp"] = object.Timestamp(h.clock.Now())
		object.Meta(o)["finalizers"] = []any{"test/hold"}
	})
	h.api.Edit(budgets+"/web", func(o object.Object) {
		o["spec"].(map[string]any)["minAvailable"] = 1
		object.Meta(o)["generation"] = 2
	})
	h.sync("default/web")
	want = `{"conditions":[{"lastTransitionTime":"2026-03-01T09:01:00Z","message":"","observedGeneration":2,"reason":"SufficientPods","status":"True","type":"DisruptionAllowed"}],` +
		`"currentHealthy":2,"desiredHealthy":1,"disruptionsAllowed":1,"expectedPods":4,"observedGeneration":2}`
	if got := h.status("web"); got != want {
		t.Errorf("status %s\nwant   %s", got, want)
	}
}

// TestSIM_1_DisruptionBudgetScalesOfControllers: a percentage counts what
// the Pods' controllers ask for: a Deployment's replicas (through its
// ReplicaSet), a ReplicaSet's of its own, a StatefulSet's, a
// ReplicationController's; maxUnavailable is taken from it rounding up, and
// an empty selector selects every Pod of the namespace. Pods without a
// controller cannot be counted: kube's UnmanagedPods warning.
func TestSIM_1_DisruptionBudgetScalesOfControllers(t *testing.T) {
	h := newHarness(t)
	d := h.workload("/apis/apps/v1/namespaces/default/deployments", "apps/v1", "Deployment", "d", 4, nil)
	drs := h.workload("/apis/apps/v1/namespaces/default/replicasets", "apps/v1", "ReplicaSet", "d-abc", 3, d)
	rs := h.workload("/apis/apps/v1/namespaces/default/replicasets", "apps/v1", "ReplicaSet", "rs", 2, nil)
	ss := h.workload("/apis/apps/v1/namespaces/default/statefulsets", "apps/v1", "StatefulSet", "ss", 1, nil)
	rc := h.workload("/api/v1/namespaces/default/replicationcontrollers", "v1", "ReplicationController", "rc", 1, nil)
	for i, owner := range []object.Object{drs, drs, drs, rs, rs, ss, rc} {
		h.api.Create(pods, newPod(string(rune('a'+i)), i != 0, owner))
	}
	h.api.Create(budgets, newBudget("all", map[string]any{"maxUnavailable": "25%", "selector": map[string]any{}}))
	h.sync("default/all")
	// 4+2+1+1 expected, 2 of them may be unavailable, 6 of 7 ready.
	if got, want := h.status("all"), `"currentHealthy":6,"desiredHealthy":6,"disruptionsAllowed":0,"expectedPods":8`; !strings.Contains(got, want) {
		t.Errorf("status %s, want %s", got, want)
	}

	h.api.Create(pods, newPod("loose", true, nil))
	h.api.Create(budgets, newBudget("half", map[string]any{"minAvailable": "50%", "selector": selectWeb}))
	ws := h.sync("default/half")
	if got, want := h.status("half"), `"currentHealthy":7,"desiredHealthy":4,"disruptionsAllowed":3,"expectedPods":8`; !strings.Contains(got, want) {
		t.Errorf("status %s, want %s", got, want)
	}
	if got := clienttest.Events(ws); !slices.Equal(got, []string{"Warning UnmanagedPods: Pods selected by this PodDisruptionBudget " +
		"(selector: &LabelSelector{MatchLabels:map[string]string{app: web,},MatchExpressions:[]LabelSelectorRequirement{},}) were found to be unmanaged. " +
		"As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. " +
		"To account for these pods please set \".spec.minAvailable\" field of the PDB to an integer value."}) {
		t.Errorf("events %q", got)
	}
}

// TestSIM_1_DisruptionBudgetSyncFailed: a Pod whose controller cannot be
// found fails the count: no disruption allowed, the SyncFailed condition
// with the error, kube's CalculateExpectedPodCountFailed warning; once it
// counts again, the condition is InsufficientPods or SufficientPods anew.
func TestSIM_1_DisruptionBudgetSyncFailed(t *testing.T) {
	h := newHarness(t)
	widget := object.Object{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "uid": "w-uid"}}
	h.api.Create(pods, newPod("a", true, widget))
	h.api.Create(budgets, newBudget("web", map[string]any{"maxUnavailable": 1, "selector": selectWeb}))
	ws := h.sync("default/web")
	if got := clienttest.Events(ws); !slices.Equal(got, []string{`Warning CalculateExpectedPodCountFailed: Failed to calculate the number of expected pods: no matches for kind "Widget" in version "example.com/v1"`}) {
		t.Errorf("events %q", got)
	}
	want := `{"conditions":[{"lastTransitionTime":"2026-03-01T09:00:00Z","message":"no matches for kind \"Widget\" in version \"example.com/v1\"","reason":"SyncFailed","status":"False","type":"DisruptionAllowed"}],` +
		`"currentHealthy":0,"desiredHealthy":0,"disruptionsAllowed":0,"expectedPods":0}`
	if got := h.status("web"); got != want {
		t.Errorf("status %s\nwant   %s", got, want)
	}

	h.clock.Step(time.Minute)
	h.api.Remove(pods + "/a")
	h.sync("default/web")
	want = `{"conditions":[{"lastTransitionTime":"2026-03-01T09:00:00Z","message":"","observedGeneration":1,"reason":"InsufficientPods","status":"False","type":"DisruptionAllowed"}],` +
		`"currentHealthy":0,"desiredHealthy":0,"disruptionsAllowed":0,"expectedPods":0,"observedGeneration":1}`
	if got := h.status("web"); got != want {
		t.Errorf("status %s\nwant   %s", got, want)
	}
}

// TestSIM_1_DisruptionBudgetDisruptedPods: a Pod the eviction recorded as
// disrupted is not counted healthy for two minutes while it has not gone;
// one past its time is dropped with kube's NotDeleted warning (naming the
// budget's namespace twice, as kube's does), and so is one that has gone.
func TestSIM_1_DisruptionBudgetDisruptedPods(t *testing.T) {
	h := newHarness(t)
	for _, name := range []string{"a", "b", "c"} {
		h.api.Create(pods, newPod(name, true, nil))
	}
	b := newBudget("web", map[string]any{"minAvailable": 1, "selector": selectWeb})
	now := h.clock.Now()
	b["status"] = map[string]any{"disruptedPods": map[string]any{"a": object.Timestamp(now.Add(-30 * time.Second)),
		"b": object.Timestamp(now.Add(-3 * time.Minute)), "gone": object.Timestamp(now)}}
	h.api.Create(budgets, b)
	ws := h.sync("default/web")
	if got, want := h.status("web"), `"currentHealthy":2,"desiredHealthy":1,"disruptedPods":{"a":"2026-03-01T08:59:30Z"},"disruptionsAllowed":1,"expectedPods":3`; !strings.Contains(got, want) {
		t.Errorf("status %s, want %s", got, want)
	}
	if got := clienttest.Events(ws); !slices.Equal(got, []string{"Warning NotDeleted: Pod was expected by PDB default/default to be deleted but it wasn't"}) ||
		object.Path(ws[0].Object, "involvedObject", "name") != "b" {
		t.Errorf("events %q", got)
	}
	h.clock.Step(91 * time.Second)
	h.sync("default/web")
	if got, want := h.status("web"), `"currentHealthy":3,"desiredHealthy":1,"disruptionsAllowed":2,"expectedPods":3`; !strings.Contains(got, want) {
		t.Errorf("status %s, want %s", got, want)
	}
}

// TestSIM_1_StaleDisruptionTarget: a live Pod that has had a
// DisruptionTarget condition for two minutes has it set to False; one the
// kubelet set, or on a Pod being deleted, stays.
func TestSIM_1_StaleDisruptionTarget(t *testing.T) {
	h := newHarness(t)
	target := func(name, reason string) {
		p := newPod(name, true, nil)
		conds := p["status"].(map[string]any)["conditions"].([]any)
		p["status"].(map[string]any)["conditions"] = append(conds, map[string]any{"type": "DisruptionTarget", "status": "True",
			"reason": reason, "message": "Eviction API: evicting", "lastTransitionTime": object.Timestamp(h.clock.Now())})
		h.api.Create(pods, p)
	}
	target("evicted", "EvictionByEvictionAPI")
	target("kubelet", "TerminationByKubelet")
	h.api.Await(h.dc.pods)
	syncStale := func(key string) []string {
		ws, err := h.api.Sync(h.dc.syncStale, key, h.dc.pods)
		if err != nil {
			t.Fatal(err)
		}
		return clienttest.Changes(ws)
	}
	if got := syncStale("default/evicted"); len(got) != 0 || h.dc.stale.Pending() != 1 {
		t.Errorf("a fresh condition: writes %v, %d pending", got, h.dc.stale.Pending())
	}
	h.clock.Step(2 * time.Minute)
	if got := syncStale("default/evicted"); !slices.Equal(got, []string{"update pods/status default/evicted"}) {
		t.Fatalf("writes %v", got)
	}
	c := object.Objects(object.Child(h.api.MustGet(pods+"/evicted"), "status"), "conditions")[1]
	if controllers.MustJSON(c) != `{"lastProbeTime":null,"lastTransitionTime":"2026-03-01T09:02:00Z","status":"False","type":"DisruptionTarget"}` {
		t.Errorf("condition %v", c)
	}
	if got := syncStale("default/kubelet"); len(got) != 0 {
		t.Errorf("the kubelet's condition: %v", got)
	}
}

// TestSIM_4_MultiplePodDisruptionBudgets: a Pod two budgets select gets
// kube's warning, naming the budget chosen (the first by name).
func TestSIM_4_MultiplePodDisruptionBudgets(t *testing.T) {
	h := newHarness(t)
	h.api.Create(budgets, newBudget("b", map[string]any{"minAvailable": 1, "selector": selectWeb}))
	h.api.Create(budgets, newBudget("a", map[string]any{"maxUnavailable": 1, "selector": map[string]any{}}))
	h.api.Await(h.dc.budgets)
	h.api.Writes()
	h.api.Create(pods, newPod("web-1", true, nil))
	h.api.Await(h.dc.pods)
	want := `Warning MultiplePodDisruptionBudgets: Pod "default"/"web-1" matches multiple PodDisruptionBudgets.  Chose "a" arbitrarily.`
	for range 100 {
		if got := clienttest.Events(h.api.Writes()); len(got) > 0 {
			if !slices.Equal(got, []string{want}) {
				t.Errorf("events %q", got)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Error("no event")
}

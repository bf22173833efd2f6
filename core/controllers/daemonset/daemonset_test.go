package daemonset

import (
	"slices"
	"strings"
	"testing"
	"time"

	"kubeplay/core/client/clienttest"
	"kubeplay/core/clock"
	"kubeplay/core/object"
)

// harness is the DaemonSet controller on a fake API and a fake clock; the
// test plays the kubelets and syncs keys itself.
type harness struct {
	t     *testing.T
	api   *clienttest.API
	clock *clock.Fake
	dc    *Controller
}

const (
	sets      = "/apis/apps/v1/namespaces/default/daemonsets"
	pods      = "/api/v1/namespaces/default/pods"
	nodes     = "/api/v1/nodes"
	revisions = "/apis/apps/v1/namespaces/default/controllerrevisions"
)

func newHarness(t *testing.T, nodeObjs ...object.Object) *harness {
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	api := clienttest.New(t, clk)
	for _, n := range nodeObjs {
		api.Create(nodes, n)
	}
	dc := New(api, clk)
	api.Run(dc.sets, dc.pods, dc.nodes, dc.revisions)
	return &harness{t: t, api: api, clock: clk, dc: dc}
}

func (h *harness) sync() []clienttest.Write {
	h.t.Helper()
	ws, err := h.api.Sync(h.dc.sync, "default/agent", h.dc.sets, h.dc.pods, h.dc.nodes, h.dc.revisions)
	if err != nil {
		h.t.Fatalf("sync: %v", err)
	}
	return ws
}

func newNode(name string, labels map[string]any, taints ...any) object.Object {
	return object.Object{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": name, "labels": labels},
		"spec": map[string]any{"taints": taints}}
}

func newDaemonSet(image string, strategy map[string]any) object.Object {
	return object.Object{"apiVersion": "apps/v1", "kind": "DaemonSet",
		"metadata": map[string]any{"name": "agent", "annotations": map[string]any{"deprecated.daemonset.template.generation": "1"}},
		"spec": map[string]any{"updateStrategy": strategy, "selector": map[string]any{"matchLabels": map[string]any{"app": "agent"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "agent"}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": image}}}}}}
}

// ready makes every Pod ready, and long enough to be available.
func (h *harness) ready() {
	for _, p := range h.api.List(pods) {
		h.api.Edit(pods+"/"+object.MetaString(p, "name"), func(o object.Object) {
			o["status"] = map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True",
				"lastTransitionTime": object.Timestamp(h.clock.Now().Add(-time.Minute))}}}
		})
	}
}

// byNode is each Pod's node and revision hash, sorted: "n1:HASH".
func (h *harness) byNode() []string {
	var out []string
	for _, p := range h.api.List(pods) {
		node := ""
		for _, t := range object.Objects(object.Path(p, "spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution").(map[string]any), "nodeSelectorTerms") {
			for _, f := range object.Objects(t, "matchFields") {
				node = object.Strings(f, "values")[0]
			}
		}
		out = append(out, node+":"+object.Labels(p)["controller-revision-hash"])
	}
	slices.Sort(out)
	return out
}

// TestSIM_1_DaemonSetPodPerFittingNode: a DaemonSet's template is kept as
// ControllerRevision 1 (its hash in the controller-revision-hash label, as
// kube's DaemonSet controller labels it), and one Pod of it runs on every node it fits (taints
// it does not tolerate keep it off; the daemon tolerations let it on
// unschedulable nodes), pinned by node affinity, labelled with the revision
// hash and template generation; the status counts the nodes.
func TestSIM_1_DaemonSetPodPerFittingNode(t *testing.T) {
	h := newHarness(t,
		newNode("n1", nil),
		newNode("n2", nil, map[string]any{"key": "dedicated", "value": "db", "effect": "NoSchedule"}),
		newNode("n3", nil, map[string]any{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}))
	h.api.Create(sets, newDaemonSet("agent:1", nil))
	ws := h.sync()
	changes := clienttest.Changes(ws)
	if len(changes) != 4 || !strings.HasPrefix(changes[0], "create controllerrevisions default/agent-") ||
		changes[3] != "update daemonsets/status default/agent" {
		t.Fatalf("writes %q, want the revision, two Pods and the status", changes)
	}
	rev := ws[0].Object
	hash := object.Labels(rev)["controller-revision-hash"]
	if object.Int(rev["revision"]) != 1 || object.MetaString(rev, "name") != "agent-"+hash {
		t.Errorf("revision %v", rev)
	}
	if got := h.byNode(); !slices.Equal(got, []string{"n1:" + hash, "n3:" + hash}) {
		t.Errorf("Pods %q", got)
	}
	p := h.api.List(pods)[0]
	if object.Labels(p)["pod-template-generation"] != "1" {
		t.Errorf("labels %v", object.Labels(p))
	}
	var tolerated []string
	for _, tol := range object.Objects(p["spec"].(map[string]any), "tolerations") {
		tolerated = append(tolerated, tol["key"].(string))
	}
	if !slices.Contains(tolerated, "node.kubernetes.io/unschedulable") || len(tolerated) != len(daemonTolerations) {
		t.Errorf("tolerations %q", tolerated)
	}
	h.ready()
	h.sync()
	st := h.api.MustGet(sets + "/agent")["status"].(map[string]any)
	for k, v := range map[string]int64{"desiredNumberScheduled": 2, "currentNumberScheduled": 2, "numberReady": 2,
		"numberAvailable": 2, "updatedNumberScheduled": 2, "numberMisscheduled": 0, "observedGeneration": 1} {
		if object.Int(st[k]) != v {
			t.Errorf("status.%s = %v, want %d", k, st[k], v)
		}
	}
	// A node no longer fits: its Pod is deleted.
	h.api.Edit(nodes+"/n1", func(o object.Object) {
		o["spec"] = map[string]any{"taints": []any{map[string]any{"key": "gpu", "effect": "NoExecute"}}}
	})
	if got := clienttest.Changes(h.sync()); len(got) != 2 || !strings.HasPrefix(got[0], "delete pods default/agent-") {
		t.Errorf("after n1's taint: %q, want its Pod deleted and the status", got)
	}
}

// TestSIM_1_DaemonSetRollsOutNodeByNode: a new template gets ControllerRevision
// 2; with RollingUpdate, outdated Pods are deleted one at a time
// (maxUnavailable 1), the next only once the replacement is available; with
// OnDelete, none is deleted.
func TestSIM_1_DaemonSetRollsOutNodeByNode(t *testing.T) {
	h := newHarness(t, newNode("n1", nil), newNode("n2", nil), newNode("n3", nil))
	h.api.Create(sets, newDaemonSet("agent:1", map[string]any{"type": "OnDelete"}))
	h.sync()
	h.ready()
	h.sync()
	old := h.byNode()[0][3:]
	h.api.Edit(sets+"/agent", func(o object.Object) {
		object.Path(o, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)["image"] = "agent:2"
	})
	ws := h.sync()
	if got := clienttest.Changes(ws); len(got) != 2 || !strings.HasPrefix(got[0], "create controllerrevisions") {
		t.Fatalf("OnDelete: %q, want the new revision and the status only", got)
	}
	updated := object.Labels(ws[0].Object)["controller-revision-hash"]
	if object.Int(ws[0].Object["revision"]) != 2 {
		t.Errorf("revision %v, want 2", ws[0].Object["revision"])
	}
	h.api.Edit(sets+"/agent", func(o object.Object) {
		o["spec"].(map[string]any)["updateStrategy"] = map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxUnavailable": 1}}
	})
	var steps [][]string
	for range 10 {
		ws := h.sync()
		if len(clienttest.Changes(ws)) == 0 {
			break
		}
		deleted := 0
		for _, w := range ws {
			if w.Verb == "delete" {
				deleted++
			}
		}
		if deleted > 1 {
			t.Errorf("one sync deleted %d Pods", deleted)
		}
		steps = append(steps, h.byNode())
		h.ready()
	}
	// Each Pod replaced in turn: deleted, then made again of the new
	// revision; then the status.
	o, u := old, updated
	want := [][]string{{"n2:" + o, "n3:" + o}, {"n1:" + u, "n2:" + o, "n3:" + o}, {"n1:" + u, "n3:" + o}, {"n1:" + u, "n2:" + u, "n3:" + o},
		{"n1:" + u, "n2:" + u}, {"n1:" + u, "n2:" + u, "n3:" + u}, {"n1:" + u, "n2:" + u, "n3:" + u}}
	if !slices.EqualFunc(steps, want, slices.Equal) {
		t.Errorf("steps\n got %q\nwant %q", steps, want)
	}
}

// TestSIM_1_DaemonSetReplacesFailedPod: a daemon Pod that failed is killed
// (a FailedDaemonPod warning, then SuccessfulDelete) and its node gets a new
// one in the same sync, as kube's podsShouldBeOnNode does.
func TestSIM_1_DaemonSetReplacesFailedPod(t *testing.T) {
	h := newHarness(t, newNode("n1", nil))
	h.api.Create(sets, newDaemonSet("agent:1", nil))
	h.sync()
	h.ready()
	h.sync()
	victim := object.MetaString(h.api.List(pods)[0], "name")
	h.api.Edit(pods+"/"+victim, func(o object.Object) { o["status"].(map[string]any)["phase"] = "Failed" })
	var changes []string
	for _, c := range clienttest.Changes(h.sync()) {
		if !strings.HasPrefix(c, "create events ") {
			changes = append(changes, c)
		}
	}
	if len(changes) != 3 || changes[0] != "delete pods default/"+victim || !strings.HasPrefix(changes[1], "create pods default/agent-") {
		t.Errorf("writes %q, want the failed Pod deleted, another created and the status", changes)
	}
	var reasons []string
	for _, e := range h.api.List("/api/v1/namespaces/default/events") {
		reasons = append(reasons, object.String(e["reason"])+" "+object.String(e["message"]))
	}
	if !slices.Contains(reasons, "FailedDaemonPod Found failed daemon pod default/"+victim+" on node n1, will try to kill it") {
		t.Errorf("events %q", reasons)
	}
}

package deployment

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kubeplay/core/client/clienttest"
	"kubeplay/core/clock"
	"kubeplay/core/object"
)

// harness is the Deployment controller on a fake API and a fake clock; the
// test plays the ReplicaSet controller (setsSettle) and syncs keys itself.
type harness struct {
	t     *testing.T
	api   *clienttest.API
	clock *clock.Fake
	dc    *Controller
}

const (
	deploys = "/apis/apps/v1/namespaces/default/deployments"
	rsets   = "/apis/apps/v1/namespaces/default/replicasets"
)

func newHarness(t *testing.T) *harness {
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	api := clienttest.New(t, clk)
	dc := New(api, clk)
	api.Run(dc.deploys, dc.sets)
	return &harness{t: t, api: api, clock: clk, dc: dc}
}

func (h *harness) sync() []clienttest.Write {
	h.t.Helper()
	ws, err := h.api.Sync(h.dc.sync, "default/web", h.dc.deploys, h.dc.sets)
	if err != nil {
		h.t.Fatalf("sync: %v", err)
	}
	return ws
}

// newDeployment is web: replicas of image, with strategy.
func newDeployment(replicas int, image string, strategy map[string]any) object.Object {
	return object.Object{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"replicas": replicas, "strategy": strategy, "progressDeadlineSeconds": 600, "revisionHistoryLimit": 10,
			"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": image}}}}}}
}

var rolling = map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxSurge": "25%", "maxUnavailable": "25%"}}

// setImage changes the Deployment's template.
func (h *harness) setImage(image string) {
	h.api.Edit(deploys+"/web", func(o object.Object) {
		c := object.Path(o, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)
		c["image"] = image
		object.Meta(o)["generation"] = object.Int(object.Meta(o)["generation"]) + 1
	})
}

// setsSettle plays the ReplicaSet controller and the kubelets: every
// ReplicaSet's Pods exist and are available.
func (h *harness) setsSettle() {
	for _, rs := range h.api.List(rsets) {
		n := object.Int(object.Path(rs, "spec", "replicas"))
		h.api.Edit(rsets+"/"+object.MetaString(rs, "name"), func(o object.Object) {
			o["status"] = map[string]any{"replicas": n, "readyReplicas": n, "availableReplicas": n, "fullyLabeledReplicas": n,
				"observedGeneration": object.Meta(o)["generation"]}
		})
	}
}

// sizes are the ReplicaSets' replicas, by revision ("1:3 2:2").
func (h *harness) sizes() string {
	var parts []string
	for _, rs := range h.api.List(rsets) {
		parts = append(parts, object.StringMap(object.Meta(rs), "annotations")[revisionAnnotation]+":"+
			strconv.FormatInt(object.Int(object.Path(rs, "spec", "replicas")), 10))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

func (h *harness) condition(typ string) map[string]any {
	for _, c := range object.Objects(h.api.MustGet(deploys + "/web")["status"].(map[string]any), "conditions") {
		if c["type"] == typ {
			return c
		}
	}
	return nil
}

func scalingEvents(ws []clienttest.Write) []string {
	var out []string
	for _, e := range clienttest.Events(ws) {
		if rest, ok := strings.CutPrefix(e, "Normal ScalingReplicaSet: "); ok {
			out = append(out, rest)
		}
	}
	return out
}

// TestSIM_1_DeploymentCreatesItsReplicaSet: a new Deployment gets a
// ReplicaSet of its template named after the template's pod-template-hash
// (in its labels and selector), controlled by it, at its replicas, with the
// revision and replica annotations; the Deployment gets revision 1 and the
// Progressing condition NewReplicaSetCreated, then, once the Pods are
// available, Available and NewReplicaSetAvailable.
func TestSIM_1_DeploymentCreatesItsReplicaSet(t *testing.T) {
	h := newHarness(t)
	d := h.api.Create(deploys, newDeployment(4, "nginx:1", rolling))
	ws := h.sync()
	var rs object.Object
	for _, w := range ws {
		if w.Verb == "create" && w.Resource == "replicasets" {
			rs = w.Object
		}
	}
	if rs == nil {
		t.Fatalf("no ReplicaSet created: %v", clienttest.Changes(ws))
	}
	hash := object.Labels(rs)[hashLabel]
	if hash == "" || object.MetaString(rs, "name") != "web-"+hash || object.Path(rs, "spec", "selector", "matchLabels", hashLabel) != hash ||
		object.Path(rs, "spec", "template", "metadata", "labels", hashLabel) != hash {
		t.Errorf("ReplicaSet %s: labels %v, selector %v", object.MetaString(rs, "name"), object.Labels(rs), object.Path(rs, "spec", "selector"))
	}
	refs := object.Objects(object.Meta(rs), "ownerReferences")
	if len(refs) != 1 || refs[0]["uid"] != object.MetaString(d, "uid") || refs[0]["controller"] != true {
		t.Errorf("owner references %v", refs)
	}
	want := map[string]string{revisionAnnotation: "1", desiredReplicasAnnotation: "4", maxReplicasAnnotation: "5"}
	for k, v := range want {
		if got := object.StringMap(object.Meta(rs), "annotations")[k]; got != v {
			t.Errorf("annotation %s = %q, want %q", k, got, v)
		}
	}
	if n := object.Int(object.Path(rs, "spec", "replicas")); n != 4 {
		t.Errorf("replicas %d, want 4", n)
	}
	if ev := scalingEvents(ws); !slices.Equal(ev, []string{"Scaled up replica set web-" + hash + " from 0 to 4"}) {
		t.Errorf("events %q", ev)
	}
	cur := h.api.MustGet(deploys + "/web")
	if object.StringMap(object.Meta(cur), "annotations")[revisionAnnotation] != "1" {
		t.Errorf("Deployment annotations %v", object.Meta(cur)["annotations"])
	}
	if c := h.condition("Progressing"); c == nil || c["reason"] != "NewReplicaSetCreated" || c["status"] != "True" {
		t.Errorf("Progressing %v", c)
	}
	if c := h.condition("Available"); c == nil || c["status"] != "False" {
		t.Errorf("Available %v, want False before any Pod is", c)
	}
	h.setsSettle()
	h.sync()
	st := h.api.MustGet(deploys + "/web")["status"].(map[string]any)
	for _, k := range []string{"replicas", "updatedReplicas", "readyReplicas", "availableReplicas"} {
		if object.Int(st[k]) != 4 {
			t.Errorf("status.%s = %v, want 4", k, st[k])
		}
	}
	if c := h.condition("Progressing"); c == nil || c["reason"] != availableReason {
		t.Errorf("Progressing %v, want %s", c, availableReason)
	}
	if c := h.condition("Available"); c == nil || c["status"] != "True" || c["reason"] != "MinimumReplicasAvailable" {
		t.Errorf("Available %v", c)
	}
}

// TestSIM_1_DeploymentRollsOutWithinSurgeAndUnavailable: a new template gets a
// new ReplicaSet (revision 2), scaled up step by step while the old one is
// scaled down, never above replicas+maxSurge nor below
// replicas-maxUnavailable, in kube's steps; the old ReplicaSet is kept at 0
// (history), and the rollout ends complete.
func TestSIM_1_DeploymentRollsOutWithinSurgeAndUnavailable(t *testing.T) {
	h := newHarness(t)
	h.api.Create(deploys, newDeployment(4, "nginx:1", rolling))
	h.sync()
	h.setsSettle()
	h.sync()
	h.setImage("nginx:2")
	var steps, events []string
	for range 20 {
		ws := h.sync()
		events = append(events, scalingEvents(ws)...)
		if len(clienttest.Changes(ws)) == 0 {
			break
		}
		steps = append(steps, h.sizes())
		var total int64
		for _, rs := range h.api.List(rsets) {
			total += object.Int(object.Path(rs, "spec", "replicas"))
		}
		if total > 5 || total < 3 {
			t.Errorf("after %q: %d replicas in all, want 3 to 5 (4, maxSurge 1, maxUnavailable 1)", steps, total)
		}
		h.setsSettle()
	}
	// Kube's steps (rolloutRolling, each sync after the Pods of the last
	// are available): the new ReplicaSet is created at the surge and the
	// old one scaled down by the unavailable allowance at once; then, in
	// turn, the new one up to the surge and the old one down to
	// minAvailable; last, the status.
	wantSteps := []string{"1:3 2:1", "1:3 2:2", "1:1 2:2", "1:1 2:4", "1:0 2:4", "1:0 2:4"}
	if !slices.Equal(steps, wantSteps) {
		t.Errorf("steps\n got %q\nwant %q", steps, wantSteps)
	}
	if len(events) != 6 || !strings.HasPrefix(events[0], "Scaled up replica set web-") || !strings.HasSuffix(events[5], "from 1 to 0") {
		t.Errorf("events %q", events)
	}
	if c := h.condition("Progressing"); c == nil || c["reason"] != availableReason {
		t.Errorf("Progressing %v", c)
	}
	if a := object.StringMap(object.Meta(h.api.MustGet(deploys+"/web")), "annotations"); a[revisionAnnotation] != "2" {
		t.Errorf("Deployment revision %q, want 2", a[revisionAnnotation])
	}
}

// settle syncs, the ReplicaSets settling between syncs by settle, until a
// sync writes nothing; it returns the ReplicaSets' sizes after each sync
// that wrote.
func (h *harness) settle(settle func()) []string {
	h.t.Helper()
	var steps []string
	for range 30 {
		if len(clienttest.Changes(h.sync())) == 0 {
			return steps
		}
		steps = append(steps, h.sizes())
		settle()
	}
	h.t.Fatalf("still writing after 30 syncs: %q", steps)
	return nil
}

// TestSIM_1_DeploymentRecreate: with the Recreate strategy the old
// ReplicaSet is scaled to 0 first, and the new one is created, at full size,
// only once the old one's Pods are gone.
func TestSIM_1_DeploymentRecreate(t *testing.T) {
	h := newHarness(t)
	h.api.Create(deploys, newDeployment(3, "nginx:1", map[string]any{"type": "Recreate"}))
	h.settle(h.setsSettle)
	h.setImage("nginx:2")
	h.sync()
	if got := h.sizes(); got != "1:0" {
		t.Fatalf("after the first sync: %s, want the old ReplicaSet at 0 and no new one", got)
	}
	h.sync() // its Pods are still there (status.replicas 3): no new ReplicaSet
	if got := h.sizes(); got != "1:0" {
		t.Fatalf("with the old Pods still running: %s", got)
	}
	h.setsSettle() // they are gone
	if steps := h.settle(h.setsSettle); len(steps) == 0 || steps[0] != "1:0 2:3" {
		t.Errorf("once they were gone: %q, want the new ReplicaSet at 3", steps)
	}
}

// settleOld settles the ReplicaSets of revision 1 only: the new template's
// Pods never become available.
func (h *harness) settleOld() {
	for _, rs := range h.api.List(rsets) {
		n := object.Int(object.Path(rs, "spec", "replicas"))
		available := n
		if object.StringMap(object.Meta(rs), "annotations")[revisionAnnotation] != "1" {
			available = 0
		}
		h.api.Edit(rsets+"/"+object.MetaString(rs, "name"), func(o object.Object) {
			o["status"] = map[string]any{"replicas": n, "availableReplicas": available, "readyReplicas": available, "observedGeneration": object.Meta(o)["generation"]}
		})
	}
}

// TestSIM_1_DeploymentScalesProportionally is kube's e2e "deployment should
// support proportional scaling": 10 replicas, maxSurge 3, maxUnavailable 2, a
// rollout stuck on an image that never runs (the old ReplicaSet at 8, the new
// at 5), then scaled to 30: the 20 more are shared by the ReplicaSets' sizes,
// 20 and 13. A rollout without progress for progressDeadlineSeconds is then
// ProgressDeadlineExceeded.
func TestSIM_1_DeploymentScalesProportionally(t *testing.T) {
	h := newHarness(t)
	h.api.Create(deploys, newDeployment(10, "nginx:1", map[string]any{"type": "RollingUpdate",
		"rollingUpdate": map[string]any{"maxSurge": 3, "maxUnavailable": 2}}))
	h.settle(h.setsSettle)
	h.setImage("nginx:404")
	h.settle(h.settleOld)
	if got := h.sizes(); got != "1:8 2:5" {
		t.Fatalf("stuck rollout: %s, want 1:8 2:5", got)
	}
	if c := h.condition("Progressing"); c == nil || c["reason"] != "ReplicaSetUpdated" || c["status"] != "True" {
		t.Errorf("Progressing %v", c)
	}
	h.api.Edit(deploys+"/web", func(o object.Object) { o["spec"].(map[string]any)["replicas"] = 30 })
	ws := h.sync()
	if got := h.sizes(); got != "1:20 2:13" {
		t.Errorf("scaled to 30: %s, want 1:20 2:13", got)
	}
	if ev := scalingEvents(ws); len(ev) != 2 {
		t.Errorf("events %q", ev)
	}
	h.settle(h.settleOld)
	h.clock.Step(601 * time.Second)
	h.sync()
	if c := h.condition("Progressing"); c == nil || c["reason"] != timedOutReason || c["status"] != "False" {
		t.Errorf("after the deadline: Progressing %v, want %s", c, timedOutReason)
	}
}

// TestSIM_1_DeploymentHistory: rolling back to an earlier template reuses its
// ReplicaSet, renumbered as the newest revision with the old number in
// revision-history; old ReplicaSets beyond revisionHistoryLimit are deleted,
// the oldest revision first, once scaled to 0.
func TestSIM_1_DeploymentHistory(t *testing.T) {
	h := newHarness(t)
	d := newDeployment(2, "nginx:1", rolling)
	d["spec"].(map[string]any)["revisionHistoryLimit"] = 1
	h.api.Create(deploys, d)
	h.settle(h.setsSettle)
	for _, image := range []string{"nginx:2", "nginx:3"} {
		h.setImage(image)
		h.settle(h.setsSettle)
	}
	if got := h.sizes(); got != "2:0 3:2" {
		t.Fatalf("after three templates, history 1: %s, want revision 1 deleted", got)
	}
	h.setImage("nginx:2")
	h.settle(h.setsSettle)
	if got := h.sizes(); got != "3:0 4:2" {
		t.Fatalf("rolled back to nginx:2: %s, want its ReplicaSet as revision 4", got)
	}
	for _, rs := range h.api.List(rsets) {
		a := object.StringMap(object.Meta(rs), "annotations")
		if a[revisionAnnotation] == "4" && a[revisionHistoryAnnotation] != "2" {
			t.Errorf("revision-history %q, want 2", a[revisionHistoryAnnotation])
		}
	}
	if a := object.StringMap(object.Meta(h.api.MustGet(deploys+"/web")), "annotations"); a[revisionAnnotation] != "4" {
		t.Errorf("Deployment revision %q, want 4", a[revisionAnnotation])
	}
}

package statefulset

import (
	"slices"
	"strings"
	"testing"
	"time"

	"kubeplay/core/client/clienttest"
	"kubeplay/core/clock"
	"kubeplay/core/object"
)

// harness is the StatefulSet controller on a fake API and a fake clock; the
// test plays the kubelets and syncs keys itself.
type harness struct {
	t     *testing.T
	api   *clienttest.API
	clock *clock.Fake
	sc    *Controller
}

const (
	sets = "/apis/apps/v1/namespaces/default/statefulsets"
	pods = "/api/v1/namespaces/default/pods"
)

func newHarness(t *testing.T) *harness {
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	api := clienttest.New(t, clk)
	sc := New(api, clk)
	api.Run(sc.sets, sc.pods, sc.revisions, sc.claims)
	return &harness{t: t, api: api, clock: clk, sc: sc}
}

func (h *harness) sync() []string {
	h.t.Helper()
	ws, err := h.api.Sync(h.sc.sync, "default/web", h.sc.sets, h.sc.pods, h.sc.revisions, h.sc.claims)
	if err != nil {
		h.t.Fatalf("sync: %v", err)
	}
	return clienttest.Changes(ws)
}

func newStatefulSet(replicas int, policy string) object.Object {
	return object.Object{"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"replicas": replicas, "serviceName": "nginx", "podManagementPolicy": policy,
			"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx:1"}}}},
			"volumeClaimTemplates": []any{map[string]any{"metadata": map[string]any{"name": "www"},
				"spec": map[string]any{"accessModes": []any{"ReadWriteOnce"}, "resources": map[string]any{"requests": map[string]any{"storage": "1Gi"}}}}}}}
}

// run makes Pod name Running and Ready, as its kubelet would.
func (h *harness) run(name string) {
	h.api.Edit(pods+"/"+name, func(o object.Object) {
		o["status"] = map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True",
			"lastTransitionTime": object.Timestamp(h.clock.Now())}}}
	})
}

// runAll makes every Pod Running and Ready.
func (h *harness) runAll() {
	for _, p := range h.api.List(pods) {
		h.run(object.MetaString(p, "name"))
	}
}

// revisions are the Pods' names and revision hashes: "web-0:HASH".
func (h *harness) revisions() []string {
	var out []string
	for _, p := range h.api.List(pods) {
		out = append(out, object.MetaString(p, "name")+":"+object.Labels(p)["controller-revision-hash"])
	}
	return out
}

// TestSIM_1_StatefulSetOrderedReady: with OrderedReady, Pods are created one
// at a time in ordinal order, each once the one before is Running and Ready,
// its claim of each volumeClaimTemplate made before it; a Pod gets its name
// as hostname, the governing Service as subdomain and its ordinal's labels.
// Scaled down, the highest ordinal goes first, one at a time.
func TestSIM_1_StatefulSetOrderedReady(t *testing.T) {
	h := newHarness(t)
	h.api.Create(sets, newStatefulSet(3, ""))
	got := h.sync()
	want := []string{"create persistentvolumeclaims default/www-web-0", "create pods default/web-0", "update statefulsets/status default/web"}
	if len(got) != 4 || !strings.HasPrefix(got[0], "create controllerrevisions default/web-") || !slices.Equal(got[1:], want) {
		t.Fatalf("first sync: %q, want the revision, then %q", got, want)
	}
	p := h.api.MustGet(pods + "/web-0")
	rev := strings.TrimPrefix(got[0], "create controllerrevisions default/")
	if object.Path(p, "spec", "hostname") != "web-0" || object.Path(p, "spec", "subdomain") != "nginx" {
		t.Errorf("hostname %v, subdomain %v", object.Path(p, "spec", "hostname"), object.Path(p, "spec", "subdomain"))
	}
	if l := object.Labels(p); l["controller-revision-hash"] != rev || l["statefulset.kubernetes.io/pod-name"] != "web-0" || l["apps.kubernetes.io/pod-index"] != "0" {
		t.Errorf("labels %v", l)
	}
	if v := object.Objects(p["spec"].(map[string]any), "volumes"); len(v) != 1 || object.Path(v[0], "persistentVolumeClaim", "claimName") != "www-web-0" {
		t.Errorf("volumes %v", v)
	}
	if got := h.sync(); !slices.Equal(got, []string{"update statefulsets/status default/web"}) {
		t.Errorf("with web-0 not ready: %q, want its status only (web-0 counted)", got)
	}
	h.run("web-0")
	if got := h.sync(); len(got) < 2 || got[0] != "create persistentvolumeclaims default/www-web-1" || got[1] != "create pods default/web-1" {
		t.Errorf("web-0 ready: %q, want web-1's claim and web-1", got)
	}
	h.run("web-1")
	h.sync()
	h.run("web-2")
	h.sync()
	st := h.api.MustGet(sets + "/web")["status"].(map[string]any)
	if object.Int(st["replicas"]) != 3 || object.Int(st["readyReplicas"]) != 3 || st["currentRevision"] != rev || st["updateRevision"] != rev {
		t.Errorf("status %v", st)
	}
	h.api.Edit(sets+"/web", func(o object.Object) { o["spec"].(map[string]any)["replicas"] = 1 })
	if got := h.sync(); len(got) == 0 || got[0] != "delete pods default/web-2" {
		t.Errorf("scaled to 1: %q, want web-2 deleted first", got)
	}
	if got := h.sync(); len(got) == 0 || got[0] != "delete pods default/web-1" {
		t.Errorf("then: %q, want web-1 deleted", got)
	}
	if _, ok := h.api.Get("/api/v1/namespaces/default/persistentvolumeclaims/www-web-2"); !ok {
		t.Error("web-2's claim went with it; kube keeps claims")
	}
}

// TestSIM_1_StatefulSetParallelAndRollingUpdate: with Parallel, every Pod is
// created at once; a new template rolls out from the highest ordinal down,
// one Pod at a time once the others are ready, above the partition; a Pod
// that failed is replaced.
func TestSIM_1_StatefulSetParallelAndRollingUpdate(t *testing.T) {
	h := newHarness(t)
	h.api.Create(sets, newStatefulSet(3, "Parallel"))
	if got := h.sync(); len(got) != 8 {
		t.Fatalf("first sync: %q, want the revision, three claims and Pods, the status", got)
	}
	h.runAll()
	h.sync()
	old := h.revisions()[0][len("web-0:"):]
	h.api.Edit(sets+"/web", func(o object.Object) {
		spec := o["spec"].(map[string]any)
		object.Path(spec, "template", "spec", "containers").([]any)[0].(map[string]any)["image"] = "nginx:2"
		spec["updateStrategy"] = map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"partition": 1}}
	})
	var order []string
	for range 10 {
		got := h.sync()
		if len(got) == 0 {
			break
		}
		for _, w := range got {
			if strings.HasPrefix(w, "delete pods ") {
				order = append(order, strings.TrimPrefix(w, "delete pods default/"))
			}
		}
		h.runAll()
	}
	if !slices.Equal(order, []string{"web-2", "web-1"}) {
		t.Errorf("deleted %q, want web-2 then web-1 (partition 1 keeps web-0)", order)
	}
	revs := h.revisions()
	updated := revs[2][len("web-2:"):]
	if updated == old || revs[0] != "web-0:"+old || revs[1] != "web-1:"+updated {
		t.Errorf("revisions %q (old %s)", revs, old)
	}
	st := h.api.MustGet(sets + "/web")["status"].(map[string]any)
	if st["currentRevision"] != old || st["updateRevision"] != updated || object.Int(st["updatedReplicas"]) != 2 {
		t.Errorf("status %v", st)
	}
	h.api.Edit(pods+"/web-0", func(o object.Object) { o["status"] = map[string]any{"phase": "Failed"} })
	if got := h.sync(); len(got) == 0 || got[0] != "delete pods default/web-0" {
		t.Errorf("web-0 failed: %q, want it deleted", got)
	}
	if got := h.sync(); !slices.Contains(got, "create pods default/web-0") {
		t.Errorf("then: %q, want it made again", got)
	}
}

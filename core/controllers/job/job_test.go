package job

import (
	"slices"
	"testing"
	"time"

	"kubeplay/core/client/clienttest"
	"kubeplay/core/clock"
	"kubeplay/core/object"
)

// harness is the Job controller on a fake API and a fake clock; the test
// plays the kubelets and syncs keys itself.
type harness struct {
	t     *testing.T
	api   *clienttest.API
	clock *clock.Fake
	jc    *Controller
}

const (
	jobs = "/apis/batch/v1/namespaces/default/jobs"
	pods = "/api/v1/namespaces/default/pods"
)

func newHarness(t *testing.T) *harness {
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	api := clienttest.New(t, clk)
	jc := New(api, clk)
	api.Run(jc.jobs, jc.pods)
	return &harness{t: t, api: api, clock: clk, jc: jc}
}

func (h *harness) sync(key string) []clienttest.Write {
	h.t.Helper()
	ws, err := h.api.Sync(h.jc.sync, key, h.jc.jobs, h.jc.pods)
	if err != nil {
		h.t.Fatalf("sync %s: %v", key, err)
	}
	return ws
}

// settle syncs the Job until a sync writes nothing, and returns every write.
func (h *harness) settle() []clienttest.Write {
	h.t.Helper()
	var all []clienttest.Write
	for range 20 {
		ws := h.sync("default/pi")
		if len(ws) == 0 {
			return all
		}
		all = append(all, ws...)
	}
	h.t.Fatalf("still writing after 20 syncs: %q", clienttest.Changes(all))
	return nil
}

// newJob is a Job with the given spec, its selector as the API would have
// given it (a label of the template).
func newJob(spec map[string]any) object.Object {
	spec["selector"] = map[string]any{"matchLabels": map[string]any{"job": "pi"}}
	spec["template"] = map[string]any{"metadata": map[string]any{"labels": map[string]any{"job": "pi"}},
		"spec": map[string]any{"restartPolicy": "Never", "containers": []any{map[string]any{"name": "pi", "image": "perl"}}}}
	return object.Object{"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": "pi"}, "spec": spec}
}

// podsOf are the Job's Pods that run (not finished, not being deleted).
func (h *harness) running() []object.Object {
	var out []object.Object
	for _, p := range h.api.List(pods) {
		phase := object.Path(p, "status", "phase")
		if phase != "Succeeded" && phase != "Failed" && object.MetaString(p, "deletionTimestamp") == "" {
			out = append(out, p)
		}
	}
	return out
}

// finish ends a Pod in phase, as its kubelet would.
func (h *harness) finish(p object.Object, phase string) {
	h.api.Edit(pods+"/"+object.MetaString(p, "name"), func(o object.Object) { o["status"] = map[string]any{"phase": phase} })
}

func (h *harness) status() map[string]any {
	st, _ := h.api.MustGet(jobs + "/pi")["status"].(map[string]any)
	return st
}

func conditionTypes(st map[string]any) []string {
	var out []string
	for _, c := range object.Objects(st, "conditions") {
		out = append(out, c["type"].(string)+"="+c["reason"].(string))
	}
	return out
}

// TestSIM_1_JobRunsToCompletions: a Job runs parallelism Pods at a time,
// tracked by kube's finalizer, until completions have succeeded; a finished
// Pod is listed in uncountedTerminatedPods, then loses its finalizer, then is
// counted, each written before the next; the Job then gets
// SuccessCriteriaMet and Complete, its completionTime and a Completed event.
func TestSIM_1_JobRunsToCompletions(t *testing.T) {
	h := newHarness(t)
	h.api.Create(jobs, newJob(map[string]any{"parallelism": 2, "completions": 3}))
	ws := h.sync("default/pi")
	if got := clienttest.Changes(ws); len(got) != 3 || got[0][:12] != "create pods " || got[2] != "update jobs/status default/pi" {
		t.Fatalf("first sync: %q, want two Pods and the status", got)
	}
	for _, w := range ws {
		if w.Resource != "pods" {
			continue
		}
		if f := object.Strings(object.Meta(w.Object), "finalizers"); !slices.Equal(f, []string{trackingFinalizer}) {
			t.Errorf("Pod %s: finalizers %v", w.Name, f)
		}
	}
	if h.status()["startTime"] != "2026-03-01T09:00:00Z" {
		t.Errorf("startTime %v", h.status()["startTime"])
	}
	first := h.running()[0]
	uid := object.MetaString(first, "uid")
	h.finish(first, "Succeeded")
	steps := [][]string{
		{"update jobs/status default/pi"},                          // listed as uncounted
		{"patch pods default/" + object.MetaString(first, "name")}, // its finalizer off
	}
	for i, want := range steps {
		if got := clienttest.Changes(h.sync("default/pi")); !slices.Equal(got, want) {
			t.Fatalf("step %d: %q, want %q", i, got, want)
		}
		if i == 0 {
			if u := object.Path(h.status(), "uncountedTerminatedPods", "succeeded"); !slices.Equal(object.Strings(map[string]any{"u": u}, "u"), []string{uid}) {
				t.Fatalf("uncountedTerminatedPods.succeeded %v, want [%s]", u, uid)
			}
		}
	}
	if f := object.Meta(h.api.MustGet(pods + "/" + object.MetaString(first, "name")))["finalizers"]; f != nil {
		t.Fatalf("finalizers %v after the patch", f)
	}
	ws = h.sync("default/pi") // counted; one more Pod for the last completion
	if object.Int(h.status()["succeeded"]) != 1 || len(h.running()) != 2 {
		t.Fatalf("succeeded %v with %d running, want 1 and 2: %q", h.status()["succeeded"], len(h.running()), clienttest.Changes(ws))
	}
	for _, p := range h.running() {
		h.finish(p, "Succeeded")
	}
	ws = h.settle()
	st := h.status()
	if object.Int(st["succeeded"]) != 3 || object.Int(st["active"]) != 0 || st["completionTime"] != "2026-03-01T09:00:00Z" {
		t.Errorf("status %v", st)
	}
	if got := conditionTypes(st); !slices.Equal(got, []string{"SuccessCriteriaMet=CompletionsReached", "Complete=CompletionsReached"}) {
		t.Errorf("conditions %q", got)
	}
	if ev := clienttest.Events(ws); !slices.Contains(ev, "Normal Completed: Job completed") {
		t.Errorf("events %q", ev)
	}
	if n := len(h.api.List(pods)); n != 3 {
		t.Errorf("%d Pods, want the 3 that succeeded", n)
	}
}

// TestSIM_1_JobBackoffLimit: failed Pods are replaced until more than
// backoffLimit have failed; a Pod deleted before it finished counts as
// failed; then the Job gets FailureTarget and Failed (BackoffLimitExceeded),
// its running Pods are deleted and a warning event is recorded.
func TestSIM_1_JobBackoffLimit(t *testing.T) {
	h := newHarness(t)
	h.api.Create(jobs, newJob(map[string]any{"parallelism": 2, "completions": 4, "backoffLimit": 1}))
	h.settle()
	run := h.running()
	h.finish(run[0], "Failed")
	h.settle()
	if object.Int(h.status()["failed"]) != 1 || len(h.running()) != 2 {
		t.Fatalf("failed %v, %d running: want 1 and a replacement", h.status()["failed"], len(h.running()))
	}
	// A Pod deleted while it runs keeps its finalizer until the Job counts it.
	gone := h.running()[0]
	h.api.Edit(pods+"/"+object.MetaString(gone, "name"), func(o object.Object) {
		object.Meta(o)["deletionTimestamp"] = object.Timestamp(h.clock.Now())
	})
	ws := h.settle()
	st := h.status()
	if object.Int(st["failed"]) != 2 {
		t.Errorf("failed %v, want 2", st["failed"])
	}
	if got := conditionTypes(st); !slices.Equal(got, []string{"FailureTarget=BackoffLimitExceeded", "Failed=BackoffLimitExceeded"}) {
		t.Errorf("conditions %q", got)
	}
	if len(h.running()) != 0 {
		t.Errorf("%d Pods still running", len(h.running()))
	}
	if ev := clienttest.Events(ws); !slices.Contains(ev, "Warning BackoffLimitExceeded: Job has reached the specified backoff limit") {
		t.Errorf("events %q", ev)
	}
	for _, p := range h.api.List(pods) {
		if f := object.Meta(p)["finalizers"]; f != nil {
			t.Errorf("Pod %s keeps %v", object.MetaString(p, "name"), f)
		}
	}
}

// TestSIM_1_JobSuspend: suspending a Job deletes its running Pods (uncounted,
// their finalizers released) and sets the Suspended condition with an event;
// a suspended Job gets no startTime.
func TestSIM_1_JobSuspend(t *testing.T) {
	h := newHarness(t)
	h.api.Create(jobs, newJob(map[string]any{"parallelism": 2, "suspend": true}))
	h.settle()
	if st := h.status(); st["startTime"] != nil || len(h.api.List(pods)) != 0 || !slices.Equal(conditionTypes(st), []string{"Suspended=JobSuspended"}) {
		t.Fatalf("created suspended: status %v, %d Pods", st, len(h.api.List(pods)))
	}
	h.api.Edit(jobs+"/pi", func(o object.Object) { o["spec"].(map[string]any)["suspend"] = false })
	h.settle()
	if len(h.running()) != 2 {
		t.Fatalf("%d running once resumed, want 2", len(h.running()))
	}
	h.api.Edit(jobs+"/pi", func(o object.Object) { o["spec"].(map[string]any)["suspend"] = true })
	h.settle()
	if n := len(h.api.List(pods)); n != 0 {
		t.Errorf("%d Pods left after suspending, want none", n)
	}
	if object.Int(h.status()["failed"]) != 0 || object.Int(h.status()["active"]) != 0 {
		t.Errorf("status %v, want nothing counted", h.status())
	}
}

// TestSIM_1_JobReleasesOrphans: a Pod holding the tracking finalizer whose
// Job is gone loses it, once the API confirms the Job is gone.
func TestSIM_1_JobReleasesOrphans(t *testing.T) {
	h := newHarness(t)
	h.api.Create(jobs, newJob(map[string]any{"parallelism": 1}))
	h.settle()
	p := h.running()[0]
	h.api.Remove(jobs + "/pi")
	if ws := h.sync("default/pi"); len(ws) != 0 {
		t.Fatalf("sync of the Job gone: %q", clienttest.Changes(ws))
	}
	key := orphanPrefix + "default/" + object.MetaString(p, "name")
	if got := clienttest.Changes(h.sync(key)); !slices.Equal(got, []string{"patch pods default/" + object.MetaString(p, "name")}) {
		t.Errorf("orphan sync: %q", got)
	}
	if f := object.Meta(h.api.MustGet(pods + "/" + object.MetaString(p, "name")))["finalizers"]; f != nil {
		t.Errorf("finalizers %v", f)
	}
}

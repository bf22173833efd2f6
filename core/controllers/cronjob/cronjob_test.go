package cronjob

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"kubeplay/core/client/clienttest"
	"kubeplay/core/clock"
	"kubeplay/core/object"
)

// harness is the CronJob controller on a fake API and a fake clock; the
// test plays the Job controller and syncs keys itself.
type harness struct {
	t     *testing.T
	api   *clienttest.API
	clock *clock.Fake
	cc    *Controller
}

const (
	crons = "/apis/batch/v1/namespaces/default/cronjobs"
	jobs  = "/apis/batch/v1/namespaces/default/jobs"
)

func newHarness(t *testing.T) *harness {
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 30, 0, time.UTC))
	api := clienttest.New(t, clk)
	cc := New(api, clk)
	api.Run(cc.crons, cc.jobs)
	return &harness{t: t, api: api, clock: clk, cc: cc}
}

func (h *harness) sync() []clienttest.Write {
	h.t.Helper()
	ws, err := h.api.Sync(h.cc.sync, "default/hello", h.cc.crons, h.cc.jobs)
	if err != nil {
		h.t.Fatalf("sync: %v", err)
	}
	return ws
}

func newCronJob(policy string, history int) object.Object {
	return object.Object{"apiVersion": "batch/v1", "kind": "CronJob", "metadata": map[string]any{"name": "hello"},
		"spec": map[string]any{"schedule": "*/5 * * * *", "concurrencyPolicy": policy,
			"successfulJobsHistoryLimit": history, "failedJobsHistoryLimit": history,
			"jobTemplate": map[string]any{"metadata": map[string]any{"labels": map[string]any{"cron": "hello"}},
				"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"restartPolicy": "Never",
					"containers": []any{map[string]any{"name": "c", "image": "busybox"}}}}}}}}
}

// finish completes (or fails) the Job called name, as the Job controller would.
func (h *harness) finish(name, condition string) {
	h.api.Edit(jobs+"/"+name, func(o object.Object) {
		o["status"] = map[string]any{"completionTime": object.Timestamp(h.clock.Now()),
			"conditions": []any{map[string]any{"type": condition, "status": "True"}}}
	})
}

func (h *harness) jobNames() []string {
	var out []string
	for _, j := range h.api.List(jobs) {
		out = append(out, object.MetaString(j, "name"))
	}
	return out
}

// TestSIM_1_CronJobRunsOnSchedule: at each time its schedule names a CronJob
// makes a Job of its template, named after it and the minute, owned by it,
// with the scheduled-timestamp annotation; it follows the Job (active,
// lastScheduleTime, lastSuccessfulTime, SawCompletedJob) and keeps
// successfulJobsHistoryLimit finished Jobs; nothing runs between schedules,
// and times missed are skipped to the latest.
func TestSIM_1_CronJobRunsOnSchedule(t *testing.T) {
	h := newHarness(t)
	h.api.Create(crons, newCronJob("Allow", 1))
	if ws := h.sync(); len(clienttest.Changes(ws)) != 0 {
		t.Fatalf("before the first time due: %q", clienttest.Changes(ws))
	}
	h.clock.Set(time.Date(2026, 3, 1, 9, 5, 0, 0, time.UTC))
	ws := h.sync()
	due := time.Date(2026, 3, 1, 9, 5, 0, 0, time.UTC)
	name := "hello-" + itoa(due.Unix()/60)
	if got := clienttest.Changes(ws); !slices.Equal(got, []string{"create jobs default/" + name, "update cronjobs/status default/hello"}) {
		t.Fatalf("at 9:05: %q", got)
	}
	j := ws[0].Object
	if object.StringMap(object.Meta(j), "annotations")[scheduledAnnotation] != "2026-03-01T09:05:00Z" || object.Labels(j)["cron"] != "hello" ||
		object.Objects(object.Meta(j), "ownerReferences")[0]["kind"] != "CronJob" {
		t.Errorf("Job %v", j["metadata"])
	}
	st := h.api.MustGet(crons + "/hello")["status"].(map[string]any)
	if st["lastScheduleTime"] != "2026-03-01T09:05:00Z" || len(object.Objects(st, "active")) != 1 {
		t.Errorf("status %v", st)
	}
	h.clock.Step(time.Minute)
	h.finish(name, "Complete")
	ws = h.sync()
	if ev := clienttest.Events(ws); !slices.Contains(ev, "Normal SawCompletedJob: Saw completed job: "+name+", condition: Complete") {
		t.Errorf("events %q", ev)
	}
	st = h.api.MustGet(crons + "/hello")["status"].(map[string]any)
	if st["active"] != nil || st["lastSuccessfulTime"] != "2026-03-01T09:06:00Z" {
		t.Errorf("status %v", st)
	}
	// 9:20: 9:10 and 9:15 were missed; only 9:20 runs; the history keeps one.
	h.clock.Set(time.Date(2026, 3, 1, 9, 20, 0, 0, time.UTC))
	h.sync()
	h.finish("hello-"+itoa(time.Date(2026, 3, 1, 9, 20, 0, 0, time.UTC).Unix()/60), "Complete")
	ws = h.sync()
	if got := h.jobNames(); len(got) != 1 || got[0] == name {
		t.Errorf("Jobs %q, want the 9:20 one only", got)
	}
	if got := clienttest.Changes(ws); len(got) == 0 || got[0] != "delete jobs default/"+name {
		t.Errorf("writes %q, want the oldest finished Job deleted", got)
	}
}

// TestSIM_1_CronJobConcurrencyPolicy: Forbid skips a time while a Job runs
// (the time still recorded), Replace deletes the running Job for the new
// one; a suspended CronJob starts none.
func TestSIM_1_CronJobConcurrencyPolicy(t *testing.T) {
	for _, tc := range []struct {
		policy string
		want   []string
	}{
		{"Forbid", []string{"hello-29539265"}},
		{"Replace", []string{"hello-29539270"}},
		{"Allow", []string{"hello-29539265", "hello-29539270"}},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			h := newHarness(t)
			h.api.Create(crons, newCronJob(tc.policy, 3))
			h.clock.Set(time.Date(2026, 3, 1, 9, 5, 0, 0, time.UTC))
			h.sync()
			h.clock.Set(time.Date(2026, 3, 1, 9, 10, 0, 0, time.UTC))
			h.sync()
			if got := h.jobNames(); !slices.Equal(got, tc.want) {
				t.Errorf("Jobs %q, want %q", got, tc.want)
			}
			if st := h.api.MustGet(crons + "/hello")["status"].(map[string]any); st["lastScheduleTime"] != "2026-03-01T09:10:00Z" {
				t.Errorf("lastScheduleTime %v", st["lastScheduleTime"])
			}
		})
	}
	h := newHarness(t)
	cj := newCronJob("Allow", 3)
	cj["spec"].(map[string]any)["suspend"] = true
	h.api.Create(crons, cj)
	h.clock.Set(time.Date(2026, 3, 1, 9, 5, 0, 0, time.UTC))
	h.sync()
	if got := h.jobNames(); len(got) != 0 {
		t.Errorf("suspended: Jobs %q", got)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

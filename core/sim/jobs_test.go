package sim_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/sim"
	"kubeplay/core/web"
)

const jobs = "/apis/batch/v1/namespaces/default/jobs"

// jobDoc is a Job named name whose Pods run command on busybox (the pause
// image when command is empty), the e2e framework's NewTestJob.
func jobDoc(name, restartPolicy, spec, command string) string {
	container := `{"name":"c","image":"busybox","command":` + command + `,"volumeMounts":[{"name":"data","mountPath":"/data"}]}`
	if command == "" {
		container = `{"name":"c","image":"registry.k8s.io/pause:3.10"}`
	}
	return `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"` + name + `"},"spec":{` + spec + `"template":{"metadata":{"labels":{"job":"` + name + `"}},` +
		`"spec":{"restartPolicy":"` + restartPolicy + `","volumes":[{"name":"data","hostPath":{"path":"/tmp/job-e2e/` + name + `"}}],"containers":[` + container + `]}}}}`
}

// jobPods are the Pods whose job label is name.
func (e *env) jobPods(name string) []object.Object {
	return e.list(pods + "?labelSelector=job%3D" + name)
}

// TestSIM_1_JobIndexed: an Indexed Job's Pods each get an index (annotation,
// label, hostname NAME-INDEX, JOB_COMPLETION_INDEX); the Job completes once
// every index has succeeded, listing them in completedIndexes.
func TestSIM_1_JobIndexed(t *testing.T) {
	e := newEnv(t, sim.Config{})
	e.create(jobs, jobDoc("ix", "Never", `"parallelism":2,"completions":4,"completionMode":"Indexed",`, `["/bin/sh","-c","exit 0"]`))
	e.until(2*time.Minute, "ix complete", func() bool { return conditionOf(e.get(jobs+"/ix"), "Complete")["status"] == "True" })
	j := e.get(jobs + "/ix")
	if object.Path(j, "status", "completedIndexes") != "0-3" || num(j, "status", "succeeded") != 4 {
		t.Errorf("status %v", j["status"])
	}
	var got []string
	for _, p := range e.jobPods("ix") {
		ix := object.String(object.Path(p, "metadata", "annotations", "batch.kubernetes.io/job-completion-index"))
		if object.Labels(p)["batch.kubernetes.io/job-completion-index"] != ix || object.Path(p, "spec", "hostname") != "ix-"+ix {
			t.Errorf("pod %s: %v %v", object.MetaString(p, "name"), object.Labels(p), object.Path(p, "spec", "hostname"))
		}
		env := object.Objects(object.Objects(p["spec"].(map[string]any), "containers")[0], "env")
		if len(env) != 1 || env[0]["name"] != "JOB_COMPLETION_INDEX" ||
			object.Path(env[0], "valueFrom", "fieldRef", "fieldPath") != "metadata.labels['batch.kubernetes.io/job-completion-index']" {
			t.Errorf("env %v", env)
		}
		got = append(got, ix)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"0", "1", "2", "3"}) {
		t.Errorf("indexes %v", got)
	}
}

// TestSIM_1_JobAdoptsAndReleases: a Job adopts a Pod its selector selects
// that lost its owner, and releases one whose labels it no longer selects
// (and the Pod then loses the tracking finalizer); its Pods of the pause
// image keep running under restartPolicy Never.
func TestSIM_1_JobAdoptsAndReleases(t *testing.T) {
	e := newEnv(t, sim.Config{})
	e.create(jobs, jobDoc("ar", "Never", `"parallelism":2,"completions":4,`, ""))
	e.until(time.Minute, "two running", func() bool {
		ps := e.jobPods("ar")
		return len(ps) == 2 && object.Path(ps[0], "status", "phase") == "Running" && object.Path(ps[1], "status", "phase") == "Running"
	})
	name := object.MetaString(e.jobPods("ar")[0], "name")
	uid := object.MetaString(e.get(jobs+"/ar"), "uid")
	owner := func() string {
		for _, r := range object.Objects(object.Meta(e.get(pods+"/"+name)), "ownerReferences") {
			if r["controller"] == true {
				return object.String(r["uid"])
			}
		}
		return ""
	}
	e.patch(pods+"/"+name, `{"metadata":{"ownerReferences":null}}`)
	e.until(time.Minute, "adopted", func() bool { return owner() == uid })
	if _, err := e.c.Do(e.ctx, web.MethodPatch, pods+"/"+name, "application/merge-patch+json", []byte(`{"metadata":{"labels":null}}`)); err != nil {
		t.Fatal(err)
	}
	e.until(time.Minute, "released", func() bool { return owner() == "" && object.Meta(e.get(pods + "/" + name))["finalizers"] == nil })
	e.until(time.Minute, "replaced", func() bool { return len(e.jobPods("ar")) == 2 })
}

// TestSIM_1_JobPodFailurePolicyIgnoresDisruption: the e2e test's Indexed Job
// whose Pods mark their index in a hostPath file and then sleep; evicted
// (the DisruptionTarget condition), each Pod Fails when its kubelet kills it,
// the Job's pod failure policy ignores the failure, and the replacement of
// each index finds its file and exits 0: the Job completes with nothing
// counted failed.
func TestSIM_1_JobPodFailurePolicyIgnoresDisruption(t *testing.T) {
	e := newEnv(t, sim.Config{Nodes: 1})
	script := `["/bin/sh","-c","\nif [[ -r /data/foo-$JOB_COMPLETION_INDEX ]]\nthen\n\texit 0\nelse\n\ttouch /data/foo-$JOB_COMPLETION_INDEX\n\tsleep 1000000\nfi\n"]`
	e.create(jobs, jobDoc("pfp", "Never", `"parallelism":3,"completions":3,"backoffLimit":2,"completionMode":"Indexed",`+
		`"podFailurePolicy":{"rules":[{"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget","status":"True"}]}]},`, script))
	e.until(time.Minute, "three ready", func() bool { return num(e.get(jobs+"/pfp"), "status", "ready") == 3 })
	for _, p := range e.jobPods("pfp") {
		if code, _ := e.evict(object.MetaString(p, "name")); code != 201 {
			t.Fatalf("evict: %d", code)
		}
	}
	e.until(2*time.Minute, "pfp complete", func() bool { return conditionOf(e.get(jobs+"/pfp"), "Complete")["status"] == "True" })
	if j := e.get(jobs + "/pfp"); num(j, "status", "failed") != 0 || num(j, "status", "succeeded") != 3 {
		t.Errorf("status %v", j["status"])
	}
}

// cronDoc is the e2e test's CronJob: every minute, a Job whose Pod sleeps
// five minutes, with concurrencyPolicy policy.
func cronDoc(name, policy string) string {
	return `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"` + name + `"},"spec":{"schedule":"*/1 * * * ?","concurrencyPolicy":"` + policy + `",` +
		`"jobTemplate":{"spec":{"parallelism":1,"completions":1,"backoffLimit":1,"template":{"spec":{"restartPolicy":"OnFailure",` +
		`"containers":[{"name":"c","image":"busybox","command":["sleep","300"]}]}}}}}}`
}

// liveJobs are the Jobs not being deleted whose name starts with prefix.
func (e *env) liveJobs(prefix string) []string {
	var out []string
	for _, j := range e.list(jobs) {
		if name := object.MetaString(j, "name"); strings.HasPrefix(name, prefix+"-") && object.MetaString(j, "deletionTimestamp") == "" {
			out = append(out, name)
		}
	}
	return out
}

// TestSIM_1_CronJobConcurrency: a CronJob that allows concurrent Jobs has
// two running at its second minute; one that replaces them has one, the
// second minute's, the first deleted.
func TestSIM_1_CronJobConcurrency(t *testing.T) {
	e := newEnv(t, sim.Config{})
	e.create("/apis/batch/v1/namespaces/default/cronjobs", cronDoc("concurrent", "Allow"))
	e.create("/apis/batch/v1/namespaces/default/cronjobs", cronDoc("replace", "Replace"))
	e.until(3*time.Minute, "two concurrent", func() bool {
		return len(object.Objects(e.get("/apis/batch/v1/namespaces/default/cronjobs/concurrent")["status"].(map[string]any), "active")) == 2
	})
	e.until(time.Minute, "replaced", func() bool {
		live := e.liveJobs("replace")
		return len(live) == 1 && live[0] == "replace-"+strconv.FormatInt(start.Add(2*time.Minute).Unix()/60, 10)
	})
	if active := object.Objects(e.get("/apis/batch/v1/namespaces/default/cronjobs/replace")["status"].(map[string]any), "active"); len(active) != 1 {
		t.Errorf("replace's active %v", active)
	}
}

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

func names(objs []object.Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, object.MetaString(o, "name"))
	}
	return out
}

// TestSIM_1_StatefulSetOrderedWithClaims: a StatefulSet's Pods come one at a
// time in ordinal order, each with its claim (bound once the Pod is
// scheduled), its hostname and subdomain; scaling down takes the highest
// ordinal first and leaves the claims.
func TestSIM_1_StatefulSetOrderedWithClaims(t *testing.T) {
	e := newEnv(t, sim.Config{})
	e.create("/apis/apps/v1/namespaces/default/statefulsets", `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db"},"spec":{`+
		`"serviceName":"db","replicas":3,"selector":{"matchLabels":{"app":"db"}},`+
		`"template":{"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"name":"db","image":"postgres"}]}},`+
		`"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]}}`)
	// One at a time: db-1 does not exist until db-0 is Ready.
	e.until(time.Minute, "db-0", func() bool { return len(e.list(pods)) > 0 })
	if got := names(e.list(pods)); !slices.Equal(got, []string{"db-0"}) {
		t.Errorf("first pods: %v", got)
	}
	e.until(time.Minute, "three ready", func() bool {
		return num(e.get("/apis/apps/v1/namespaces/default/statefulsets/db"), "status", "readyReplicas") == 3
	})
	p := e.get(pods + "/db-1")
	if object.Path(p, "spec", "hostname") != "db-1" || object.Path(p, "spec", "subdomain") != "db" ||
		object.Labels(p)["statefulset.kubernetes.io/pod-name"] != "db-1" || object.Labels(p)["apps.kubernetes.io/pod-index"] != "1" ||
		!strings.HasPrefix(object.Labels(p)["controller-revision-hash"], "db-") {
		t.Errorf("db-1: %v %v", p["spec"], object.Labels(p))
	}
	claims := e.list("/api/v1/namespaces/default/persistentvolumeclaims")
	if got := names(claims); !slices.Equal(got, []string{"data-db-0", "data-db-1", "data-db-2"}) {
		t.Fatalf("claims %v", got)
	}
	e.until(time.Minute, "claims bound", func() bool {
		for _, c := range e.list("/api/v1/namespaces/default/persistentvolumeclaims") {
			if object.Path(c, "status", "phase") != "Bound" {
				return false
			}
		}
		return true
	})
	e.patch("/apis/apps/v1/namespaces/default/statefulsets/db", `{"spec":{"replicas":1}}`)
	e.until(time.Minute, "scaled down", func() bool { return len(e.list(pods)) == 1 })
	if got := names(e.list(pods)); !slices.Equal(got, []string{"db-0"}) || len(e.list("/api/v1/namespaces/default/persistentvolumeclaims")) != 3 {
		t.Errorf("after scaling down: %v", got)
	}
}

// TestSIM_1_DaemonSetJobCronJob: a DaemonSet runs a Pod on each worker (not
// on the tainted control plane); a Job runs to completion; a CronJob makes a
// Job at its next minute on the sandbox's clock.
func TestSIM_1_DaemonSetJobCronJob(t *testing.T) {
	e := newEnv(t, sim.Config{})
	e.create("/apis/apps/v1/namespaces/default/daemonsets", `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"agent"},"spec":{`+
		`"selector":{"matchLabels":{"app":"agent"}},"template":{"metadata":{"labels":{"app":"agent"}},"spec":{"containers":[{"name":"a","image":"busybox","command":["sleep","3600"]}]}}}}`)
	e.create("/apis/batch/v1/namespaces/default/jobs", `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"pi"},"spec":{"completions":2,`+
		`"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"pi","image":"perl","command":["perl","-e","print 3.14"]}]}}}}`)
	e.create("/apis/batch/v1/namespaces/default/cronjobs", `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"hello"},"spec":{"schedule":"*/5 * * * *",`+
		`"jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"OnFailure","containers":[{"name":"h","image":"busybox","command":["echo","hi"]}]}}}}}}`)
	e.until(time.Minute, "agents ready", func() bool {
		return num(e.get("/apis/apps/v1/namespaces/default/daemonsets/agent"), "status", "numberReady") == 2
	})
	nodes := map[string]bool{}
	for _, p := range e.list(pods + "?labelSelector=app%3Dagent") {
		nodes[object.String(object.Path(p, "spec", "nodeName"))] = true
	}
	if !nodes["kubeplay-worker"] || !nodes["kubeplay-worker2"] || len(nodes) != 2 {
		t.Errorf("agents on %v", nodes)
	}
	e.until(time.Minute, "pi complete", func() bool {
		c := conditionOf(e.get("/apis/batch/v1/namespaces/default/jobs/pi"), "Complete")
		return c != nil && c["status"] == "True"
	})
	if j := e.get("/apis/batch/v1/namespaces/default/jobs/pi"); num(j, "status", "succeeded") != 2 || object.Path(j, "status", "completionTime") == nil {
		t.Errorf("pi: %v", j["status"])
	}
	// The clock starts at 09:00:00: the CronJob's first time is 09:05.
	e.until(10*time.Minute, "hello's job", func() bool {
		return len(e.list("/apis/batch/v1/namespaces/default/jobs?labelSelector=batch.kubernetes.io%2Fjob-name%21%3Dpi")) == 1
	})
	j := e.list("/apis/batch/v1/namespaces/default/jobs?labelSelector=batch.kubernetes.io%2Fjob-name%21%3Dpi")[0]
	if name := object.MetaString(j, "name"); name != "hello-"+strconv.FormatInt(start.Add(5*time.Minute).Unix()/60, 10) {
		t.Errorf("cron job %s", name)
	}
	if got := object.StringMap(object.Meta(j), "annotations")["batch.kubernetes.io/cronjob-scheduled-timestamp"]; got != "2026-03-01T09:05:00Z" {
		t.Errorf("scheduled %q", got)
	}
}

// TestSIM_1_JobTracksPodsWithFinalizer: a Job's Pods carry kube's tracking
// finalizer while they run; a finished Pod is listed in
// uncountedTerminatedPods, released, then counted, in that order on a watch;
// a Pod deleted while running counts as failed and goes; a deleted Job's
// Pods do not stay behind.
func TestSIM_1_JobTracksPodsWithFinalizer(t *testing.T) {
	e := newEnv(t, sim.Config{})
	const jobs = "/apis/batch/v1/namespaces/default/jobs"
	created := e.create(jobs, `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"nap"},"spec":{`+
		`"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"n","image":"busybox","command":["sleep","20"]}]}}}}`)
	w, err := e.c.Watch(e.ctx, jobs, "fieldSelector=metadata.name%3Dnap&resourceVersion="+object.MetaString(created, "resourceVersion"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var running object.Object
	e.until(time.Minute, "nap's Pod running", func() bool {
		ps := e.list(pods + "?labelSelector=batch.kubernetes.io%2Fjob-name%3Dnap")
		if len(ps) == 1 && object.Path(ps[0], "status", "phase") == "Running" {
			running = ps[0]
		}
		return running != nil
	})
	if fins := object.Strings(object.Meta(running), "finalizers"); len(fins) != 1 || fins[0] != "batch.kubernetes.io/job-tracking" {
		t.Errorf("a running Job Pod's finalizers: %v", fins)
	}
	e.until(time.Minute, "nap complete", func() bool {
		c := conditionOf(e.get(jobs+"/nap"), "Complete")
		return c != nil && c["status"] == "True"
	})
	uid := object.MetaString(running, "uid")
	var steps []string
	for len(steps) == 0 || steps[len(steps)-1] != "counted" {
		ev, err := w.Next()
		if err != nil {
			t.Fatal(err)
		}
		u, _ := object.Path(ev.Object, "status", "uncountedTerminatedPods", "succeeded").([]any)
		switch {
		case len(u) == 1 && u[0] == uid && num(ev.Object, "status", "succeeded") == 0:
			steps = append(steps, "uncounted")
		case len(u) == 0 && num(ev.Object, "status", "succeeded") == 1:
			steps = append(steps, "counted")
		}
	}
	if len(steps) != 2 || steps[0] != "uncounted" {
		t.Errorf("the Job's status went %v, want [uncounted counted]", steps)
	}
	if fins := object.Strings(object.Meta(e.get(pods+"/"+object.MetaString(running, "name"))), "finalizers"); len(fins) != 0 {
		t.Errorf("a counted Pod's finalizers: %v", fins)
	}

	// A Pod deleted while it runs is failed, replaced, and gone.
	e.create(jobs, `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"long"},"spec":{`+
		`"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"l","image":"busybox","command":["sleep","3600"]}]}}}}`)
	longPods := func() []object.Object { return e.list(pods + "?labelSelector=batch.kubernetes.io%2Fjob-name%3Dlong") }
	e.until(time.Minute, "long's Pod running", func() bool {
		ps := longPods()
		return len(ps) == 1 && object.Path(ps[0], "status", "phase") == "Running"
	})
	victim := object.MetaString(longPods()[0], "name")
	if _, err := e.c.Delete(e.ctx, pods+"/"+victim); err != nil {
		t.Fatal(err)
	}
	e.until(time.Minute, "the deleted Pod counted failed, gone and replaced", func() bool {
		ps := longPods()
		return num(e.get(jobs+"/long"), "status", "failed") == 1 && len(ps) == 1 && object.MetaString(ps[0], "name") != victim
	})
	// The Job deleted (in the background): its Pod goes too.
	if _, err := e.c.Do(e.ctx, web.MethodDelete, jobs+"/long", "application/json", []byte(`{"propagationPolicy":"Background"}`)); err != nil {
		t.Fatal(err)
	}
	e.until(time.Minute, "long's Pods gone", func() bool { return len(longPods()) == 0 })
}

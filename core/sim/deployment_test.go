package sim_test

import (
	"strings"
	"testing"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/sim"
)

const deployments = "/apis/apps/v1/namespaces/default/deployments"

func webDeployment(replicas int) string {
	return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":` + mustJSON(replicas) +
		`,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx"}]}}}}`
}

// TestSIM_1_DeploymentRollingUpdate: a Deployment makes a ReplicaSet named
// after its template's hash, which makes Pods that get scheduled and run; a
// new image rolls out within maxSurge and maxUnavailable (never more than
// replicas+surge Pods asked for, old ReplicaSets only ever scaled down), with
// kube's revision annotations and ScalingReplicaSet events; a scale in the
// middle of a paused rollout goes to the current ReplicaSet.
func TestSIM_1_DeploymentRollingUpdate(t *testing.T) {
	e := newEnv(t, sim.Config{})
	e.create(deployments, webDeployment(3))
	e.until(time.Minute, "web rolled out", func() bool { return e.deploymentDone("default", "web") })
	sets := e.list("/apis/apps/v1/namespaces/default/replicasets")
	if len(sets) != 1 {
		t.Fatalf("replica sets: %v", sets)
	}
	first := sets[0]
	hash := object.Labels(first)["pod-template-hash"]
	if object.MetaString(first, "name") != "web-"+hash || object.StringMap(object.Meta(first), "annotations")["deployment.kubernetes.io/revision"] != "1" {
		t.Errorf("first replica set: %v", object.Meta(first))
	}
	pods := e.list("/api/v1/namespaces/default/pods")
	for _, p := range pods {
		if object.Path(p, "status", "phase") != "Running" || object.Path(p, "spec", "nodeName") == nil ||
			!strings.HasPrefix(object.String(object.Path(p, "status", "podIP")), "10.244.") {
			t.Errorf("pod %s: %v", object.MetaString(p, "name"), p["status"])
		}
	}

	// Roll out a new image, watching the ReplicaSets.
	w, err := e.c.Watch(e.ctx, "/apis/apps/v1/namespaces/default/replicasets", "resourceVersion="+object.MetaString(e.get(deployments+"/web"), "resourceVersion"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	e.patch(deployments+"/web", `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}}}`)
	e.until(time.Minute, "web rolled out again", func() bool { return e.deploymentDone("default", "web") })
	d := e.get(deployments + "/web")
	if rev := object.StringMap(object.Meta(d), "annotations")["deployment.kubernetes.io/revision"]; rev != "2" {
		t.Errorf("revision %q", rev)
	}
	sizes := map[string]int64{}
	firstName := object.MetaString(first, "name")
	sizes[firstName] = 3
	for {
		if sizes[firstName] == 0 && len(sizes) == 2 {
			var total int64
			for _, n := range sizes {
				total += n
			}
			if total == 3 {
				break
			}
		}
		ev, err := w.Next()
		if err != nil {
			t.Fatal(err)
		}
		name := object.MetaString(ev.Object, "name")
		n := num(ev.Object, "spec", "replicas")
		if name == firstName && n > sizes[name] {
			t.Errorf("the old replica set scaled up: %d to %d", sizes[name], n)
		}
		sizes[name] = n
		var total int64
		for _, n := range sizes {
			total += n
		}
		if total > 4 { // 3 replicas, maxSurge 25% (rounded up: 1)
			t.Errorf("%d pods asked for: %v", total, sizes)
		}
	}
	want := []string{
		"ScalingReplicaSet Scaled up replica set " + firstName + " from 0 to 3",
	}
	got := e.events("default", "Deployment", "web")
	if len(got) < 7 || got[0] != want[0] || !strings.HasPrefix(got[1], "ScalingReplicaSet Scaled up replica set web-") {
		t.Errorf("events: %q", got)
	}

	// Pause, change the image, scale: the scale goes to the current
	// ReplicaSet alone, the template waits.
	e.patch(deployments+"/web", `{"spec":{"paused":true}}`)
	e.patch(deployments+"/web", `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}`)
	e.patch(deployments+"/web", `{"spec":{"replicas":5}}`)
	e.until(time.Minute, "scaled while paused", func() bool {
		d := e.get(deployments + "/web")
		return num(d, "status", "replicas") == 5 && num(d, "status", "availableReplicas") == 5
	})
	if sets := e.list("/apis/apps/v1/namespaces/default/replicasets"); len(sets) != 2 {
		t.Errorf("a paused deployment rolled out: %d replica sets", len(sets))
	}
	c := conditionOf(e.get(deployments+"/web"), "Progressing")
	if c["reason"] != "DeploymentPaused" || c["status"] != "Unknown" {
		t.Errorf("paused: %v", c)
	}
	e.patch(deployments+"/web", `{"spec":{"paused":false}}`)
	e.until(time.Minute, "resumed and rolled out", func() bool { return e.deploymentDone("default", "web") })
	if sets := e.list("/apis/apps/v1/namespaces/default/replicasets"); len(sets) != 3 {
		t.Errorf("replica sets after resuming: %d", len(sets))
	}
	// Without an undo, a replica set scaled down is never scaled up again.
	down := map[string]bool{}
	for _, ev := range e.events("default", "Deployment", "web") {
		f := strings.Fields(ev)
		if len(f) < 6 || f[0] != "ScalingReplicaSet" {
			continue
		}
		name := f[5]
		switch f[2] {
		case "down":
			down[name] = true
		case "up":
			if down[name] {
				t.Errorf("%s scaled up after it was scaled down: %q", name, e.events("default", "Deployment", "web"))
			}
		}
	}
}

func conditionOf(obj object.Object, typ string) map[string]any {
	for _, c := range object.Objects(obj["status"].(map[string]any), "conditions") {
		if c["type"] == typ {
			return c
		}
	}
	return nil
}

package registry_test

import (
	"encoding/base64"
	"fmt"
	"testing"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/registry"
)

// TestK8S_WRITE_1_StatusResetOnCreate: whatever status a new object is sent
// with, it starts with its kind's: a Pod Pending with its QoS class, a
// workload its first counts, a quota none, a volume Pending since now, a
// Service an empty load balancer, a namespace Active (held by the kubernetes
// finalizer, labelled with its name).
func TestK8S_WRITE_1_StatusResetOnCreate(t *testing.T) {
	e := newEnv(t, 0)
	bogus := map[string]any{"phase": "Running", "replicas": 7, "used": map[string]any{"pods": "9"}}
	withStatus := func(obj object.Object) object.Object {
		obj["status"] = bogus
		return obj
	}
	template := map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "w"}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}
	selector := map[string]any{"matchLabels": map[string]any{"app": "w"}}
	for _, tc := range []struct {
		resource string
		ns       string
		obj      object.Object
		want     string
	}{
		{"v1/pods", "team", pod("best-effort", nil), `{"phase":"Pending","qosClass":"BestEffort"}`},
		{"v1/pods", "team", pod("burstable", map[string]any{"requests": map[string]any{"cpu": "1"}}), `{"phase":"Pending","qosClass":"Burstable"}`},
		{"v1/pods", "team", pod("guaranteed", map[string]any{"requests": map[string]any{"cpu": "1", "memory": "1Gi"}, "limits": map[string]any{"cpu": "1", "memory": "1Gi"}}),
			`{"phase":"Pending","qosClass":"Guaranteed"}`},
		{"apps/v1/replicasets", "team", object.Object{"metadata": map[string]any{"name": "w"}, "spec": map[string]any{"selector": selector, "template": template}}, `{"replicas":0}`},
		{"apps/v1/deployments", "team", object.Object{"metadata": map[string]any{"name": "w"}, "spec": map[string]any{"selector": selector, "template": template}}, `{}`},
		{"apps/v1/daemonsets", "team", object.Object{"metadata": map[string]any{"name": "w"}, "spec": map[string]any{"selector": selector, "template": template}},
			`{"currentNumberScheduled":0,"desiredNumberScheduled":0,"numberMisscheduled":0,"numberReady":0}`},
		{"v1/resourcequotas", "team", object.Object{"metadata": map[string]any{"name": "q"}, "spec": map[string]any{"hard": map[string]any{"pods": "1"}}}, `{}`},
		{"v1/persistentvolumes", "", object.Object{"metadata": map[string]any{"name": "pv"}, "spec": map[string]any{"capacity": map[string]any{"storage": "1Gi"},
			"accessModes": []any{"ReadWriteOnce"}, "hostPath": map[string]any{"path": "/d"}}}, `{"lastPhaseTransitionTime":"2026-11-23T12:00:00Z","phase":"Pending"}`},
		{"v1/services", "team", object.Object{"metadata": map[string]any{"name": "s"}, "spec": map[string]any{"ports": []any{map[string]any{"port": 80}}}}, `{"loadBalancer":{}}`},
		{"v1/namespaces", "", object.Object{"metadata": map[string]any{"name": "fresh"}}, `{"phase":"Active"}`},
	} {
		got := e.mustCreate(tc.resource, tc.ns, withStatus(tc.obj))
		if s := mustJSON(got["status"]); s != tc.want {
			t.Errorf("%s %s: status %s, want %s", tc.resource, object.MetaString(got, "name"), s, tc.want)
		}
	}
	ns := e.get("v1/namespaces", "", "fresh")
	if mustJSON(object.Path(ns, "spec", "finalizers")) != `["kubernetes"]` || object.Labels(ns)["kubernetes.io/metadata.name"] != "fresh" {
		t.Errorf("namespace %v", ns)
	}
}

func mustJSON(v any) string {
	b, err := object.Encode(object.Object{"v": v})
	if err != nil {
		return err.Error()
	}
	return string(b[len(`{"v":`) : len(b)-1])
}

// TestK8S_WRITE_1_SubresourcesChangeOnlyTheirPart: the status subresource
// changes only status (a Deployment's annotations too, without a new
// generation), the object itself never its status; a quota's status write
// keeps its spec; a namespace's spec.finalizers change only through
// finalize; a volume's status notes when its phase changed.
func TestK8S_WRITE_1_SubresourcesChangeOnlyTheirPart(t *testing.T) {
	e := newEnv(t, 0)
	e.mustCreate("v1/pods", "team", pod("p", nil))
	got, err := e.update("v1/pods", "team", "p", "", func(o object.Object) {
		o["status"] = map[string]any{"phase": "Running"}
		object.Meta(o)["labels"] = map[string]any{"a": "b"}
	})
	if err != nil || object.Path(got, "status", "phase") != "Pending" || object.Labels(got)["a"] != "b" {
		t.Errorf("Pod write with a status: %v, %v", err, got)
	}
	got, err = e.update("v1/pods", "team", "p", "status", func(o object.Object) {
		o["status"] = map[string]any{"phase": "Running"}
		object.Path(o, "spec", "containers").([]any)[0].(map[string]any)["image"] = "httpd"
	})
	if err != nil || object.Path(got, "status", "phase") != "Running" || object.Path(got, "spec", "containers").([]any)[0].(map[string]any)["image"] != "nginx" {
		t.Errorf("Pod status write: %v, %v", err, got)
	}

	template := map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "w"}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}
	e.mustCreate("apps/v1/deployments", "team", object.Object{"metadata": map[string]any{"name": "d"},
		"spec": map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "w"}}, "template": template}})
	got, err = e.update("apps/v1/deployments", "team", "d", "status", func(o object.Object) {
		o["status"] = map[string]any{"replicas": 1}
		object.Meta(o)["annotations"] = map[string]any{"deployment.kubernetes.io/revision": "1"}
	})
	if err != nil || object.StringMap(object.Meta(got), "annotations")["deployment.kubernetes.io/revision"] != "1" || object.Int(object.Meta(got)["generation"]) != 1 {
		t.Errorf("Deployment status write: %v, %v", err, object.Meta(got))
	}
	got, _ = e.update("apps/v1/deployments", "team", "d", "", func(o object.Object) {
		object.Meta(o)["annotations"] = map[string]any{"note": "x"}
	})
	if object.Int(object.Meta(got)["generation"]) != 2 {
		t.Errorf("a Deployment's annotations changed: generation %v, want 2 (kube copies them to its ReplicaSets)", object.Meta(got)["generation"])
	}

	e.mustCreate("v1/resourcequotas", "team", object.Object{"metadata": map[string]any{"name": "q"}, "spec": map[string]any{"hard": map[string]any{"pods": "1"}}})
	got, err = e.update("v1/resourcequotas", "team", "q", "status", func(o object.Object) {
		o["spec"] = map[string]any{"hard": map[string]any{"pods": "9"}}
		o["status"] = map[string]any{"hard": map[string]any{"pods": "1"}, "used": map[string]any{"pods": "0"}}
	})
	if err != nil || object.Path(got, "spec", "hard", "pods") != "1" || object.Path(got, "status", "used", "pods") != "0" {
		t.Errorf("quota status write: %v, %v", err, got)
	}

	got, _ = e.update("v1/namespaces", "", "team", "", func(o object.Object) { o["spec"] = map[string]any{} })
	if mustJSON(object.Path(got, "spec", "finalizers")) != `["kubernetes"]` {
		t.Errorf("namespace write dropped its finalizers: %v", got["spec"])
	}

	e.mustCreate("v1/persistentvolumes", "", object.Object{"metadata": map[string]any{"name": "pv"}, "spec": map[string]any{"capacity": map[string]any{"storage": "1Gi"},
		"accessModes": []any{"ReadWriteOnce"}, "hostPath": map[string]any{"path": "/d"}}})
	e.clk.Step(time.Minute)
	got, _ = e.update("v1/persistentvolumes", "", "pv", "status", func(o object.Object) { object.Child(o, "status")["phase"] = "Available" })
	if object.Path(got, "status", "lastPhaseTransitionTime") != "2026-11-23T12:01:00Z" {
		t.Errorf("phase changed: %v", got["status"])
	}
	e.clk.Step(time.Minute)
	got, _ = e.update("v1/persistentvolumes", "", "pv", "status", func(o object.Object) {
		delete(object.Child(o, "status"), "lastPhaseTransitionTime")
		object.Child(o, "status")["message"] = "m"
	})
	if object.Path(got, "status", "lastPhaseTransitionTime") != "2026-11-23T12:01:00Z" {
		t.Errorf("phase unchanged, time dropped: %v, want the old time kept", got["status"])
	}
}

// TestK8S_WRITE_1_Conversions: what kube's conversion does on the way in: a
// Secret's stringData written into data (base64), a Pod's serviceAccount
// mirroring serviceAccountName, a negative grace period made 1, a workload's
// template converted as a Pod's spec.
func TestK8S_WRITE_1_Conversions(t *testing.T) {
	e := newEnv(t, 0)
	s := e.mustCreate("v1/secrets", "team", object.Object{"metadata": map[string]any{"name": "s"},
		"data": map[string]any{"a": base64.StdEncoding.EncodeToString([]byte("old"))}, "stringData": map[string]any{"a": "new", "b": "two"}})
	if s["stringData"] != nil || object.Path(s, "data", "a") != base64.StdEncoding.EncodeToString([]byte("new")) || object.Path(s, "data", "b") != "dHdv" {
		t.Errorf("secret %v", s)
	}
	e.mustCreate("v1/serviceaccounts", "team", object.Object{"metadata": map[string]any{"name": "robot"}})
	p := pod("p", nil)
	p["spec"].(map[string]any)["serviceAccount"] = "robot"
	p["spec"].(map[string]any)["terminationGracePeriodSeconds"] = -5
	got := e.mustCreate("v1/pods", "team", p)
	spec := got["spec"].(map[string]any)
	if spec["serviceAccountName"] != "robot" || spec["serviceAccount"] != "robot" || fmt.Sprint(spec["terminationGracePeriodSeconds"]) != "1" {
		t.Errorf("Pod spec %v", spec)
	}
	d := e.mustCreate("apps/v1/deployments", "team", object.Object{"metadata": map[string]any{"name": "d"},
		"spec": map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "w"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "w"}},
				"spec": map[string]any{"serviceAccount": "robot", "containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}}})
	if object.Path(d, "spec", "template", "spec", "serviceAccountName") != "robot" {
		t.Errorf("template spec %v", object.Path(d, "spec", "template", "spec"))
	}
}

// TestK8S_DEL_1_PodGracePeriod: a scheduled Pod is deleted after its grace
// period (marked, kept); one never scheduled goes at once.
func TestK8S_DEL_1_PodGracePeriod(t *testing.T) {
	e := newEnv(t, 0)
	e.mustCreate("v1/pods", "team", pod("unscheduled", nil))
	r, err := e.s.Delete(e.target("v1/pods", "team", "unscheduled"), registry.DeleteOptions{})
	if err != nil || !r.Gone {
		t.Errorf("unscheduled Pod: gone %v, %v", r.Gone, err)
	}
	scheduled := pod("scheduled", nil)
	scheduled["spec"].(map[string]any)["nodeName"] = "n1"
	e.mustCreate("v1/pods", "team", scheduled)
	r, err = e.s.Delete(e.target("v1/pods", "team", "scheduled"), registry.DeleteOptions{})
	if err != nil || r.Gone {
		t.Fatalf("scheduled Pod: gone %v, %v", r.Gone, err)
	}
	got := e.get("v1/pods", "team", "scheduled")
	if object.Int(object.Meta(got)["deletionGracePeriodSeconds"]) != 30 || object.MetaString(got, "deletionTimestamp") != "2026-11-23T12:00:30Z" {
		t.Errorf("marked %v", object.Meta(got))
	}
}

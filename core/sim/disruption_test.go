package sim_test

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/sim"
	"kubeplay/core/web"
)

const pdbs = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"

// evict evicts the Pod and answers the code and the Status's first cause's
// reason (kube's DisruptionBudget when a budget refuses).
func (e *env) evict(name string) (int, string) {
	e.t.Helper()
	body := `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"` + name + `","namespace":"default"}}`
	r, err := e.c.Stream(e.ctx, web.MethodPost, pods+"/"+name+"/eviction", "application/json", []byte(body))
	if err != nil {
		e.t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	var st struct {
		Details struct {
			Causes []struct{ Reason string }
		}
	}
	_ = json.Unmarshal(b, &st)
	if len(st.Details.Causes) > 0 {
		return r.Code, st.Details.Causes[0].Reason
	}
	return r.Code, ""
}

// readyPod is the name of a ready Pod not being deleted, or "".
func (e *env) readyPod() string {
	for _, p := range e.list(pods) {
		if object.Meta(p)["deletionTimestamp"] != nil {
			continue
		}
		for _, c := range object.Objects(object.Child(p, "status"), "conditions") {
			if c["type"] == "Ready" && c["status"] == "True" {
				return object.MetaString(p, "name")
			}
		}
	}
	return ""
}

// budget reads the budget's status as "current/desired allowed".
func (e *env) budget(name string) string {
	b := e.get(pdbs + "/" + name)
	if num(b, "status", "observedGeneration") < num(b, "metadata", "generation") {
		return "unobserved"
	}
	return strings.Join([]string{itoa(num(b, "status", "currentHealthy")) + "/" + itoa(num(b, "status", "desiredHealthy")),
		itoa(num(b, "status", "disruptionsAllowed"))}, " ")
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestSIM_1_DisruptionBudgetBlocksEviction is upstream's conformance test
// "should block an eviction until the PDB is updated to allow it" in the
// simulated cluster: a budget that needs all three Pods of a ReplicaSet
// refuses their eviction (kube's 429 with the DisruptionBudget cause); once
// it needs two, the disruption controller allows one, an eviction uses it
// and the ReplicaSet replaces the Pod; maxUnavailable 0 refuses again, and
// without the budget the eviction goes.
func TestSIM_1_DisruptionBudgetBlocksEviction(t *testing.T) {
	e := newEnv(t, sim.Config{})
	e.create(pdbs, `{"metadata":{"name":"foo"},"spec":{"minAvailable":3,"selector":{"matchLabels":{"foo":"bar"}}}}`)
	e.until(time.Minute, "pdb observed", func() bool { return e.budget("foo") == "0/3 0" })
	e.create("/apis/apps/v1/namespaces/default/replicasets", `{"metadata":{"name":"rs"},"spec":{"replicas":3,"selector":{"matchLabels":{"foo":"bar"}},`+
		`"template":{"metadata":{"labels":{"foo":"bar"}},"spec":{"containers":[{"name":"donothing","image":"registry.k8s.io/pause:3.10"}]}}}}`)
	e.until(2*time.Minute, "three healthy", func() bool { return e.budget("foo") == "3/3 0" })
	name := e.readyPod()
	if code, cause := e.evict(name); code != 429 || cause != "DisruptionBudget" {
		t.Fatalf("eviction within a full budget: %d %q", code, cause)
	}
	cond := object.Objects(object.Child(e.get(pdbs+"/foo"), "status"), "conditions")
	if len(cond) != 1 || cond[0]["reason"] != "InsufficientPods" || cond[0]["status"] != "False" {
		t.Errorf("conditions %v", cond)
	}

	e.patch(pdbs+"/foo", `{"spec":{"minAvailable":2}}`)
	e.until(time.Minute, "one allowed", func() bool { return e.budget("foo") == "3/2 1" })
	if code, _ := e.evict(name); code != 201 {
		t.Fatalf("eviction the budget allows: %d", code)
	}
	// The eviction records the Pod among the disrupted; the controller drops
	// it again once it sees the Pod terminating, as kube's does, and may
	// have done so already.
	if b := e.get(pdbs + "/foo"); object.Path(b, "status", "disruptedPods", name) == nil {
		p, err := e.c.Get(e.ctx, pods+"/"+name)
		if err == nil && object.MetaString(p, "deletionTimestamp") == "" || num(b, "status", "disruptionsAllowed") != 0 {
			t.Errorf("evicted pod neither among the disrupted nor terminating: %v", b["status"])
		}
	}
	e.until(2*time.Minute, "replaced", func() bool {
		_, err := e.c.Get(e.ctx, pods+"/"+name)
		return err != nil && e.budget("foo") == "3/2 1" && len(e.list(pods)) == 3
	})
	if b := e.get(pdbs + "/foo"); object.Path(b, "status", "disruptedPods") != nil {
		t.Errorf("a deleted pod still disrupted: %v", b["status"])
	}

	e.patch(pdbs+"/foo", `{"spec":{"minAvailable":null,"maxUnavailable":0}}`)
	e.until(time.Minute, "none allowed", func() bool { return e.budget("foo") == "3/3 0" })
	name = e.readyPod()
	if code, cause := e.evict(name); code != 429 || cause != "DisruptionBudget" {
		t.Fatalf("eviction with maxUnavailable 0: %d %q", code, cause)
	}
	if _, err := e.c.Delete(e.ctx, pdbs+"/foo"); err != nil {
		t.Fatal(err)
	}
	if code, _ := e.evict(name); code != 201 {
		t.Errorf("eviction without a budget: %d", code)
	}
}

// TestSIM_1_DisruptionBudgetUnmanagedAndUncountable: Pods without a
// controller are counted by a minAvailable count without error (upstream's
// "status is not updated for unmanaged pods"); a percentage over a
// DaemonSet's Pods cannot be counted (a DaemonSet has no scale), which the
// budget says in its SyncFailed condition, as kube's does. Then the
// controller rests.
func TestSIM_1_DisruptionBudgetUnmanagedAndUncountable(t *testing.T) {
	e := newEnv(t, sim.Config{})
	e.create(pdbs, `{"metadata":{"name":"foo"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"foo":"bar"}}}}`)
	for _, name := range []string{"pod-0", "pod-1", "pod-2"} {
		e.create(pods, `{"metadata":{"name":"`+name+`","labels":{"foo":"bar"}},"spec":{"containers":[{"name":"donothing","image":"registry.k8s.io/pause:3.10"}]}}`)
	}
	e.until(2*time.Minute, "two allowed", func() bool { return e.budget("foo") == "3/1 2" })
	if c := object.Objects(object.Child(e.get(pdbs+"/foo"), "status"), "conditions"); len(c) != 1 || c[0]["reason"] != "SufficientPods" {
		t.Errorf("conditions %v", c)
	}

	e.create("/apis/apps/v1/namespaces/default/daemonsets", `{"metadata":{"name":"ds"},"spec":{"selector":{"matchLabels":{"app":"ds"}},`+
		`"template":{"metadata":{"labels":{"app":"ds"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`)
	e.create(pdbs, `{"metadata":{"name":"ds"},"spec":{"maxUnavailable":"50%","selector":{"matchLabels":{"app":"ds"}}}}`)
	e.until(2*time.Minute, "sync failed", func() bool {
		c := object.Objects(object.Child(e.get(pdbs+"/ds"), "status"), "conditions")
		return len(c) == 1 && c[0]["reason"] == "SyncFailed" && c[0]["message"] == "daemonsets.apps does not implement the scale subresource"
	})
	// The DaemonSet's Pods come up on every node first (under load its
	// controller may still be making them when the budget's sync fails).
	e.until(2*time.Minute, "the DaemonSet ready", func() bool {
		st := object.Child(e.get("/apis/apps/v1/namespaces/default/daemonsets/ds"), "status")
		return object.Int(st["desiredNumberScheduled"]) > 0 && object.Int(st["numberReady"]) == object.Int(st["desiredNumberScheduled"])
	})
	e.idle("the disruption controller")
}

// TestSIM_1_DisruptionBudgetCustomScale: Pods controlled by a custom
// resource with a scale subresource are counted by its scale's replicas, as
// kube's controller finds them (discovery, then the scale).
func TestSIM_1_DisruptionBudgetCustomScale(t *testing.T) {
	e := newEnv(t, sim.Config{})
	e.create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", `{"metadata":{"name":"gizmos.example.com"},"spec":{"group":"example.com","scope":"Namespaced",`+
		`"names":{"plural":"gizmos","singular":"gizmo","kind":"Gizmo"},"versions":[{"name":"v1","served":true,"storage":true,`+
		`"subresources":{"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas"}},`+
		`"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`)
	var gizmo object.Object
	e.until(time.Minute, "gizmos served", func() bool {
		obj, _ := object.Decode([]byte(`{"apiVersion":"example.com/v1","kind":"Gizmo","metadata":{"name":"g"},"spec":{"replicas":4}}`))
		var err error
		gizmo, err = e.c.Create(e.ctx, "/apis/example.com/v1/namespaces/default/gizmos", obj)
		return err == nil
	})
	for _, name := range []string{"g-1", "g-2", "g-3"} {
		e.create(pods, `{"metadata":{"name":"`+name+`","labels":{"app":"g"},"ownerReferences":[{"apiVersion":"example.com/v1","kind":"Gizmo","name":"g",`+
			`"uid":"`+object.MetaString(gizmo, "uid")+`","controller":true}]},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`)
	}
	e.create(pdbs, `{"metadata":{"name":"g"},"spec":{"minAvailable":"50%","selector":{"matchLabels":{"app":"g"}}}}`)
	e.until(2*time.Minute, "counted by the gizmo's scale", func() bool {
		b := e.get(pdbs + "/g")
		return e.budget("g") == "3/2 1" && num(b, "status", "expectedPods") == 4
	})
}

package sim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/sim"
)

// controllerOf is the kind and name of an object's controller reference, or "".
func controllerOf(obj object.Object) string {
	for _, ref := range object.Objects(object.Meta(obj), "ownerReferences") {
		if ref["controller"] == true {
			return object.String(ref["kind"]) + "/" + object.String(ref["name"])
		}
	}
	return ""
}

// TestSIM_1_ClaimsPods: a ReplicationController and a ReplicaSet adopt the
// orphan Pod their selector matches rather than create one, release a Pod
// whose labels no longer match (and create another in its place), and
// report their replicas as kube's controllers do.
func TestSIM_1_ClaimsPods(t *testing.T) {
	e := newEnv(t, sim.Config{})
	for _, k := range []struct{ kind, path, selector string }{
		{"ReplicationController", "/api/v1/namespaces/default/replicationcontrollers", `{"name":"%s"}`},
		{"ReplicaSet", "/apis/apps/v1/namespaces/default/replicasets", `{"matchLabels":{"name":"%s"}}`},
	} {
		name := map[string]string{"ReplicationController": "rc-adopt", "ReplicaSet": "rs-adopt"}[k.kind]
		selector := fmt.Sprintf(k.selector, name)
		e.create(pods, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"`+name+`","labels":{"name":"`+name+`"}},`+
			`"spec":{"containers":[{"name":"c","image":"httpd"}]}}`)
		apiVersion := map[string]string{"ReplicationController": "v1", "ReplicaSet": "apps/v1"}[k.kind]
		e.create(k.path, `{"apiVersion":"`+apiVersion+`","kind":"`+k.kind+`","metadata":{"name":"`+name+`"},"spec":{"replicas":1,`+
			`"selector":`+selector+`,"template":{"metadata":{"labels":{"name":"`+name+`"}},"spec":{"containers":[{"name":"c","image":"httpd"}]}}}}`)
		e.until(time.Minute, name+" adopted", func() bool { return controllerOf(e.get(pods+"/"+name)) == k.kind+"/"+name })
		e.until(time.Minute, name+" ready", func() bool { return num(e.get(k.path+"/"+name), "status", "readyReplicas") == 1 })
		if got := e.list(pods + "?labelSelector=name%3D" + name); len(got) != 1 {
			t.Errorf("%s: %d Pods, want the adopted one", k.kind, len(got))
		}
		e.patch(pods+"/"+name, `{"metadata":{"labels":{"name":"released"}}}`)
		e.until(time.Minute, name+" released", func() bool { return controllerOf(e.get(pods+"/"+name)) == "" })
		e.until(time.Minute, name+" replaced", func() bool {
			ps := e.list(pods + "?labelSelector=name%3D" + name)
			return len(ps) == 1 && controllerOf(ps[0]) == k.kind+"/"+name
		})
		e.until(time.Minute, name+" ready again", func() bool { return num(e.get(k.path+"/"+name), "status", "readyReplicas") == 1 })
		st := object.Child(e.get(k.path+"/"+name), "status")
		if num(st, "replicas") != 1 || num(st, "fullyLabeledReplicas") != 1 || num(st, "availableReplicas") != 1 || num(st, "observedGeneration") != 1 {
			t.Errorf("%s status %v", k.kind, st)
		}
	}
}

// TestSIM_1_ReplicationControllerQuotaFailure: a ReplicationController whose
// Pods a quota refuses has a ReplicaFailure condition (FailedCreate, the
// quota's message) until it asks for no more than the quota allows.
func TestSIM_1_ReplicationControllerQuotaFailure(t *testing.T) {
	e := newEnv(t, sim.Config{})
	const rcs = "/api/v1/namespaces/default/replicationcontrollers"
	e.create("/api/v1/namespaces/default/resourcequotas", `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"condition-test"},"spec":{"hard":{"pods":"2"}}}`)
	e.until(time.Minute, "quota counted", func() bool {
		return object.Path(e.get("/api/v1/namespaces/default/resourcequotas/condition-test"), "status", "hard") != nil
	})
	e.create(rcs, `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"condition-test"},"spec":{"replicas":3,`+
		`"selector":{"name":"condition-test"},"template":{"metadata":{"labels":{"name":"condition-test"}},"spec":{"containers":[{"name":"c","image":"httpd"}]}}}}`)
	var failure map[string]any
	e.until(time.Minute, "ReplicaFailure", func() bool {
		failure = conditionOf(e.get(rcs+"/condition-test"), "ReplicaFailure")
		return failure != nil
	})
	msg := object.String(failure["message"])
	if failure["status"] != "True" || failure["reason"] != "FailedCreate" || !strings.HasPrefix(msg, `pods "condition-test-`) ||
		!strings.HasSuffix(msg, `" is forbidden: exceeded quota: condition-test, requested: pods=1, used: pods=2, limited: pods=2`) {
		t.Errorf("ReplicaFailure %v", failure)
	}
	e.patch(rcs+"/condition-test", `{"spec":{"replicas":2}}`)
	e.until(time.Minute, "ReplicaFailure gone", func() bool { return conditionOf(e.get(rcs+"/condition-test"), "ReplicaFailure") == nil })
}

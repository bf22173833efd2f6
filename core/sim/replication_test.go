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
		// The orphan runs before its controller exists, so the controller's
		// first look sees it (else it may create a Pod first, then delete
		// the surplus, the orphan among the candidates: kube's race too).
		e.until(time.Minute, name+" running", func() bool { return object.Path(e.get(pods+"/"+name), "status", "phase") == "Running" })
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
		// The status converges on the replacement (a sync that ran on the
		// informer's view before it saw the replacement may write an older
		// count first, as kube's controller may).
		e.until(time.Minute, name+" status settled", func() bool {
			st := object.Child(e.get(k.path+"/"+name), "status")
			return num(st, "readyReplicas") == 1 && num(st, "replicas") == 1 && num(st, "fullyLabeledReplicas") == 1 &&
				num(st, "availableReplicas") == 1 && num(st, "observedGeneration") == 1
		})
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

// TestSIM_1_DeploymentAdoptsReplicaSet: a Deployment adopts the orphan
// ReplicaSet its selector matches, takes the revision after the adopted
// one's, and rolls its Pods over to its own template, the adopted
// ReplicaSet kept as its one old ReplicaSet, scaled to zero.
func TestSIM_1_DeploymentAdoptsReplicaSet(t *testing.T) {
	e := newEnv(t, sim.Config{})
	const sets = "/apis/apps/v1/namespaces/default/replicasets"
	e.create(sets, `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"legacy","labels":{"name":"sample","pod":"httpd"},`+
		`"annotations":{"deployment.kubernetes.io/revision":"3546343826724305832"}},"spec":{"replicas":1,"selector":{"matchLabels":{"name":"sample","pod":"httpd"}},`+
		`"template":{"metadata":{"labels":{"name":"sample","pod":"httpd"}},"spec":{"containers":[{"name":"httpd","image":"httpd"}]}}}}`)
	e.until(time.Minute, "legacy ready", func() bool { return num(e.get(sets+"/legacy"), "status", "readyReplicas") == 1 })
	e.create(deployments, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"sample"},"spec":{"replicas":1,`+
		`"selector":{"matchLabels":{"name":"sample"}},"template":{"metadata":{"labels":{"name":"sample"}},"spec":{"containers":[{"name":"agnhost","image":"agnhost"}]}}}}`)
	e.until(time.Minute, "sample rolled out", func() bool { return e.deploymentDone("default", "sample") })
	d := e.get(deployments + "/sample")
	if got := object.StringMap(object.Meta(d), "annotations")["deployment.kubernetes.io/revision"]; got != "3546343826724305833" {
		t.Errorf("the Deployment's revision %q", got)
	}
	legacy := e.get(sets + "/legacy")
	if controllerOf(legacy) != "Deployment/sample" || num(legacy, "spec", "replicas") != 0 {
		t.Errorf("legacy: controller %q, %v replicas", controllerOf(legacy), object.Path(legacy, "spec", "replicas"))
	}
	if all := e.list(sets); len(all) != 2 {
		t.Errorf("%d ReplicaSets, want the adopted one and the new one", len(all))
	}
}

// TestSIM_1_DeploymentProportionalScaling: a Deployment stuck mid-rollout
// (its new image never pulls) keeps replicas-maxUnavailable available in
// the old ReplicaSet and replicas+maxSurge in all; scaled from 10 to 30, it
// spreads the 20 new replicas over both ReplicaSets in proportion (8 of 13:
// 12 to the old, 8 to the new), as upstream's conformance test expects.
func TestSIM_1_DeploymentProportionalScaling(t *testing.T) {
	e := newEnv(t, sim.Config{})
	const sets = "/apis/apps/v1/namespaces/default/replicasets"
	e.create(deployments, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":10,`+
		`"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":3,"maxUnavailable":2}},`+
		`"selector":{"matchLabels":{"name":"httpd"}},"template":{"metadata":{"labels":{"name":"httpd"}},"spec":{"containers":[{"name":"httpd","image":"httpd"}]}}}}`)
	e.until(2*time.Minute, "web rolled out", func() bool { return e.deploymentDone("default", "web") })
	first := object.MetaString(e.list(sets)[0], "name")
	e.patch(deployments+"/web", `{"spec":{"template":{"spec":{"containers":[{"name":"httpd","image":"webserver:404"}]}}}}`)
	var second string
	e.until(2*time.Minute, "stuck at 8 old and 5 new", func() bool {
		for _, rs := range e.list(sets) {
			if name := object.MetaString(rs, "name"); name != first {
				second = name
			}
		}
		old := e.get(sets + "/" + first)
		return second != "" && num(old, "spec", "replicas") == 8 && num(old, "status", "availableReplicas") == 8 &&
			num(e.get(sets+"/"+second), "spec", "replicas") == 5
	})
	e.patch(deployments+"/web", `{"spec":{"replicas":30}}`)
	e.until(time.Minute, "scaled to 20 and 13", func() bool {
		return num(e.get(sets+"/"+first), "spec", "replicas") == 20 && num(e.get(sets+"/"+second), "spec", "replicas") == 13
	})
}

package sim_test

import (
	"strings"
	"testing"
	"time"

	"kubeplay/core/budget"
	"kubeplay/core/sandbox"
	"kubeplay/core/sim"
)

// TestROB_2_PodBudgetHoldsADeployment: a Deployment of 100,000 replicas in a
// sandbox whose budget is 30 Pods gets 30 of them; the ReplicaSet's creates
// past that are refused with the budget's exceeded-quota answer, which its
// FailedCreate events and its and the Deployment's ReplicaFailure
// conditions report, as kube's controllers report a quota; the rest of the
// sandbox keeps serving, and the controller backs off rather than spinning.
func TestROB_2_PodBudgetHoldsADeployment(t *testing.T) {
	e := newEnvWith(t, sandbox.Config{Budget: budget.Limits{Pods: 30}}, sim.Config{Speed: 100})
	e.create(deployments, `{"metadata":{"name":"flood"},"spec":{"replicas":100000,"selector":{"matchLabels":{"app":"flood"}},
		"template":{"metadata":{"labels":{"app":"flood"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`)
	e.until(10*time.Minute, "30 Pods and the failure reported", func() bool {
		return len(e.list("/api/v1/namespaces/default/pods")) == 30 && conditionOf(e.get(deployments+"/flood"), "ReplicaFailure") != nil
	})
	d := e.get(deployments + "/flood")
	c := conditionOf(d, "ReplicaFailure")
	msg, _ := c["message"].(string)
	if c["reason"] != "FailedCreate" || c["status"] != "True" || !strings.Contains(msg, `is forbidden: exceeded quota: kubeplay-sandbox, requested: pods=1, used: pods=30, limited: pods=30`) {
		t.Errorf("Deployment's ReplicaFailure: %v", c)
	}
	rs := e.list("/apis/apps/v1/namespaces/default/replicasets")[0]
	failed := 0
	for _, ev := range e.events("default", "ReplicaSet", rs["metadata"].(map[string]any)["name"].(string)) {
		if strings.HasPrefix(ev, "FailedCreate Error creating: pods \"flood-") && strings.Contains(ev, "exceeded quota: kubeplay-sandbox") {
			failed++
		}
	}
	if failed == 0 {
		t.Error("no FailedCreate event")
	}
	// The controller backs off: a minute later it has tried a handful of times,
	// not thousands (each try is a refused create, and an event or its count).
	rev := e.srv.Storage().Revision()
	for range 60 {
		e.clock.Step(time.Second)
		time.Sleep(time.Millisecond)
	}
	n := e.srv.Storage().Revision() - rev
	t.Logf("%d writes in a minute of refusals", n)
	if n > 200 {
		t.Errorf("%d writes in a minute of refusals", n)
	}
	// Everything else is served: a ConfigMap is created.
	e.create("/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"still-here"}}`)
}

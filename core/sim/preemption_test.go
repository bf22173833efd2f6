package sim_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/sim"
)

// TestSIM_2_SchedulerPreempts: a Pod that fits no node for an extended
// resource takes the place of Pods of lower priority, as kube-scheduler's
// DefaultPreemption does: on the node the fewest of the lowest priority must
// go (here the 200 and the 300 of 1000, the 450 staying for a 500), each gets
// the DisruptionTarget condition and a Preempted event and is deleted, the
// preemptor is nominated to the node and then bound there; a Pod of lower
// priority created meanwhile does not take the room its victims leave.
func TestSIM_2_SchedulerPreempts(t *testing.T) {
	e := newEnv(t, sim.Config{Nodes: 1})
	node := "/api/v1/nodes/" + sim.NodeName(0)
	e.patch(node+"/status", `{"status":{"capacity":{"example.com/fakecpu":"1000"},"allocatable":{"example.com/fakecpu":"1000"}}}`)
	for i := 1; i <= 4; i++ {
		e.create("/apis/scheduling.k8s.io/v1/priorityclasses", fmt.Sprintf(`{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"p%d"},"value":%d}`, i, i))
	}
	pausePod := func(name, class, amount string) string {
		return podDoc(name, `{"priorityClassName":"`+class+`","containers":[{"name":"c","image":"registry.k8s.io/pause:3.10",`+
			`"resources":{"requests":{"example.com/fakecpu":"`+amount+`"},"limits":{"example.com/fakecpu":"`+amount+`"}}}]}`)
	}
	e.create(pods, pausePod("pod1", "p1", "200"))
	e.create(pods, pausePod("pod2", "p2", "300"))
	e.create(pods, pausePod("pod3", "p3", "450"))
	e.until(time.Minute, "three running", func() bool {
		return e.phase("pod1") == "Running" && e.phase("pod2") == "Running" && e.phase("pod3") == "Running"
	})
	e.create(pods, pausePod("pod4", "p4", "500"))
	e.create(pods, pausePod("pod5", "p1", "200"))
	e.until(time.Minute, "pod4 running", func() bool { return e.phase("pod4") == "Running" })
	var left []string
	for _, p := range e.list(pods) {
		left = append(left, object.MetaString(p, "name"))
	}
	if !slices.Equal(left, []string{"pod3", "pod4", "pod5"}) || e.scheduled("pod5") != "" {
		t.Errorf("pods left %v (pod5 on %q), want pod3, pod4 and pod5 waiting", left, e.scheduled("pod5"))
	}
	if n := object.Path(e.get(pods+"/pod4"), "status", "nominatedNodeName"); n != sim.NodeName(0) {
		t.Errorf("pod4 nominated to %v", n)
	}
	for _, victim := range []string{"pod1", "pod2"} {
		if got := e.events("default", "Pod", victim); !slices.ContainsFunc(got, func(ev string) bool {
			return len(ev) > 10 && ev[:10] == "Preempted "
		}) {
			t.Errorf("%s events %q", victim, got)
		}
	}
}

// TestSIM_2_PreemptedPodGetsDisruptionTarget: a victim held by a finalizer
// stays, terminating, with kube-scheduler's DisruptionTarget condition.
func TestSIM_2_PreemptedPodGetsDisruptionTarget(t *testing.T) {
	e := newEnv(t, sim.Config{Nodes: 1})
	e.patch("/api/v1/nodes/"+sim.NodeName(0)+"/status", `{"status":{"capacity":{"scheduling.k8s.io/foo":"1"},"allocatable":{"scheduling.k8s.io/foo":"1"}}}`)
	e.create("/apis/scheduling.k8s.io/v1/priorityclasses", `{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"low"},"value":1}`)
	e.create("/apis/scheduling.k8s.io/v1/priorityclasses", `{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"high"},"value":1000}`)
	res := `"resources":{"requests":{"scheduling.k8s.io/foo":"1"},"limits":{"scheduling.k8s.io/foo":"1"}}`
	e.create(pods, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"victim","finalizers":["example.com/test"]},"spec":{"priorityClassName":"low",`+
		`"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10",`+res+`}]}}`)
	e.until(time.Minute, "victim running", func() bool { return e.phase("victim") == "Running" })
	e.create(pods, podDoc("preemptor", `{"priorityClassName":"high","containers":[{"name":"c","image":"registry.k8s.io/pause:3.10",`+res+`}]}`))
	e.until(time.Minute, "victim terminating", func() bool { return object.MetaString(e.get(pods+"/victim"), "deletionTimestamp") != "" })
	c := conditionOf(e.get(pods+"/victim"), "DisruptionTarget")
	if c["status"] != "True" || c["reason"] != "PreemptionByScheduler" || c["message"] != "default-scheduler: preempting to accommodate a higher priority pod" {
		t.Errorf("DisruptionTarget %v", c)
	}
	e.until(time.Minute, "preemptor running", func() bool { return e.phase("preemptor") == "Running" })
}

package sim_test

import (
	"strings"
	"testing"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/sim"
)

const pods = "/api/v1/namespaces/default/pods"

func podDoc(name, spec string) string {
	return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
}

// scheduled is the node a Pod is bound to, "" while it is not.
func (e *env) scheduled(name string) string {
	return object.String(object.Path(e.get(pods+"/"+name), "spec", "nodeName"))
}

// TestSIM_2_SchedulingRequestsTaintsPending: the scheduler keeps workloads
// off the tainted control plane, spreads a controller's Pods, honours
// nodeSelector and tolerations, and leaves what fits nowhere Pending with
// kube's FailedScheduling message and PodScheduled condition, until a Pod
// that held the room goes.
func TestSIM_2_SchedulingRequestsTaintsPending(t *testing.T) {
	e := newEnv(t, sim.Config{})
	e.create(deployments, webDeployment(4))
	e.until(time.Minute, "web rolled out", func() bool { return e.deploymentDone("default", "web") })
	perNode := map[string]int{}
	for _, p := range e.list(pods) {
		perNode[object.String(object.Path(p, "spec", "nodeName"))]++
	}
	if perNode["kubeplay-worker"] != 2 || perNode["kubeplay-worker2"] != 2 {
		t.Errorf("pods per node: %v", perNode)
	}

	// Each worker has 4 CPUs: one Pod of 3 fits on each, a third nowhere.
	for _, name := range []string{"big-1", "big-2", "big-3"} {
		e.create(pods, podDoc(name, `{"containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"3"}}}]}`))
	}
	e.until(time.Minute, "two big pods bound", func() bool { return e.scheduled("big-1") != "" && e.scheduled("big-2") != "" })
	want := "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. " +
		"preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
	e.until(time.Minute, "big-3 unschedulable", func() bool {
		c := conditionOf(e.get(pods+"/big-3"), "PodScheduled")
		return c != nil && c["status"] == "False" && c["reason"] == "Unschedulable" && c["message"] == want
	})
	// The scheduler records the event after it sets the condition.
	e.until(time.Minute, "big-3's FailedScheduling event", func() bool {
		got := e.events("default", "Pod", "big-3")
		return len(got) > 0 && got[0] == "FailedScheduling "+want
	})
	ev := e.list("/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dbig-3")[0]
	if ev["reportingComponent"] != "default-scheduler" || ev["action"] != "Scheduling" || ev["eventTime"] == nil || ev["firstTimestamp"] != nil {
		t.Errorf("a scheduler's event: %v", ev)
	}
	// The room comes back: big-3 is bound where big-1 was.
	node1 := e.scheduled("big-1")
	if _, err := e.c.Delete(e.ctx, pods+"/big-1"); err != nil {
		t.Fatal(err)
	}
	e.until(time.Minute, "big-3 bound", func() bool { return e.scheduled("big-3") == node1 })

	// A nodeSelector nothing matches; the control plane for a Pod that
	// tolerates it and asks for it.
	e.create(pods, podDoc("nowhere", `{"nodeSelector":{"disk":"ssd"},"containers":[{"name":"c","image":"nginx"}]}`))
	e.create(pods, podDoc("cp", `{"nodeSelector":{"node-role.kubernetes.io/control-plane":""},`+
		`"tolerations":[{"key":"node-role.kubernetes.io/control-plane","operator":"Exists","effect":"NoSchedule"}],"containers":[{"name":"c","image":"nginx"}]}`))
	e.until(time.Minute, "cp bound", func() bool { return e.scheduled("cp") == "kubeplay-control-plane" })
	e.until(time.Minute, "nowhere unschedulable", func() bool {
		c := conditionOf(e.get(pods+"/nowhere"), "PodScheduled")
		return c != nil && strings.HasPrefix(object.String(c["message"]),
			"0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")
	})

	// An unschedulable Pod whose spec changes is tried again at once (kube's
	// queue moves an updated Pod back): the toleration it lacked, added.
	e.create(pods, podDoc("cp-later", `{"nodeSelector":{"node-role.kubernetes.io/control-plane":""},"containers":[{"name":"c","image":"nginx"}]}`))
	e.until(time.Minute, "cp-later unschedulable", func() bool {
		c := conditionOf(e.get(pods+"/cp-later"), "PodScheduled")
		return c != nil && c["reason"] == "Unschedulable"
	})
	e.patch(pods+"/cp-later", `{"spec":{"tolerations":[{"key":"node-role.kubernetes.io/control-plane","operator":"Exists","effect":"NoSchedule"}]}}`)
	e.until(time.Minute, "cp-later bound", func() bool { return e.scheduled("cp-later") == "kubeplay-control-plane" })
}

// TestSIM_2_NodesAndLeases: the nodes register as a kind cluster's kubelets
// register theirs: Ready, their capacity, the control plane's role and taint,
// no not-ready taint left, and a Lease each in kube-node-lease, renewed
// while the node has work.
func TestSIM_2_NodesAndLeases(t *testing.T) {
	e := newEnv(t, sim.Config{Nodes: 2})
	nodes := e.list("/api/v1/nodes")
	if len(nodes) != 2 {
		t.Fatalf("%d nodes", len(nodes))
	}
	cp, worker := nodes[0], nodes[1]
	if object.MetaString(cp, "name") != "kubeplay-control-plane" || object.MetaString(worker, "name") != "kubeplay-worker" {
		t.Fatalf("names %s %s", object.MetaString(cp, "name"), object.MetaString(worker, "name"))
	}
	if taints := object.Path(cp, "spec", "taints").([]any); len(taints) != 1 || object.Path(taints[0], "key") != "node-role.kubernetes.io/control-plane" {
		t.Errorf("control plane taints: %v", taints)
	}
	if object.Path(worker, "spec", "taints") != nil {
		t.Errorf("worker taints: %v", object.Path(worker, "spec", "taints"))
	}
	if c := conditionOf(worker, "Ready"); c["status"] != "True" || c["reason"] != "KubeletReady" {
		t.Errorf("Ready: %v", c)
	}
	if object.Path(worker, "status", "allocatable", "cpu") != "4" || object.Path(worker, "spec", "podCIDR") != "10.244.1.0/24" {
		t.Errorf("worker: %v %v", object.Path(worker, "status", "allocatable"), worker["spec"])
	}
	leasePath := "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/kubeplay-worker"
	lease := e.get(leasePath)
	if object.Path(lease, "spec", "holderIdentity") != "kubeplay-worker" || num(lease, "spec", "leaseDurationSeconds") != 40 {
		t.Errorf("lease %v", lease)
	}
	registered := object.String(object.Path(lease, "spec", "renewTime"))
	heartbeat := func() string {
		return object.String(conditionOf(e.get("/api/v1/nodes/kubeplay-worker"), "Ready")["lastHeartbeatTime"])
	}
	reported := heartbeat()
	e.clock.Step(time.Minute)
	e.create(pods, podDoc("web", `{"containers":[{"name":"c","image":"nginx"}]}`))
	e.until(time.Minute, "the worker's lease renewed", func() bool {
		return object.String(object.Path(e.get(leasePath), "spec", "renewTime")) > registered
	})
	// The status is reported at the first work, then every 5 minutes at most.
	e.until(time.Minute, "the worker's status reported", func() bool { return heartbeat() > reported })
	if c := conditionOf(e.get("/api/v1/nodes/kubeplay-worker"), "Ready"); c["status"] != "True" || c["lastTransitionTime"] == c["lastHeartbeatTime"] {
		t.Errorf("Ready after a report: %v", c)
	}
	reported = heartbeat()
	e.create(pods, podDoc("web2", `{"containers":[{"name":"c","image":"nginx"}]}`))
	e.until(time.Minute, "web2 running", func() bool { return object.Path(e.get(pods+"/web2"), "status", "phase") == "Running" })
	if heartbeat() != reported {
		t.Errorf("status reported again within 5 minutes")
	}
	e.clock.Step(6 * time.Minute)
	e.create(pods, podDoc("web3", `{"containers":[{"name":"c","image":"nginx"}]}`))
	e.until(time.Minute, "the worker's status reported again", func() bool { return heartbeat() > reported })
}

// TestSIM_5_FewerNodes: a cluster started again with fewer nodes (a sandbox's
// node count lowered) deletes the nodes it no longer has, their Pods (as
// kube's pod garbage collector deletes those bound to a missing node) and,
// through the garbage collector, their Leases; the Deployment's Pods come
// back on the nodes that remain.
func TestSIM_5_FewerNodes(t *testing.T) {
	e := newEnv(t, sim.Config{Nodes: 3})
	e.create(deployments, webDeployment(2))
	e.until(time.Minute, "web rolled out", func() bool { return e.deploymentDone("default", "web") })
	on := func(node string) int {
		n := 0
		for _, p := range e.list("/api/v1/namespaces/default/pods") {
			if object.Path(p, "spec", "nodeName") == node {
				n++
			}
		}
		return n
	}
	if on("kubeplay-worker2") == 0 {
		t.Fatalf("no Pod on kubeplay-worker2 to move")
	}
	e.cluster.Stop()
	cl, err := sim.Start(e.srv, sim.Config{Nodes: 2, Clock: e.clock})
	if err != nil {
		t.Fatal(err)
	}
	e.cluster = cl
	t.Cleanup(cl.Stop)
	var names []string
	for _, n := range e.list("/api/v1/nodes") {
		names = append(names, object.MetaString(n, "name"))
	}
	if strings.Join(names, " ") != "kubeplay-control-plane kubeplay-worker" {
		t.Fatalf("nodes after lowering the count: %v", names)
	}
	e.until(time.Minute, "web's Pods back on the worker", func() bool {
		return e.deploymentDone("default", "web") && on("kubeplay-worker") == 2 && on("kubeplay-worker2") == 0
	})
	e.until(time.Minute, "kubeplay-worker2's Lease collected", func() bool {
		return len(e.list("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases")) == 2
	})
}

// TestSIM_2_SchedulingHostPorts: kube's NodePorts filter: a host port is
// bound once per node (on all addresses unless a hostIP is given, per
// protocol), so a third Pod binding it fits on neither worker.
func TestSIM_2_SchedulingHostPorts(t *testing.T) {
	e := newEnv(t, sim.Config{})
	port := func(name, ports string) {
		e.create(pods, podDoc(name, `{"containers":[{"name":"c","image":"nginx","ports":[`+ports+`]}]}`))
	}
	port("p-1", `{"containerPort":80,"hostPort":5555}`)
	port("p-2", `{"containerPort":80,"hostPort":5555}`)
	port("udp", `{"containerPort":80,"hostPort":5555,"protocol":"UDP"}`)
	e.until(time.Minute, "two bound", func() bool { return e.scheduled("p-1") != "" && e.scheduled("p-2") != "" && e.scheduled("udp") != "" })
	if e.scheduled("p-1") == e.scheduled("p-2") {
		t.Errorf("both on %s", e.scheduled("p-1"))
	}
	port("p-3", `{"containerPort":80,"hostPort":5555,"hostIP":"127.0.0.1"}`)
	want := "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't have free ports for the requested pod ports. " +
		"preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
	e.until(time.Minute, "p-3 unschedulable", func() bool {
		c := conditionOf(e.get(pods+"/p-3"), "PodScheduled")
		return c != nil && c["status"] == "False" && c["message"] == want
	})
	node1 := e.scheduled("p-1")
	if _, err := e.c.Delete(e.ctx, pods+"/p-1?gracePeriodSeconds=0"); err != nil {
		t.Fatal(err)
	}
	e.until(time.Minute, "p-3 bound where p-1 was", func() bool { return e.scheduled("p-3") == node1 })
}

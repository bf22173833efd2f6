package sim

import (
	"cmp"
	"context"
	"fmt"
	"kubeplay/core/object"
	"kubeplay/core/user"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/quantity"
	"kubeplay/core/web"
)

// schedulerName is the scheduler Pods name by default.
const schedulerName = "default-scheduler"

type (
	pod  = controllers.Pod
	node = controllers.Node
)

// scheduler is kube-scheduler's default profile, reduced to what a sandbox
// shows: it binds each Pod that names it to a node that passes kube's filters
// in kube's order (NodeUnschedulable, TaintToleration, NodeAffinity with
// nodeSelector, NodePorts, NodeResourcesFit on cpu, memory and pods), preferring the
// node with the fewest Pods of the same controller, then the least requested.
// A Pod that fits nowhere gets kube's FailedScheduling event and
// PodScheduled=False condition, with kube's message, and waits until a node
// or a Pod changes.
type scheduler struct {
	c      *client.Client
	events *controllers.Recorder
	pods   *client.TypedInformer[*pod] // Pods that are not finished, as kube-scheduler's
	nodes  *client.TypedInformer[*node]
	queue  *controllers.Queue
	clock  clock.Clock

	mu      sync.Mutex
	usage   map[string]map[string]requests // node → pod key → what it requests
	waiting map[string]bool                // unschedulable Pods, retried when the cluster changes
	// nominated are the nodes preemption chose for Pods (kube-scheduler's
	// in-memory nominator), known before the informer sees the nomination
	// written: the victims' room is held from their first deletion.
	nominated map[string]string
	// moves counts the cluster changes that retried the waiting Pods
	// (kube's moveRequestCycle): a Pod found unschedulable in a cycle during
	// which the cluster changed is tried again, not left waiting for a
	// change it has already missed.
	moves int
}

// requests is what a Pod asks of a node: cpu and memory in thousandths,
// the other resources it requests (extended resources, ephemeral storage)
// likewise, and the host ports its containers bind.
type requests struct {
	cpu, memory int64
	other       map[string]int64
	ports       []hostPort
}

// hostPort is a host port a container binds: on all addresses when ip is
// 0.0.0.0.
type hostPort struct {
	ip, protocol string
	port         int64
}

// conflicts is kube's HostPortInfo.CheckConflict: the same port and
// protocol, on the same address or on all of them.
func (a hostPort) conflicts(b hostPort) bool {
	return a.port == b.port && a.protocol == b.protocol && (a.ip == b.ip || a.ip == "0.0.0.0" || b.ip == "0.0.0.0")
}

func newScheduler(h web.Handler, clk clock.Clock) *scheduler {
	c := client.New(h, user.User{Name: "system:kube-scheduler", Groups: []string{user.AllAuthenticated}},
		"kube-scheduler/"+kubeletVersion+" (linux/amd64) kubernetes/kubeplay/scheduler")
	s := &scheduler{c: c, queue: controllers.NewQueue(clk), clock: clk,
		events:  controllers.NewRecorder(c, clk, schedulerName, schedulerName+"-"+NodeName(0)),
		usage:   map[string]map[string]requests{},
		waiting: map[string]bool{}, nominated: map[string]string{}}
	s.pods = client.NewTypedInformer(c, "/api/v1/pods?fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed",
		controllers.Codec[pod](), client.TypedHandler[*pod]{Add: s.podChanged, Update: func(old, cur *pod) {
			// A change of status alone (the scheduler's own condition, a
			// kubelet's progress) changes nothing for scheduling; a change of
			// the spec (a toleration added) is tried again, as kube's
			// scheduling queue moves an updated unschedulable Pod back.
			if !reflect.DeepEqual(old.Spec, cur.Spec) || !maps.Equal(old.Metadata.Labels, cur.Metadata.Labels) {
				s.podChanged(cur)
			}
		}, Delete: s.podGone},
		map[string]func(*pod) []string{"controller": controllers.ByController[pod]}, clk)
	retry := func(*node) { s.retryWaiting() }
	s.nodes = client.NewTypedInformer(c, "/api/v1/nodes", controllers.Codec[node](),
		client.TypedHandler[*node]{Add: retry, Update: func(_, n *node) { retry(n) }}, nil, clk)
	return s
}

// Pending is how many Pods wait for a step.
func (s *scheduler) Pending() int { return s.queue.Pending() }

// Run works until ctx is done.
func (s *scheduler) Run(ctx context.Context) {
	controllers.Run(ctx, s.queue, s.schedule, s.pods, s.nodes)
}

// podChanged accounts for an assigned Pod and queues an unassigned one.
func (s *scheduler) podChanged(p *pod) {
	key := p.Metadata.Key()
	if p.Spec.NodeName != "" {
		s.mu.Lock()
		s.forget(key)
		if s.usage[p.Spec.NodeName] == nil {
			s.usage[p.Spec.NodeName] = map[string]requests{}
		}
		s.usage[p.Spec.NodeName][key] = podRequests(p)
		s.mu.Unlock()
		return
	}
	if (p.Spec.SchedulerName == "" || p.Spec.SchedulerName == schedulerName) && p.Metadata.DeletionTimestamp == "" {
		s.queue.Add(key)
	}
}

// podGone frees what a Pod held and retries the Pods that did not fit.
func (s *scheduler) podGone(p *pod) {
	s.mu.Lock()
	s.forget(p.Metadata.Key())
	delete(s.waiting, p.Metadata.Key())
	s.mu.Unlock()
	s.retryWaiting()
}

// forget drops key's usage wherever it was counted; called with mu held.
func (s *scheduler) forget(key string) {
	for _, pods := range s.usage {
		delete(pods, key)
	}
}

func (s *scheduler) retryWaiting() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.moves++
	for key := range s.waiting {
		s.queue.Add(key)
	}
}

// schedule finds a node for the Pod key and binds it there.
func (s *scheduler) schedule(ctx context.Context, key string) error {
	p, ok := s.pods.Get(key)
	if !ok || p.Spec.NodeName != "" || p.Metadata.DeletionTimestamp != "" {
		s.mu.Lock()
		delete(s.waiting, key)
		delete(s.nominated, key)
		s.mu.Unlock()
		return nil
	}
	want := podRequests(p)
	nodes := s.nodes.List()
	reasons := map[string]int{}
	unresolvable := 0
	var fit []candidate
	s.mu.Lock()
	cycle := s.moves
	siblings := map[string]int{} // the Pods of p's controller, per node (bound, or assumed so)
	if owner := p.Metadata.Controller(); owner != "" {
		for _, sibling := range s.pods.ByIndex("controller", owner) {
			node := sibling.Spec.NodeName
			for name, assumed := range s.usage {
				if _, ok := assumed[sibling.Metadata.Key()]; ok {
					node = name
					break
				}
			}
			siblings[node]++
		}
	}
	for _, n := range nodes {
		why, resolvable := s.filter(p, want, n, s.withNominated(p, n.Metadata.Name, s.usage[n.Metadata.Name]))
		switch {
		case len(why) == 0:
			fit = append(fit, s.score(want, n, siblings[n.Metadata.Name]))
		case !resolvable:
			unresolvable++
		}
		for _, r := range why {
			reasons[r]++
		}
	}
	s.mu.Unlock()
	if len(fit) == 0 {
		nominated, err := s.preempt(ctx, p, want, nodes)
		if err != nil {
			return err
		}
		return s.unschedulable(ctx, p, cycle, len(nodes), reasons, unresolvable, nominated)
	}
	target := slices.MinFunc(fit, candidate.compare).name
	decided := s.events.Stamp() // the event is dated when the Pod was placed
	binding := fmt.Sprintf(`{"apiVersion":"v1","kind":"Binding","metadata":{"name":%q,"namespace":%q,"uid":%q},"target":{"kind":"Node","name":%q}}`,
		p.Metadata.Name, p.Metadata.Namespace, p.Metadata.UID, target)
	if _, err := s.c.Do(ctx, web.MethodPost, podPath(p)+"/binding", "application/json", []byte(binding)); err != nil {
		if client.IsNotFound(err) || client.IsConflict(err) {
			return nil // gone, or bound by someone else
		}
		return err
	}
	s.mu.Lock()
	delete(s.waiting, key)
	if s.usage[target] == nil {
		s.usage[target] = map[string]requests{}
	}
	s.usage[target][key] = want // assumed until the informer sees it bound
	delete(s.nominated, key)
	s.mu.Unlock()
	s.events.ActionfAt(ctx, decided, controllers.Ref(&p.Metadata, "v1", "Pod"), controllers.Normal, "Scheduled", "Binding",
		"Successfully assigned %s/%s to %s", p.Metadata.Namespace, p.Metadata.Name, target)
	return nil
}

// withNominated is used, the Pods on node, with the Pods of p's priority or
// higher that wait for node, nominated there by a preemption: kube-scheduler
// counts them there, so that no Pod of lower priority takes the room their
// victims leave. Called with mu held.
func (s *scheduler) withNominated(p *pod, node string, used map[string]requests) map[string]requests {
	var out map[string]requests
	for _, q := range s.pods.List() {
		at := q.Status.NominatedNodeName
		if n, ok := s.nominated[q.Metadata.Key()]; ok {
			at = n
		}
		if at != node || q.Spec.NodeName != "" || q.Metadata.UID == p.Metadata.UID || priority(q) < priority(p) {
			continue
		}
		if out == nil {
			out = maps.Clone(used)
			if out == nil {
				out = map[string]requests{}
			}
		}
		out[q.Metadata.Key()] = podRequests(q)
	}
	if out == nil {
		return used
	}
	return out
}

// unschedulable records why a Pod fits no node, as kube's FitError and its
// preemption attempt word it (nothing of the attempt when it nominated a
// node), and waits for the cluster to change, or, when it changed since
// the scheduling cycle began (cycle is the count of changes then), is
// tried again after kube's initial backoff.
func (s *scheduler) unschedulable(ctx context.Context, p *pod, cycle, nodes int, reasons map[string]int, unresolvable int, nominated string) error {
	s.mu.Lock()
	s.waiting[p.Metadata.Key()] = true
	if s.moves != cycle {
		s.queue.AddAfter(p.Metadata.Key(), time.Second)
	}
	s.mu.Unlock()
	msg := "no nodes available to schedule pods"
	switch {
	case nominated != "":
		msg = fmt.Sprintf("0/%d nodes are available: %s.", nodes, histogram(reasons))
	case nodes > 0:
		preemption := map[string]int{}
		if unresolvable > 0 {
			preemption["Preemption is not helpful for scheduling"] = unresolvable
		}
		if n := nodes - unresolvable; n > 0 {
			preemption["No preemption victims found for incoming pod"] = n
		}
		msg = fmt.Sprintf("0/%d nodes are available: %s. preemption: 0/%d nodes are available: %s.", nodes, histogram(reasons), nodes, histogram(preemption))
	}
	// The condition first, then the event (kube's recorder sends events
	// asynchronously, in no fixed order with the status): whoever sees the
	// event finds the Pod's condition already set.
	if c := controllers.FindCondition(p.Status.Conditions, "PodScheduled"); c == nil || c.Status != "False" || c.Message != msg ||
		nominated != "" && p.Status.NominatedNodeName != nominated {
		nomination := ""
		if nominated != "" {
			nomination = fmt.Sprintf(`,"nominatedNodeName":%q`, nominated)
		}
		patch := fmt.Sprintf(`{"status":{"conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","message":%q,"lastProbeTime":null,"lastTransitionTime":%q}]%s}}`,
			msg, object.Timestamp(s.clock.Now()), nomination)
		_, err := s.c.Do(ctx, web.MethodPatch, podPath(p)+"/status", "application/strategic-merge-patch+json", []byte(patch))
		if client.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	s.events.Actionf(ctx, controllers.Ref(&p.Metadata, "v1", "Pod"), controllers.Warning, "FailedScheduling", "Scheduling", "%s", msg)
	return nil
}

// histogram is kube's sortReasonsHistogram: "N reason" for each reason, sorted.
func histogram(reasons map[string]int) string {
	out := make([]string, 0, len(reasons))
	for r, n := range reasons {
		out = append(out, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// filter runs kube's filters on node n in order, and returns the first
// failing filter's reasons and whether preempting Pods could help there.
// used is what the Pods on n request. Called with mu held.
func (s *scheduler) filter(p *pod, want requests, n *node, used map[string]requests) (reasons []string, resolvable bool) {
	if n.Spec.Unschedulable && !controllers.Tolerates(p.Spec.Tolerations, controllers.Taint{Key: "node.kubernetes.io/unschedulable", Effect: "NoSchedule"}) {
		return []string{"node(s) were unschedulable"}, false
	}
	for _, taint := range n.Spec.Taints {
		if (taint.Effect == "NoSchedule" || taint.Effect == "NoExecute") && !controllers.Tolerates(p.Spec.Tolerations, taint) {
			return []string{fmt.Sprintf("node(s) had untolerated taint {%s: %s}", taint.Key, taint.Value)}, false
		}
	}
	if !controllers.MatchesNode(&p.Spec, n) {
		return []string{"node(s) didn't match Pod's node affinity/selector"}, false
	}
	for _, want := range want.ports {
		for _, r := range used {
			for _, p := range r.ports {
				if want.conflicts(p) {
					return []string{"node(s) didn't have free ports for the requested pod ports"}, true
				}
			}
		}
	}
	alloc := n.Status.Allocatable
	var cpu, memory int64
	for _, r := range used {
		cpu += r.cpu
		memory += r.memory
	}
	if int64(len(used))+1 > quantity.MilliValue(alloc["pods"])/1000 {
		reasons = append(reasons, "Too many pods")
	}
	if want.cpu > 0 && want.cpu > quantity.MilliValue(alloc["cpu"])-cpu {
		reasons = append(reasons, "Insufficient cpu")
	}
	if want.memory > 0 && want.memory > quantity.MilliValue(alloc["memory"])-memory {
		reasons = append(reasons, "Insufficient memory")
	}
	for _, name := range slices.Sorted(maps.Keys(want.other)) {
		taken := int64(0)
		for _, r := range used {
			taken += r.other[name]
		}
		if w := want.other[name]; w > 0 && w > quantity.MilliValue(alloc[name])-taken {
			reasons = append(reasons, "Insufficient "+name)
		}
	}
	return reasons, true
}

// candidate is a node a Pod fits, scored.
type candidate struct {
	name     string
	siblings int   // Pods of the same controller there
	load     int64 // requested share of cpu plus memory, in millionths
	pods     int
}

func (a candidate) compare(b candidate) int {
	return cmp.Or(cmp.Compare(a.siblings, b.siblings), cmp.Compare(a.load, b.load), cmp.Compare(a.pods, b.pods), cmp.Compare(a.name, b.name))
}

// score rates node n, where the Pod's controller has siblings Pods: kube's
// default topology spreading (by hostname) before its least-requested
// scoring. Called with mu held.
func (s *scheduler) score(want requests, n *node, siblings int) candidate {
	name := n.Metadata.Name
	c := candidate{name: name, pods: len(s.usage[name]), siblings: siblings}
	cpu, memory := want.cpu, want.memory
	for _, r := range s.usage[name] {
		cpu += r.cpu
		memory += r.memory
	}
	if total := quantity.MilliValue(n.Status.Allocatable["cpu"]); total > 0 {
		c.load += cpu * 1e6 / total
	}
	if total := quantity.MilliValue(n.Status.Allocatable["memory"]); total >= 1e6 {
		c.load += memory / (total / 1e6)
	}
	return c
}

// podRequests is what a Pod requests, as kube's scheduler computes it: its
// containers' requests added up, or its largest init container's where that
// is more, plus its overhead; and its containers' host ports.
func podRequests(p *pod) requests {
	var out, init requests
	for _, c := range p.Spec.Containers {
		out.cpu += quantity.MilliValue(c.Resources.Requests["cpu"])
		out.memory += quantity.MilliValue(c.Resources.Requests["memory"])
		for name, q := range c.Resources.Requests {
			if name != "cpu" && name != "memory" {
				if out.other == nil {
					out.other = map[string]int64{}
				}
				out.other[name] += quantity.MilliValue(q)
			}
		}
		for _, port := range c.Ports {
			if port.HostPort > 0 {
				out.ports = append(out.ports, hostPort{ip: cmp.Or(port.HostIP, "0.0.0.0"), protocol: cmp.Or(port.Protocol, "TCP"), port: port.HostPort})
			}
		}
	}
	for _, c := range p.Spec.InitContainers {
		init.cpu = max(init.cpu, quantity.MilliValue(c.Resources.Requests["cpu"]))
		init.memory = max(init.memory, quantity.MilliValue(c.Resources.Requests["memory"]))
		for name, q := range c.Resources.Requests {
			if name != "cpu" && name != "memory" && quantity.MilliValue(q) > out.other[name] {
				if out.other == nil {
					out.other = map[string]int64{}
				}
				out.other[name] = quantity.MilliValue(q)
			}
		}
	}
	out.cpu = max(out.cpu, init.cpu) + quantity.MilliValue(p.Spec.Overhead["cpu"])
	out.memory = max(out.memory, init.memory) + quantity.MilliValue(p.Spec.Overhead["memory"])
	return out
}

package sim

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"kubeplay/core/auth"
	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/quantity"
	"kubeplay/core/registry"
	"kubeplay/core/web"
)

// schedulerName is the scheduler Pods name by default.
const schedulerName = "default-scheduler"

// scheduler is kube-scheduler's default profile, reduced to what a sandbox
// shows: it binds each Pod that names it to a node that passes kube's filters
// in kube's order (NodeUnschedulable, TaintToleration, NodeAffinity with
// nodeSelector, NodeResourcesFit on cpu, memory and pods), preferring the
// node with the fewest Pods of the same controller, then the least requested.
// A Pod that fits nowhere gets kube's FailedScheduling event and
// PodScheduled=False condition, with kube's message, and waits until a node
// or a Pod changes.
type scheduler struct {
	c      *client.Client
	events *controllers.Recorder
	pods   *client.Informer // Pods that are not finished, as kube-scheduler's
	nodes  *client.Informer
	queue  *controllers.Queue
	clock  clock.Clock

	mu      sync.Mutex
	usage   map[string]map[string]requests // node → pod key → what it requests
	waiting map[string]bool                // unschedulable Pods, retried when the cluster changes
}

// requests is what a Pod asks of a node, in thousandths.
type requests struct{ cpu, memory int64 }

func newScheduler(h web.Handler, clk clock.Clock) *scheduler {
	c := client.New(h, auth.User{Name: "system:kube-scheduler", Groups: []string{auth.AllAuthenticated}},
		"kube-scheduler/"+kubeletVersion+" (linux/amd64) kubernetes/kubeplay/scheduler")
	s := &scheduler{c: c, queue: controllers.NewQueue(clk), clock: clk,
		events:  controllers.NewRecorder(c, clk, schedulerName, schedulerName+"-"+NodeName(0)),
		usage:   map[string]map[string]requests{},
		waiting: map[string]bool{}}
	s.pods = client.NewInformer(c, "/api/v1/pods?fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed",
		client.Handler{Add: s.podChanged, Update: func(old, cur object.Object) {
			// A change of status alone (the scheduler's own condition, a
			// kubelet's progress) changes nothing for scheduling.
			if !object.Equal(old["spec"], cur["spec"]) || !object.Equal(object.Meta(old)["labels"], object.Meta(cur)["labels"]) {
				s.podChanged(cur)
			}
		}, Delete: s.podGone},
		map[string]client.IndexFunc{"controller": controllers.ByController}, clk)
	s.nodes = client.NewInformer(c, "/api/v1/nodes", client.Handler{
		Add: func(object.Object) { s.retryWaiting() }, Update: func(_, _ object.Object) { s.retryWaiting() },
	}, nil, clk)
	return s
}

func (s *scheduler) run(ctx context.Context) {
	go s.pods.Run(ctx)
	go s.nodes.Run(ctx)
	if controllers.Synced(ctx, s.pods, s.nodes) {
		s.queue.Run(ctx, s.schedule)
	}
}

// podChanged accounts for an assigned Pod and queues an unassigned one.
func (s *scheduler) podChanged(pod object.Object) {
	key := client.Key(pod)
	nodeName, _ := object.Path(pod, "spec", "nodeName").(string)
	if nodeName != "" {
		s.mu.Lock()
		s.forget(key)
		if s.usage[nodeName] == nil {
			s.usage[nodeName] = map[string]requests{}
		}
		s.usage[nodeName][key] = podRequests(pod)
		s.mu.Unlock()
		return
	}
	name, _ := object.Path(pod, "spec", "schedulerName").(string)
	if (name == "" || name == schedulerName) && object.Meta(pod)["deletionTimestamp"] == nil {
		s.queue.Add(key)
	}
}

// podGone frees what a Pod held and retries the Pods that did not fit.
func (s *scheduler) podGone(pod object.Object) {
	s.mu.Lock()
	s.forget(client.Key(pod))
	delete(s.waiting, client.Key(pod))
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
	for key := range s.waiting {
		s.queue.Add(key)
	}
}

// schedule finds a node for the Pod key and binds it there.
func (s *scheduler) schedule(ctx context.Context, key string) error {
	pod, ok := s.pods.Get(key)
	if !ok || object.Path(pod, "spec", "nodeName") != nil || object.Meta(pod)["deletionTimestamp"] != nil {
		s.mu.Lock()
		delete(s.waiting, key)
		s.mu.Unlock()
		return nil
	}
	want := podRequests(pod)
	nodes := s.nodes.List()
	reasons := map[string]int{}
	unresolvable := 0
	var fit []candidate
	s.mu.Lock()
	for _, n := range nodes {
		why, resolvable := s.filter(pod, want, n)
		switch {
		case len(why) == 0:
			fit = append(fit, s.score(pod, want, n))
		case !resolvable:
			unresolvable++
		}
		for _, r := range why {
			reasons[r]++
		}
	}
	s.mu.Unlock()
	if len(fit) == 0 {
		return s.unschedulable(ctx, pod, len(nodes), reasons, unresolvable)
	}
	sort.Slice(fit, func(i, j int) bool { return fit[i].less(fit[j]) })
	target := fit[0].name
	binding := object.Object{"apiVersion": "v1", "kind": "Binding",
		"metadata": map[string]any{"name": object.MetaString(pod, "name"), "namespace": object.MetaString(pod, "namespace"),
			"uid": object.MetaString(pod, "uid")},
		"target": map[string]any{"kind": "Node", "name": target}}
	path := "/api/v1/namespaces/" + object.MetaString(pod, "namespace") + "/pods/" + object.MetaString(pod, "name")
	if _, err := s.c.Create(ctx, path+"/binding", binding); err != nil {
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
	s.mu.Unlock()
	s.events.Actionf(ctx, controllers.Ref(pod, "v1", "Pod"), controllers.Normal, "Scheduled", "Binding",
		"Successfully assigned %s/%s to %s", object.MetaString(pod, "namespace"), object.MetaString(pod, "name"), target)
	return nil
}

// unschedulable records why a Pod fits no node, as kube's FitError and its
// preemption attempt word it, and waits for the cluster to change.
func (s *scheduler) unschedulable(ctx context.Context, pod object.Object, nodes int, reasons map[string]int, unresolvable int) error {
	s.mu.Lock()
	s.waiting[client.Key(pod)] = true
	s.mu.Unlock()
	msg := fmt.Sprintf("0/%d nodes are available", nodes)
	if nodes == 0 {
		msg = "no nodes available to schedule pods"
	} else {
		msg += ": " + histogram(reasons) + "."
		preemption := map[string]int{}
		if unresolvable > 0 {
			preemption["Preemption is not helpful for scheduling"] = unresolvable
		}
		if n := nodes - unresolvable; n > 0 {
			preemption["No preemption victims found for incoming pod"] = n
		}
		msg += fmt.Sprintf(" preemption: 0/%d nodes are available: %s.", nodes, histogram(preemption))
	}
	s.events.Actionf(ctx, controllers.Ref(pod, "v1", "Pod"), controllers.Warning, "FailedScheduling", "Scheduling", "%s", msg)
	if c := controllers.Condition(pod, "PodScheduled"); c != nil && c["status"] == "False" && c["message"] == msg {
		return nil
	}
	patch := fmt.Sprintf(`{"status":{"conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","message":%q,"lastProbeTime":null,"lastTransitionTime":%q}]}}`,
		msg, registry.Timestamp(s.clock.Now()))
	_, err := s.c.Do(ctx, web.MethodPatch, "/api/v1/namespaces/"+object.MetaString(pod, "namespace")+"/pods/"+object.MetaString(pod, "name")+"/status",
		"application/strategic-merge-patch+json", []byte(patch))
	if client.IsNotFound(err) {
		return nil
	}
	return err
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
// Called with mu held.
func (s *scheduler) filter(pod object.Object, want requests, n object.Object) (reasons []string, resolvable bool) {
	spec, _ := pod["spec"].(map[string]any)
	tolerations := object.Objects(spec, "tolerations")
	if object.Path(n, "spec", "unschedulable") == true &&
		!tolerates(tolerations, map[string]any{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}) {
		return []string{"node(s) were unschedulable"}, false
	}
	nodeSpec, _ := n["spec"].(map[string]any)
	for _, taint := range object.Objects(nodeSpec, "taints") {
		if effect := taint["effect"]; (effect == "NoSchedule" || effect == "NoExecute") && !tolerates(tolerations, taint) {
			return []string{fmt.Sprintf("node(s) had untolerated taint {%v: %v}", taint["key"], object.String(taint["value"]))}, false
		}
	}
	if !matchesNode(spec, n) {
		return []string{"node(s) didn't match Pod's node affinity/selector"}, false
	}
	alloc, _ := object.Path(n, "status", "allocatable").(map[string]any)
	used := s.usage[object.MetaString(n, "name")]
	var cpu, memory int64
	for _, r := range used {
		cpu += r.cpu
		memory += r.memory
	}
	if int64(len(used))+1 > object.Int(alloc["pods"]) {
		reasons = append(reasons, "Too many pods")
	}
	if want.cpu > 0 && want.cpu > quantity.MilliValue(object.String(alloc["cpu"]))-cpu {
		reasons = append(reasons, "Insufficient cpu")
	}
	if want.memory > 0 && want.memory > quantity.MilliValue(object.String(alloc["memory"]))-memory {
		reasons = append(reasons, "Insufficient memory")
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

func (a candidate) less(b candidate) bool {
	switch {
	case a.siblings != b.siblings:
		return a.siblings < b.siblings
	case a.load != b.load:
		return a.load < b.load
	case a.pods != b.pods:
		return a.pods < b.pods
	}
	return a.name < b.name
}

// score rates node n for pod: kube's default topology spreading (by
// hostname, among the Pods of the same controller) before its least-requested
// scoring. Called with mu held.
func (s *scheduler) score(pod object.Object, want requests, n object.Object) candidate {
	name := object.MetaString(n, "name")
	c := candidate{name: name, pods: len(s.usage[name])}
	if owner := controllers.ControllerOf(pod); owner != "" {
		for _, p := range s.pods.ByIndex("controller", owner) {
			if object.Path(p, "spec", "nodeName") == name {
				c.siblings++
			}
		}
	}
	alloc, _ := object.Path(n, "status", "allocatable").(map[string]any)
	cpu, memory := want.cpu, want.memory
	for _, r := range s.usage[name] {
		cpu += r.cpu
		memory += r.memory
	}
	if total := quantity.MilliValue(object.String(alloc["cpu"])); total > 0 {
		c.load += cpu * 1e6 / total
	}
	if total := quantity.MilliValue(object.String(alloc["memory"])); total > 0 {
		c.load += memory / (total / 1e6)
	}
	return c
}

// tolerates is v1.Toleration.ToleratesTaint over a Pod's tolerations.
func tolerates(tolerations []map[string]any, taint map[string]any) bool {
	for _, t := range tolerations {
		if effect := object.String(t["effect"]); effect != "" && effect != taint["effect"] {
			continue
		}
		key := object.String(t["key"])
		switch object.String(t["operator"]) {
		case "Exists":
			if key == "" || key == taint["key"] {
				return true
			}
		default:
			if key == taint["key"] && object.String(t["value"]) == object.String(taint["value"]) {
				return true
			}
		}
	}
	return false
}

// matchesNode is kube's NodeAffinity filter: the Pod's nodeSelector, and its
// required node affinity (any of the terms, every expression of one).
func matchesNode(spec map[string]any, n object.Object) bool {
	labels := object.Labels(n)
	for k, v := range object.StringMap(spec, "nodeSelector") {
		if labels[k] != v {
			return false
		}
	}
	required, _ := object.Path(spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution").(map[string]any)
	terms := object.Objects(required, "nodeSelectorTerms")
	if len(terms) == 0 {
		return true
	}
	fields := map[string]string{"metadata.name": object.MetaString(n, "name")}
	for _, term := range terms {
		exprs, fieldExprs := object.Objects(term, "matchExpressions"), object.Objects(term, "matchFields")
		ok := len(exprs)+len(fieldExprs) > 0
		for _, e := range exprs {
			ok = ok && matchesExpression(e, labels)
		}
		for _, e := range fieldExprs {
			ok = ok && matchesExpression(e, fields)
		}
		if ok {
			return true
		}
	}
	return false
}

// matchesExpression is a NodeSelectorRequirement against labels.
func matchesExpression(e map[string]any, labels map[string]string) bool {
	v, has := labels[object.String(e["key"])]
	values := object.Strings(e, "values")
	switch e["operator"] {
	case "In":
		return has && contains(values, v)
	case "NotIn":
		return !has || !contains(values, v)
	case "Exists":
		return has
	case "DoesNotExist":
		return !has
	case "Gt", "Lt":
		if !has || len(values) != 1 {
			return false
		}
		a, b := object.Int(v), object.Int(values[0])
		return e["operator"] == "Gt" && a > b || e["operator"] == "Lt" && a < b
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// podRequests is what a Pod requests, as kube's scheduler computes it: its
// containers' requests added up, or its largest init container's where that
// is more, plus its overhead.
func podRequests(pod object.Object) requests {
	spec, _ := pod["spec"].(map[string]any)
	sum := func(list string) (total, largest requests) {
		for _, c := range object.Objects(spec, list) {
			r, _ := object.Path(c, "resources", "requests").(map[string]any)
			cr := requests{quantity.MilliValue(object.String(r["cpu"])), quantity.MilliValue(object.String(r["memory"]))}
			total.cpu += cr.cpu
			total.memory += cr.memory
			largest.cpu = max(largest.cpu, cr.cpu)
			largest.memory = max(largest.memory, cr.memory)
		}
		return total, largest
	}
	out, _ := sum("containers")
	_, init := sum("initContainers")
	out.cpu, out.memory = max(out.cpu, init.cpu), max(out.memory, init.memory)
	overhead, _ := spec["overhead"].(map[string]any)
	out.cpu += quantity.MilliValue(object.String(overhead["cpu"]))
	out.memory += quantity.MilliValue(object.String(overhead["memory"]))
	return out
}

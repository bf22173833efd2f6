// Package daemonset is kube-controller-manager's DaemonSet controller as an
// API client of the core (system:serviceaccount:kube-system:daemon-set-
// controller): one Pod of each DaemonSet's template on every node it fits
// (its nodeSelector and affinity, the node's taints against its tolerations
// and those kube adds to daemon Pods), pinned there by node affinity and
// bound by the scheduler; a new template rolls out node by node within
// maxUnavailable (or waits for Pods to be deleted, OnDelete), each template
// kept as a ControllerRevision for `kubectl rollout history`; the status
// counts the nodes scheduled, misscheduled, ready, updated and available.
package daemonset

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/web"
)

type (
	daemonSet = controllers.DaemonSet
	pod       = controllers.Pod
	node      = controllers.Node
	revision  = controllers.ControllerRevision
)

// daemonTolerations are the tolerations kube gives every daemon Pod, so that
// it runs on nodes others avoid.
var daemonTolerations = []controllers.Toleration{
	{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute"},
	{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: "NoExecute"},
	{Key: "node.kubernetes.io/disk-pressure", Operator: "Exists", Effect: "NoSchedule"},
	{Key: "node.kubernetes.io/memory-pressure", Operator: "Exists", Effect: "NoSchedule"},
	{Key: "node.kubernetes.io/pid-pressure", Operator: "Exists", Effect: "NoSchedule"},
	{Key: "node.kubernetes.io/unschedulable", Operator: "Exists", Effect: "NoSchedule"},
}

// Controller is the DaemonSet controller.
type Controller struct {
	controllers.Base
	sets      *client.TypedInformer[*daemonSet]
	pods      *client.TypedInformer[*pod]
	nodes     *client.TypedInformer[*node]
	revisions *client.TypedInformer[*revision]
}

// New is the DaemonSet controller, acting through h.
func New(h web.Handler, clk clock.Clock) *Controller {
	dc := &Controller{Base: controllers.NewBase(h, clk, "daemon-set-controller", "daemonset-controller")}
	enqueue := controllers.QueueKey[daemonSet](dc.Queue)
	dc.sets = client.NewTypedInformer(dc.C, "/apis/apps/v1/daemonsets", controllers.Codec[daemonSet](),
		controllers.OnChange(enqueue), map[string]func(*daemonSet) []string{"uid": controllers.ByUID[daemonSet]}, clk)
	dc.pods = controllers.Owned[pod](dc.Base, "/api/v1/pods", dc.sets)
	dc.nodes = client.NewTypedInformer(dc.C, "/api/v1/nodes", controllers.Codec[node](),
		controllers.OnChange(func(*node) {
			for _, ds := range dc.sets.List() {
				enqueue(ds)
			}
		}), nil, clk)
	dc.revisions = client.NewTypedInformer(dc.C, "/apis/apps/v1/controllerrevisions", controllers.Codec[revision](),
		client.TypedHandler[*revision]{}, map[string]func(*revision) []string{"controller": controllers.ByController[revision]}, clk)
	return dc
}

// Run works until ctx is done.
func (dc *Controller) Run(ctx context.Context) {
	controllers.Run(ctx, dc.Queue, dc.sync, dc.sets, dc.pods, dc.nodes, dc.revisions)
}

func (dc *Controller) sync(ctx context.Context, key string) error {
	ds, ok := dc.sets.Get(key)
	if !ok {
		dc.Expect.Forget(key)
		return nil
	}
	if !dc.Expect.Satisfied(key) || ds.Metadata.DeletionTimestamp != "" {
		return nil
	}
	revisions := controllers.Revisions{C: dc.C, Owner: &ds.Metadata, APIVersion: "apps/v1", Kind: "DaemonSet",
		Expect: func(rv string) { dc.Expect.Written(key, dc.revisions, rv) }, HashLabel: controllers.DaemonSetHashLabel}
	rev, err := revisions.Sync(ctx, ds.Spec.Template, ds.Status.CollisionCount, ds.Spec.RevisionHistoryLimit, dc.revisions.ByIndex("controller", ds.Metadata.UID))
	if err != nil {
		return err
	}
	hash := revisions.RevisionHash(rev)
	var template struct {
		Spec controllers.PodSpec `json:"spec"`
	}
	_ = json.Unmarshal(ds.Spec.Template, &template)
	template.Spec.Tolerations = append(template.Spec.Tolerations, daemonTolerations...)
	byNode := map[string][]*pod{}
	var failed []*pod
	for _, p := range dc.pods.ByIndex("controller", ds.Metadata.UID) {
		switch {
		case p.Metadata.DeletionTimestamp != "":
		case p.Status.Phase == "Failed":
			failed = append(failed, p)
		default:
			byNode[nodeOf(p)] = append(byNode[nodeOf(p)], p)
		}
	}
	ref := controllers.Ref(&ds.Metadata, "apps/v1", "DaemonSet")
	// A failed daemon Pod is killed (and, the node left without one, replaced
	// below), as kube's podsShouldBeOnNode does.
	for _, p := range failed {
		if fits(&template.Spec, dc.nodeNamed(nodeOf(p))) {
			dc.Events.Eventf(ctx, ref, controllers.Warning, "FailedDaemonPod", "Found failed daemon pod %s/%s on node %s, will try to kill it",
				p.Metadata.Namespace, p.Metadata.Name, nodeOf(p))
		}
	}
	var status controllers.DaemonSetStatus
	var create []string
	var old []*pod
	unavailable := 0
	for _, n := range dc.nodes.List() {
		pods := byNode[n.Metadata.Name]
		delete(byNode, n.Metadata.Name)
		if !fits(&template.Spec, n) {
			status.NumberMisscheduled += int64(len(pods))
			old = append(old, pods...) // delete them
			continue
		}
		status.DesiredNumberScheduled++
		if len(pods) == 0 {
			create = append(create, n.Metadata.Name)
			unavailable++
			continue
		}
		slices.SortFunc(pods, func(a, b *pod) int {
			return strings.Compare(a.Metadata.CreationTimestamp, b.Metadata.CreationTimestamp)
		})
		old = append(old, pods[1:]...) // one a node
		p := pods[0]
		status.CurrentNumberScheduled++
		if p.Ready() {
			status.NumberReady++
		}
		if p.Available(ds.Spec.MinReadySeconds, dc.Clock.Now()) {
			status.NumberAvailable++
		} else {
			unavailable++
		}
		if p.Metadata.Labels["controller-revision-hash"] == hash {
			status.UpdatedNumberScheduled++
		} else if ds.Spec.UpdateStrategy.Type != "OnDelete" {
			old = append(old, p) // rolled out below, within maxUnavailable
		}
	}
	for _, pods := range byNode { // Pods on nodes that are gone
		old = append(old, pods...)
	}
	status.NumberUnavailable = status.DesiredNumberScheduled - status.NumberAvailable
	maxUnavailable := int64(1)
	if ru := ds.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		maxUnavailable = scaled(ru.MaxUnavailable, status.DesiredNumberScheduled)
	}
	for _, p := range append(failed, old...) {
		outdated := p.Status.Phase != "Failed" && p.Metadata.Labels["controller-revision-hash"] != hash && fits(&template.Spec, dc.nodeNamed(nodeOf(p)))
		if outdated {
			if int64(unavailable) >= maxUnavailable && p.Available(ds.Spec.MinReadySeconds, dc.Clock.Now()) {
				continue
			}
			if p.Available(ds.Spec.MinReadySeconds, dc.Clock.Now()) {
				unavailable++
			}
		}
		if _, err := dc.C.Delete(ctx, "/api/v1/namespaces/"+p.Metadata.Namespace+"/pods/"+p.Metadata.Name); err != nil && !client.IsNotFound(err) {
			return err
		}
		controllers.Deleted(dc.Expect, key, dc.pods, p)
		dc.Events.Eventf(ctx, ref, controllers.Normal, "SuccessfulDelete", "Deleted pod: %s", p.Metadata.Name)
	}
	generation := ds.Metadata.Annotations["deprecated.daemonset.template.generation"]
	for _, name := range create {
		p := controllers.PodFromTemplate(ds.Spec.Template, ds.Metadata.Name+"-", controllers.OwnerRef(&ds.Metadata, "apps/v1", "DaemonSet"))
		daemonPod(p, name, hash, generation)
		created, err := dc.C.Create(ctx, "/api/v1/namespaces/"+ds.Metadata.Namespace+"/pods", p)
		if err != nil {
			dc.Events.Eventf(ctx, ref, controllers.Warning, "FailedCreate", "Error creating: %s", controllers.Message(err))
			return err
		}
		meta := created["metadata"].(map[string]any)
		dc.Expect.Written(key, dc.pods, meta["resourceVersion"].(string))
		dc.Events.Eventf(ctx, ref, controllers.Normal, "SuccessfulCreate", "Created pod: %s", meta["name"])
	}
	status.ObservedGeneration = ds.Metadata.Generation
	status.CollisionCount = ds.Status.CollisionCount
	if controllers.MustJSON(status) == controllers.MustJSON(ds.Status) {
		return nil
	}
	next := *ds
	next.Status = status
	if _, err := controllers.Send(ctx, dc.C, web.MethodPut, "/apis/apps/v1/namespaces/"+ds.Metadata.Namespace+"/daemonsets/"+ds.Metadata.Name+"/status", &next); err != nil && !client.IsNotFound(err) {
		return err
	}
	return nil
}

func (dc *Controller) nodeNamed(name string) *node {
	n, ok := dc.nodes.Get(name)
	if !ok {
		return &node{}
	}
	return n
}

// fits says whether a daemon Pod of spec runs on n: its node selector and
// affinity, and n's NoSchedule and NoExecute taints against its tolerations.
func fits(spec *controllers.PodSpec, n *node) bool {
	if n.Metadata.Name == "" || !controllers.MatchesNode(spec, n) {
		return false
	}
	for _, t := range n.Spec.Taints {
		if (t.Effect == "NoSchedule" || t.Effect == "NoExecute") && !controllers.Tolerates(spec.Tolerations, t) {
			return false
		}
	}
	return true
}

// nodeOf is the node a daemon Pod is for: the one its affinity names.
func nodeOf(p *pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.Required != nil {
		for _, t := range a.NodeAffinity.Required.Terms {
			for _, f := range t.MatchFields {
				if f.Key == "metadata.name" && len(f.Values) == 1 {
					return f.Values[0]
				}
			}
		}
	}
	return ""
}

// daemonPod makes a Pod from the template a daemon Pod for node: the
// revision and template generation labels, the daemon tolerations, and node
// affinity to node alone.
func daemonPod(p object.Object, node, hash, generation string) {
	meta := p["metadata"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
	}
	labels["controller-revision-hash"], labels["pod-template-generation"] = hash, generation
	meta["labels"] = labels
	spec, _ := p["spec"].(map[string]any)
	tolerations, _ := spec["tolerations"].([]any)
	for _, t := range daemonTolerations {
		tolerations = append(tolerations, map[string]any{"key": t.Key, "operator": t.Operator, "effect": t.Effect})
	}
	spec["tolerations"] = tolerations
	spec["affinity"] = map[string]any{"nodeAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{
		"nodeSelectorTerms": []any{map[string]any{"matchFields": []any{map[string]any{"key": "metadata.name", "operator": "In", "values": []any{node}}}}}}}}
}

// scaled is an int or a percentage of total (rounded up, as kube rounds a
// DaemonSet's maxUnavailable), at least 1.
func scaled(v json.RawMessage, total int64) int64 {
	var percent string
	if json.Unmarshal(v, &percent) != nil {
		return max(object.Int(string(v)), 1)
	}
	p, _ := strconv.ParseInt(strings.TrimSuffix(percent, "%"), 10, 64)
	return max((p*total+99)/100, 1)
}

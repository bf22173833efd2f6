// Package replicaset is kube-controller-manager's ReplicaSet controller and
// its replication manager (the same controller over ReplicationControllers,
// as kube's is), each an API client of the core with its own identity
// (system:serviceaccount:kube-system:replicaset-controller,
// :replication-controller): it claims the Pods of its namespace its selector
// matches (adopting orphans, releasing those it controls that no longer
// match), keeps as many of them as it asks for, creating them (named after
// it, owned by it: controller and blockOwnerDeletion) in slow-start batches
// and deleting the least valuable first in kube's order, records
// SuccessfulCreate and SuccessfulDelete events, and reports replicas,
// fullyLabeledReplicas, readyReplicas, availableReplicas (minReadySeconds
// included), observedGeneration and a ReplicaFailure condition when a Pod
// could not be created or deleted.
package replicaset

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/web"
)

// burstReplicas is how many Pods one sync creates or deletes at most, as kube's.
const burstReplicas = 500

type (
	replicaSet = controllers.ReplicaSet
	pod        = controllers.Pod
)

// kind is what the controller manages: ReplicaSets or ReplicationControllers.
type kind struct {
	prefix, resource string // "/apis/apps/v1", "replicasets"
	apiVersion, name string // "apps/v1", "ReplicaSet"
	account          string // its service account, and its events' component
	decode           func(data []byte) (*replicaSet, error)
}

var replicaSets = kind{"/apis/apps/v1", "replicasets", "apps/v1", "ReplicaSet", "replicaset-controller", controllers.Read[replicaSet]}

var replicationControllers = kind{"/api/v1", "replicationcontrollers", "v1", "ReplicationController", "replication-controller", readRC}

// readRC reads a ReplicationController as the ReplicaSet it stands for, as
// kube's replication manager converts it: its selector of labels as
// matchLabels.
func readRC(data []byte) (*replicaSet, error) {
	var rc struct {
		Metadata controllers.ObjectMeta `json:"metadata"`
		Spec     struct {
			Replicas        *int64            `json:"replicas"`
			MinReadySeconds int64             `json:"minReadySeconds"`
			Selector        map[string]string `json:"selector"`
			Template        json.RawMessage   `json:"template"`
		} `json:"spec"`
		Status controllers.ReplicaSetStatus `json:"status"`
	}
	err := json.Unmarshal(data, &rc)
	rs := &replicaSet{Object: controllers.Object{Metadata: rc.Metadata, Raw: data}, Status: rc.Status}
	rs.Spec.Replicas, rs.Spec.MinReadySeconds, rs.Spec.Template = rc.Spec.Replicas, rc.Spec.MinReadySeconds, rc.Spec.Template
	rs.Spec.Selector.MatchLabels = rc.Spec.Selector
	return rs, err
}

func (k kind) path(ns, name string) string {
	return k.prefix + "/namespaces/" + ns + "/" + k.resource + "/" + name
}

// Controller is the ReplicaSet controller, or the replication manager.
type Controller struct {
	controllers.Base
	kind kind
	sets *client.TypedInformer[*replicaSet]
	pods *client.TypedInformer[*pod]
}

// New is the ReplicaSet controller, acting through h.
func New(h web.Handler, clk clock.Clock) *Controller { return newController(h, clk, replicaSets) }

// NewReplicationManager is the ReplicationController controller, acting
// through h.
func NewReplicationManager(h web.Handler, clk clock.Clock) *Controller {
	return newController(h, clk, replicationControllers)
}

func newController(h web.Handler, clk clock.Clock, k kind) *Controller {
	rc := &Controller{Base: controllers.NewBase(h, clk, k.account, k.account), kind: k}
	codec := client.Codec[*replicaSet]{Decode: k.decode,
		Key: func(rs *replicaSet) string { return rs.Metadata.Key() }, Version: func(rs *replicaSet) string { return rs.Metadata.ResourceVersion }}
	rc.sets = controllers.OwnersOf(rc.Base, k.prefix+"/"+k.resource, codec)
	rc.pods = controllers.Claimable[pod](rc.Base, "/api/v1/pods", rc.sets, func(rs *replicaSet, labels map[string]string) bool {
		return rs.Spec.Selector.Selects(labels)
	})
	return rc
}

// Run works until ctx is done.
func (rc *Controller) Run(ctx context.Context) {
	controllers.Run(ctx, rc.Queue, rc.sync, rc.sets, rc.pods)
}

func (rc *Controller) sync(ctx context.Context, key string) error {
	rs, ok := rc.sets.Get(key)
	if !ok {
		rc.Expect.Forget(key)
		return nil
	}
	var active []*pod
	for _, p := range rc.pods.ByIndex("namespace", rs.Metadata.Namespace) {
		if p.Active() {
			active = append(active, p)
		}
	}
	claim := &controllers.Claim{C: rc.C, Owner: &rs.Metadata, APIVersion: rc.kind.apiVersion, Kind: rc.kind.name,
		Path: rc.kind.path(rs.Metadata.Namespace, rs.Metadata.Name), Selects: rs.Spec.Selector.Selects,
		Prefix: "/api/v1", Resource: "pods", Of: "Pod"}
	pods, err := controllers.Claimed(ctx, claim, active)
	if err != nil {
		return err
	}
	var manageErr error
	if rc.Expect.Satisfied(key) && rs.Metadata.DeletionTimestamp == "" {
		manageErr = rc.manage(ctx, key, rs, pods)
	}
	now := rc.Clock.Now()
	status := rc.status(rs, pods, manageErr, now)
	if !equalStatus(status, rs.Status) || rs.Metadata.Generation != rs.Status.ObservedGeneration {
		status.ObservedGeneration = rs.Metadata.Generation
		path := rc.kind.path(rs.Metadata.Namespace, rs.Metadata.Name) + "/status"
		if _, err := controllers.Update(ctx, rc.C, path, rs.Raw, func(o object.Object) { o["status"] = status }); err != nil && !client.IsNotFound(err) {
			return err
		}
	}
	// Pods ready but not yet available for minReadySeconds: look again then.
	replicas := controllers.Replicas(rs.Spec.Replicas)
	if minReady := rs.Spec.MinReadySeconds; manageErr == nil && minReady > 0 && status.ReadyReplicas == replicas && status.AvailableReplicas != replicas {
		rc.Queue.AddAfter(key, time.Duration(minReady)*time.Second)
	}
	return manageErr
}

// manage creates or deletes Pods until the ReplicaSet has as many as it asks for.
func (rc *Controller) manage(ctx context.Context, key string, rs *replicaSet, pods []*pod) error {
	diff := len(pods) - int(controllers.Replicas(rs.Spec.Replicas))
	ns := rs.Metadata.Namespace
	ref := controllers.Ref(&rs.Metadata, rc.kind.apiVersion, rc.kind.name)
	switch {
	case diff < 0:
		owner := controllers.OwnerRef(&rs.Metadata, rc.kind.apiVersion, rc.kind.name)
		// Slow start: batches of 1, 2, 4, ... so that a failing template
		// fails once, not a hundred times.
		left := min(-diff, burstReplicas)
		for batch := 1; left > 0; batch *= 2 {
			for range min(batch, left) {
				created, err := rc.C.Create(ctx, "/api/v1/namespaces/"+ns+"/pods", controllers.PodFromTemplate(rs.Spec.Template, rs.Metadata.Name+"-", owner))
				if err != nil {
					rc.Events.Eventf(ctx, ref, controllers.Warning, "FailedCreate", "Error creating: %s", controllers.Message(err))
					return err
				}
				meta := created["metadata"].(map[string]any)
				rc.Expect.Written(key, rc.pods, meta["resourceVersion"].(string))
				rc.Events.Eventf(ctx, ref, controllers.Normal, "SuccessfulCreate", "Created pod: %s", meta["name"])
				left--
			}
		}
	case diff > 0:
		slices.SortStableFunc(pods, deletionOrder(pods))
		for _, p := range pods[:min(diff, burstReplicas)] {
			if _, err := rc.C.Delete(ctx, "/api/v1/namespaces/"+ns+"/pods/"+p.Metadata.Name); err != nil {
				if client.IsNotFound(err) {
					continue
				}
				rc.Events.Eventf(ctx, ref, controllers.Warning, "FailedDelete", "Error deleting: %s", controllers.Message(err))
				return err
			}
			controllers.Deleted(rc.Expect, key, rc.pods, p)
			rc.Events.Eventf(ctx, ref, controllers.Normal, "SuccessfulDelete", "Deleted pod: %s", p.Metadata.Name)
		}
	}
	return nil
}

// status is the ReplicaSet's status for its active Pods, as kube's
// calculateStatus makes it; a failure to manage them is its ReplicaFailure
// condition.
func (rc *Controller) status(rs *replicaSet, pods []*pod, manageErr error, now time.Time) controllers.ReplicaSetStatus {
	status := rs.Status
	status.Replicas, status.FullyLabeledReplicas, status.ReadyReplicas, status.AvailableReplicas = int64(len(pods)), 0, 0, 0
	var template struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(rs.Spec.Template, &template)
	for _, p := range pods {
		labelled := true
		for k, v := range template.Metadata.Labels {
			labelled = labelled && p.Metadata.Labels[k] == v
		}
		if labelled {
			status.FullyLabeledReplicas++
		}
		if p.Ready() {
			status.ReadyReplicas++
			if p.Available(rs.Spec.MinReadySeconds, now) {
				status.AvailableReplicas++
			}
		}
	}
	failure := controllers.FindCondition(status.Conditions, "ReplicaFailure")
	switch {
	case manageErr != nil && failure == nil:
		reason := "FailedCreate"
		if len(pods) > int(controllers.Replicas(rs.Spec.Replicas)) {
			reason = "FailedDelete"
		}
		status.Conditions = append(slices.Clone(status.Conditions), controllers.Condition{Type: "ReplicaFailure", Status: "True",
			LastTransitionTime: object.Timestamp(now), Reason: reason, Message: controllers.Message(manageErr)})
	case manageErr == nil && failure != nil:
		status.Conditions = slices.DeleteFunc(slices.Clone(status.Conditions), func(c controllers.Condition) bool { return c.Type == "ReplicaFailure" })
	}
	return status
}

func equalStatus(a, b controllers.ReplicaSetStatus) bool {
	return a.Replicas == b.Replicas && a.FullyLabeledReplicas == b.FullyLabeledReplicas && a.ReadyReplicas == b.ReadyReplicas &&
		a.AvailableReplicas == b.AvailableReplicas && slices.EqualFunc(a.Conditions, b.Conditions, func(x, y controllers.Condition) bool {
		return x.Type == y.Type && x.Status == y.Status && x.Reason == y.Reason
	})
}

// deletionOrder is kube's ActivePodsWithRanks order: the Pods to delete first
// come first: not yet scheduled, pending, not ready, cheaper to delete, on a
// node with more of the ReplicaSet's Pods, ready for less time, restarted
// more, newer.
func deletionOrder(pods []*pod) func(a, b *pod) int {
	onNode := map[string]int{}
	for _, p := range pods {
		onNode[p.Spec.NodeName]++
	}
	phase := map[string]int{"Pending": 0, "Unknown": 1, "Running": 2}
	first := func(a, b bool) int { // a first
		return cmp.Compare(boolInt(!a), boolInt(!b))
	}
	return func(a, b *pod) int {
		an, bn := a.Spec.NodeName, b.Spec.NodeName
		switch {
		case an != bn && (an == "" || bn == ""):
			return first(an == "", bn == "")
		case phase[a.Status.Phase] != phase[b.Status.Phase]:
			return phase[a.Status.Phase] - phase[b.Status.Phase]
		case a.Ready() != b.Ready():
			return first(!a.Ready(), !b.Ready())
		case deletionCost(a) != deletionCost(b):
			return cmp.Compare(deletionCost(a), deletionCost(b))
		case onNode[an] != onNode[bn]:
			return onNode[bn] - onNode[an]
		}
		if a.Ready() {
			ta := controllers.FindCondition(a.Status.Conditions, "Ready").LastTransitionTime
			tb := controllers.FindCondition(b.Status.Conditions, "Ready").LastTransitionTime
			if ta != tb {
				return cmp.Compare(tb, ta) // the later, the sooner
			}
		}
		if ra, rb := restarts(a), restarts(b); ra != rb {
			return cmp.Compare(rb, ra)
		}
		return cmp.Or(cmp.Compare(b.Metadata.CreationTimestamp, a.Metadata.CreationTimestamp), cmp.Compare(a.Metadata.UID, b.Metadata.UID))
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func deletionCost(p *pod) int64 {
	n, _ := strconv.ParseInt(p.Metadata.Annotations["controller.kubernetes.io/pod-deletion-cost"], 10, 32)
	return n
}

// restarts is the most restarts of one of the Pod's containers.
func restarts(p *pod) int64 {
	var most int64
	for _, cs := range p.Status.ContainerStatuses {
		most = max(most, cs.RestartCount)
	}
	return most
}

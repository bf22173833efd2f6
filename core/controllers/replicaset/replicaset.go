// Package replicaset is kube-controller-manager's ReplicaSet controller as an
// API client of the core (system:serviceaccount:kube-system:replicaset-
// controller): it keeps as many Pods of each ReplicaSet's template as it asks
// for, creating them (named after the ReplicaSet, owned by it: controller and
// blockOwnerDeletion) in slow-start batches and deleting the least valuable
// first in kube's order, records SuccessfulCreate and SuccessfulDelete
// events, and reports replicas, fullyLabeledReplicas, readyReplicas,
// availableReplicas (minReadySeconds included) and observedGeneration.
package replicaset

import (
	"context"
	"slices"
	"strconv"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/registry"
	"kubeplay/core/web"
)

// burstReplicas is how many Pods one sync creates or deletes at most, as kube's.
const burstReplicas = 500

// Controller is the ReplicaSet controller.
type Controller struct {
	c      *client.Client
	events *controllers.Recorder
	clock  clock.Clock
	sets   *client.Informer
	pods   *client.Informer
	queue  *controllers.Queue
	expect *controllers.Expectations
}

// New is the ReplicaSet controller, acting through h.
func New(h web.Handler, clk clock.Clock) *Controller {
	c := controllers.NewClient(h, "replicaset-controller")
	rc := &Controller{c: c, clock: clk, events: controllers.NewRecorder(c, clk, "replicaset-controller", ""),
		queue: controllers.NewQueue(clk), expect: controllers.NewExpectations()}
	enqueue := func(rs object.Object) { rc.queue.Add(client.Key(rs)) }
	rc.sets = client.NewInformer(c, "/apis/apps/v1/replicasets", client.Handler{
		Add: enqueue, Update: func(_, rs object.Object) { enqueue(rs) }, Delete: enqueue,
	}, map[string]client.IndexFunc{"uid": func(o object.Object) []string { return []string{object.MetaString(o, "uid")} }}, clk)
	owner := func(pod object.Object) {
		if uid := controllers.ControllerOf(pod); uid != "" {
			for _, rs := range rc.sets.ByIndex("uid", uid) {
				enqueue(rs)
			}
		}
	}
	rc.pods = client.NewInformer(c, "/api/v1/pods", client.Handler{
		Add: owner, Update: func(_, pod object.Object) { owner(pod) }, Delete: owner,
	}, map[string]client.IndexFunc{"controller": controllers.ByController}, clk)
	return rc
}

// Run works until ctx is done.
func (rc *Controller) Run(ctx context.Context) {
	go rc.sets.Run(ctx)
	go rc.pods.Run(ctx)
	if controllers.Synced(ctx, rc.sets, rc.pods) {
		rc.queue.Run(ctx, rc.sync)
	}
}

func (rc *Controller) sync(ctx context.Context, key string) error {
	cur, ok := rc.sets.Get(key)
	if !ok {
		rc.expect.Forget(key)
		return nil
	}
	rs := object.DeepCopy(cur)
	var pods []object.Object
	for _, pod := range rc.pods.ByIndex("controller", object.MetaString(rs, "uid")) {
		if controllers.PodActive(pod) {
			pods = append(pods, pod)
		}
	}
	var manageErr error
	if rc.expect.Satisfied(key) && object.Meta(rs)["deletionTimestamp"] == nil {
		manageErr = rc.manage(ctx, key, rs, pods)
	}
	now := rc.clock.Now()
	status := rc.status(rs, pods, manageErr, now)
	if !object.Equal(status, rs["status"]) {
		rs["status"] = status
		if _, err := rc.c.Update(ctx, "/apis/apps/v1/namespaces/"+object.MetaString(rs, "namespace")+"/replicasets/"+object.MetaString(rs, "name")+"/status", rs); err != nil && !client.IsNotFound(err) {
			return err
		}
	}
	// Pods ready but not yet available for minReadySeconds: look again then.
	replicas := controllers.Replicas(rs, "spec", "replicas")
	if minReady := controllers.Replicas(rs, "spec", "minReadySeconds"); manageErr == nil && minReady > 0 &&
		controllers.Replicas(rs, "status", "readyReplicas") == replicas && controllers.Replicas(rs, "status", "availableReplicas") != replicas {
		rc.queue.AddAfter(key, time.Duration(minReady)*time.Second)
	}
	return manageErr
}

// manage creates or deletes Pods until the ReplicaSet has as many as it asks for.
func (rc *Controller) manage(ctx context.Context, key string, rs object.Object, pods []object.Object) error {
	diff := len(pods) - int(controllers.Replicas(rs, "spec", "replicas"))
	ns, name := object.MetaString(rs, "namespace"), object.MetaString(rs, "name")
	ref := controllers.Ref(rs, "apps/v1", "ReplicaSet")
	switch {
	case diff < 0:
		template, _ := object.Path(rs, "spec", "template").(map[string]any)
		owner := controllers.OwnerRef(rs, "apps/v1", "ReplicaSet")
		// Slow start: batches of 1, 2, 4, ... so that a failing template
		// fails once, not a hundred times.
		left := min(-diff, burstReplicas)
		for batch := 1; left > 0; batch *= 2 {
			for range min(batch, left) {
				pod := controllers.PodFromTemplate(template, name+"-", owner)
				created, err := rc.c.Create(ctx, "/api/v1/namespaces/"+ns+"/pods", pod)
				if err != nil {
					rc.events.Eventf(ctx, ref, controllers.Warning, "FailedCreate", "Error creating: %s", controllers.Message(err))
					return err
				}
				rc.expect.Written(key, rc.pods, created)
				rc.events.Eventf(ctx, ref, controllers.Normal, "SuccessfulCreate", "Created pod: %s", object.MetaString(created, "name"))
				left--
			}
		}
	case diff > 0:
		slices.SortStableFunc(pods, deletionOrder(pods, rc.clock.Now()))
		for _, pod := range pods[:min(diff, burstReplicas)] {
			podName := object.MetaString(pod, "name")
			if _, err := rc.c.Delete(ctx, "/api/v1/namespaces/"+ns+"/pods/"+podName); err != nil {
				if client.IsNotFound(err) {
					continue
				}
				rc.events.Eventf(ctx, ref, controllers.Warning, "FailedDelete", "Error deleting: %s", controllers.Message(err))
				return err
			}
			rc.expect.Deleted(key, rc.pods, pod)
			rc.events.Eventf(ctx, ref, controllers.Normal, "SuccessfulDelete", "Deleted pod: %s", podName)
		}
	}
	return nil
}

// status is the ReplicaSet's status for its active Pods, as kube's
// calculateStatus makes it; a failure to manage them is its ReplicaFailure
// condition.
func (rc *Controller) status(rs object.Object, pods []object.Object, manageErr error, now time.Time) map[string]any {
	old, _ := rs["status"].(map[string]any)
	status := map[string]any{"replicas": len(pods)}
	templateMeta, _ := object.Path(rs, "spec", "template", "metadata").(map[string]any)
	template := object.StringMap(templateMeta, "labels")
	minReady := controllers.Replicas(rs, "spec", "minReadySeconds")
	var labelled, ready, available int
	for _, pod := range pods {
		labels := object.Labels(pod)
		matches := true
		for k, v := range template {
			matches = matches && labels[k] == v
		}
		if matches {
			labelled++
		}
		if controllers.PodReady(pod) {
			ready++
			if controllers.PodAvailable(pod, minReady, now) {
				available++
			}
		}
	}
	for k, n := range map[string]int{"fullyLabeledReplicas": labelled, "readyReplicas": ready, "availableReplicas": available} {
		if n > 0 {
			status[k] = n
		}
	}
	if g := object.Meta(rs)["generation"]; g != nil {
		status["observedGeneration"] = g
	}
	var conditions []any
	failure := controllers.Condition(rs, "ReplicaFailure")
	for _, c := range object.Objects(old, "conditions") {
		if c["type"] != "ReplicaFailure" || manageErr != nil {
			conditions = append(conditions, c)
		}
	}
	if manageErr != nil && failure == nil {
		reason := "FailedCreate"
		if len(pods) > int(controllers.Replicas(rs, "spec", "replicas")) {
			reason = "FailedDelete"
		}
		conditions = append(conditions, map[string]any{"type": "ReplicaFailure", "status": "True",
			"lastTransitionTime": registry.Timestamp(now), "reason": reason, "message": controllers.Message(manageErr)})
	}
	if len(conditions) > 0 {
		status["conditions"] = conditions
	}
	return status
}

// deletionOrder is kube's ActivePodsWithRanks order: the Pods to delete first
// come first: not yet scheduled, pending, not ready, cheaper to delete, on a
// node with more of the ReplicaSet's Pods, ready for less time, restarted
// more, newer.
func deletionOrder(pods []object.Object, now time.Time) func(a, b object.Object) int {
	onNode := map[string]int{}
	for _, p := range pods {
		onNode[object.String(object.Path(p, "spec", "nodeName"))]++
	}
	phase := map[any]int{"Pending": 0, "Unknown": 1, "Running": 2}
	return func(a, b object.Object) int {
		an, bn := object.String(object.Path(a, "spec", "nodeName")), object.String(object.Path(b, "spec", "nodeName"))
		if an != bn && (an == "" || bn == "") {
			return boolOrder(an == "", bn == "")
		}
		if pa, pb := phase[object.Path(a, "status", "phase")], phase[object.Path(b, "status", "phase")]; pa != pb {
			return pa - pb
		}
		if ra, rb := controllers.PodReady(a), controllers.PodReady(b); ra != rb {
			return boolOrder(!ra, !rb)
		}
		if ca, cb := deletionCost(a), deletionCost(b); ca != cb {
			return cmpInt(ca, cb)
		}
		if ka, kb := onNode[an], onNode[bn]; ka != kb {
			return kb - ka
		}
		if controllers.PodReady(a) {
			ta, tb := readySince(a), readySince(b)
			if !ta.Equal(tb) {
				return tb.Compare(ta) // the later, the sooner
			}
		}
		if ra, rb := restarts(a), restarts(b); ra != rb {
			return cmpInt(rb, ra)
		}
		return created(b).Compare(created(a))
	}
}

func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func deletionCost(pod object.Object) int64 {
	n, _ := strconv.ParseInt(object.StringMap(object.Meta(pod), "annotations")["controller.kubernetes.io/pod-deletion-cost"], 10, 32)
	return n
}

func readySince(pod object.Object) time.Time {
	t, _ := time.Parse(time.RFC3339, object.String(controllers.Condition(pod, "Ready")["lastTransitionTime"]))
	return t
}

func created(pod object.Object) time.Time {
	t, _ := time.Parse(time.RFC3339, object.MetaString(pod, "creationTimestamp"))
	return t
}

// restarts is the most restarts of one of the Pod's containers.
func restarts(pod object.Object) int64 {
	var most int64
	status, _ := pod["status"].(map[string]any)
	for _, cs := range object.Objects(status, "containerStatuses") {
		most = max(most, object.Int(cs["restartCount"]))
	}
	return most
}

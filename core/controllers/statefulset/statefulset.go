// Package statefulset is kube-controller-manager's StatefulSet controller as
// an API client of the core (system:serviceaccount:kube-system:statefulset-
// controller): Pods named after the StatefulSet and their ordinal (web-0,
// web-1, ...), each with its hostname, the governing Service as subdomain,
// and a PersistentVolumeClaim per volumeClaimTemplate (www-web-0) made before
// it; with OrderedReady, created one at a time in ordinal order once the one
// before is Running and Ready, and removed from the highest ordinal down; a
// new template rolls out from the highest ordinal down, one Pod at a time,
// above the partition; revisions are kept as ControllerRevisions. Its events
// and status (replicas, ready, current and updated, the revisions) are
// kube's.
package statefulset

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/web"
)

type (
	statefulSet = controllers.StatefulSet
	pod         = controllers.Pod
	revision    = controllers.ControllerRevision
)

// Controller is the StatefulSet controller.
type Controller struct {
	controllers.Base
	sets      *client.TypedInformer[*statefulSet]
	pods      *client.TypedInformer[*pod]
	revisions *client.TypedInformer[*revision]
	claims    *client.TypedInformer[*controllers.Object]
}

// New is the StatefulSet controller, acting through h.
func New(h web.Handler, clk clock.Clock) *Controller {
	sc := &Controller{Base: controllers.NewBase(h, clk, "statefulset-controller", "statefulset-controller")}
	sc.sets = controllers.Owners[statefulSet](sc.Base, "/apis/apps/v1/statefulsets")
	sc.pods = controllers.Owned[pod](sc.Base, "/api/v1/pods", sc.sets)
	sc.revisions = client.NewTypedInformer(sc.C, "/apis/apps/v1/controllerrevisions", controllers.Codec[revision](),
		client.TypedHandler[*revision]{}, map[string]func(*revision) []string{"controller": controllers.ByController[revision]}, clk)
	sc.claims = client.NewTypedInformer(sc.C, "/api/v1/persistentvolumeclaims", controllers.Codec[controllers.Object](),
		client.TypedHandler[*controllers.Object]{}, nil, clk)
	return sc
}

// Run works until ctx is done.
func (sc *Controller) Run(ctx context.Context) {
	controllers.Run(ctx, sc.Queue, sc.sync, sc.sets, sc.pods, sc.revisions, sc.claims)
}

func (sc *Controller) sync(ctx context.Context, key string) error {
	set, ok := sc.sets.Get(key)
	if !ok {
		sc.Expect.Forget(key)
		return nil
	}
	if !sc.Expect.Satisfied(key) || set.Metadata.DeletionTimestamp != "" {
		return nil
	}
	rev, err := controllers.Revisions{C: sc.C, Owner: &set.Metadata, APIVersion: "apps/v1", Kind: "StatefulSet",
		Expect: func(rv string) { sc.Expect.Written(key, sc.revisions, rv) }, HashLabel: controllers.RevisionHashLabel}.
		Sync(ctx, set.Spec.Template, set.Status.CollisionCount, set.Spec.RevisionHistoryLimit, sc.revisions.ByIndex("controller", set.Metadata.UID))
	if err != nil {
		return err
	}
	// The current revision: the one the status names, while it exists.
	current := rev
	for _, cr := range sc.revisions.ByIndex("controller", set.Metadata.UID) {
		if cr.Metadata.Name == set.Status.CurrentRevision {
			current = cr
		}
	}
	replicas := int(controllers.Replicas(set.Spec.Replicas))
	byOrdinal := map[int]*pod{}
	for _, p := range sc.pods.ByIndex("controller", set.Metadata.UID) {
		if n, ok := ordinal(set.Metadata.Name, p.Metadata.Name); ok {
			byOrdinal[n] = p
		}
	}
	ordered := set.Spec.PodManagementPolicy != "Parallel"
	ref := controllers.Ref(&set.Metadata, "apps/v1", "StatefulSet")
	status := controllers.StatefulSetStatus{ObservedGeneration: set.Metadata.Generation, UpdateRevision: rev.Metadata.Name,
		CurrentRevision: current.Metadata.Name, CollisionCount: set.Status.CollisionCount}
	if status.CollisionCount == nil {
		zero := int64(0)
		status.CollisionCount = &zero
	}
	now := sc.Clock.Now()
	waiting := false // an earlier ordinal is not Running and Ready yet
	for i := range replicas {
		p := byOrdinal[i]
		switch {
		case p == nil && !(ordered && waiting):
			version := rev
			if keepsCurrent(set, i) {
				version = current
			}
			if err := sc.create(ctx, key, set, i, version, ref); err != nil {
				return err
			}
			waiting = true
			continue
		case p == nil:
			continue
		case p.Status.Phase == "Failed" || p.Status.Phase == "Succeeded":
			if err := sc.delete(ctx, key, set, p, ref); err != nil {
				return err
			}
			waiting = true
			continue
		}
		status.Replicas++
		if p.Ready() {
			status.ReadyReplicas++
			if p.Available(set.Spec.MinReadySeconds, now) {
				status.AvailableReplicas++
			}
		}
		if p.Metadata.Labels["controller-revision-hash"] == rev.Metadata.Name {
			status.UpdatedReplicas++
		}
		if p.Metadata.Labels["controller-revision-hash"] == status.CurrentRevision {
			status.CurrentReplicas++
		}
		waiting = waiting || p.Metadata.DeletionTimestamp != "" || !p.Ready() || p.Status.Phase != "Running"
	}
	// Scale down from the highest ordinal, one at a time when ordered.
	extra := []int{}
	for n := range byOrdinal {
		if n >= replicas {
			extra = append(extra, n)
		}
	}
	slices.Sort(extra)
	slices.Reverse(extra)
	for _, n := range extra {
		if ordered && waiting {
			break
		}
		p := byOrdinal[n]
		status.Replicas++
		if p.Metadata.DeletionTimestamp == "" {
			if err := sc.delete(ctx, key, set, p, ref); err != nil {
				return err
			}
		}
		waiting = true
	}
	// Roll the template out from the highest ordinal down, above the partition.
	if !waiting && set.Spec.UpdateStrategy.Type != "OnDelete" {
		partition := 0
		if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
			partition = int(*ru.Partition)
		}
		for i := replicas - 1; i >= partition; i-- {
			if p := byOrdinal[i]; p != nil && p.Metadata.Labels["controller-revision-hash"] != rev.Metadata.Name {
				if err := sc.delete(ctx, key, set, p, ref); err != nil {
					return err
				}
				break
			}
		}
	}
	if set.Spec.UpdateStrategy.Type != "OnDelete" && status.UpdatedReplicas == status.Replicas && status.ReadyReplicas == status.Replicas {
		status.CurrentRevision, status.CurrentReplicas = rev.Metadata.Name, status.UpdatedReplicas
	}
	if controllers.MustJSON(status) == controllers.MustJSON(set.Status) {
		return nil
	}
	next := *set
	next.Status = status
	if _, err := controllers.Send(ctx, sc.C, web.MethodPut, "/apis/apps/v1/namespaces/"+set.Metadata.Namespace+"/statefulsets/"+set.Metadata.Name+"/status", &next); err != nil && !client.IsNotFound(err) {
		return err
	}
	return nil
}

// keepsCurrent says whether Pod i, created now, is of the current revision
// rather than the update revision, as kube's newVersionedStatefulSetPod
// decides: below the rolling update's partition (or, without one, among the
// current replicas).
func keepsCurrent(set *statefulSet, i int) bool {
	strategy := set.Spec.UpdateStrategy
	if strategy.RollingUpdate == nil {
		return strategy.Type != "OnDelete" && int64(i) < set.Status.CurrentReplicas
	}
	return strategy.RollingUpdate.Partition != nil && int64(i) < *strategy.RollingUpdate.Partition
}

// template is the pod template a revision restores.
func template(cr *revision) json.RawMessage {
	var data struct {
		Spec struct {
			Template map[string]any `json:"template"`
		} `json:"spec"`
	}
	_ = json.Unmarshal(cr.Data, &data)
	delete(data.Spec.Template, "$patch")
	t, _ := json.Marshal(data.Spec.Template)
	return t
}

// ordinal is a Pod's ordinal in the StatefulSet called set.
func ordinal(set, name string) (int, bool) {
	if len(name) <= len(set)+1 || name[:len(set)+1] != set+"-" {
		return 0, false
	}
	n, err := strconv.Atoi(name[len(set)+1:])
	return n, err == nil && n >= 0
}

// create makes Pod i of set, of revision rev (its template), and its claims
// first.
func (sc *Controller) create(ctx context.Context, key string, set *statefulSet, i int, rev *revision, ref controllers.Reference) error {
	name := fmt.Sprintf("%s-%d", set.Metadata.Name, i)
	ns := set.Metadata.Namespace
	p := controllers.PodFromTemplate(template(rev), "", controllers.OwnerRef(&set.Metadata, "apps/v1", "StatefulSet"))
	meta := p["metadata"].(map[string]any)
	delete(meta, "generateName")
	meta["name"] = name
	labels, _ := meta["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
	}
	labels["controller-revision-hash"], labels["statefulset.kubernetes.io/pod-name"], labels["apps.kubernetes.io/pod-index"] = rev.Metadata.Name, name, strconv.Itoa(i)
	meta["labels"] = labels
	spec, _ := p["spec"].(map[string]any)
	spec["hostname"] = name
	if set.Spec.ServiceName != "" {
		spec["subdomain"] = set.Spec.ServiceName
	}
	volumes, _ := spec["volumes"].([]any)
	for _, t := range set.Spec.VolumeClaimTemplates {
		claim := t.Metadata.Name + "-" + name
		volumes = slices.DeleteFunc(volumes, func(v any) bool { return object.Path(v, "name") == t.Metadata.Name })
		volumes = append(volumes, map[string]any{"name": t.Metadata.Name, "persistentVolumeClaim": map[string]any{"claimName": claim}})
		if _, ok := sc.claims.Get(ns + "/" + claim); ok {
			continue
		}
		var claimSpec map[string]any
		_ = json.Unmarshal(t.Spec, &claimSpec)
		claimLabels := map[string]any{}
		for k, v := range t.Metadata.Labels {
			claimLabels[k] = v
		}
		for k, v := range set.Spec.Selector.MatchLabels {
			claimLabels[k] = v
		}
		pvc := object.Object{"apiVersion": "v1", "kind": "PersistentVolumeClaim",
			"metadata": map[string]any{"name": claim, "labels": claimLabels}, "spec": claimSpec}
		if _, err := sc.C.Create(ctx, "/api/v1/namespaces/"+ns+"/persistentvolumeclaims", pvc); err != nil && !client.IsConflict(err) {
			sc.Events.Eventf(ctx, ref, controllers.Warning, "FailedCreate", "create Claim %s for Pod %s in StatefulSet %s failed error: %s", claim, name, set.Metadata.Name, controllers.Message(err))
			return err
		}
		sc.Events.Eventf(ctx, ref, controllers.Normal, "SuccessfulCreate", "create Claim %s Pod %s in StatefulSet %s success", claim, name, set.Metadata.Name)
	}
	if len(volumes) > 0 {
		spec["volumes"] = volumes
	}
	created, err := sc.C.Create(ctx, "/api/v1/namespaces/"+ns+"/pods", p)
	if err != nil {
		if client.IsConflict(err) {
			return nil // the informer is behind
		}
		sc.Events.Eventf(ctx, ref, controllers.Warning, "FailedCreate", "create Pod %s in StatefulSet %s failed error: %s", name, set.Metadata.Name, controllers.Message(err))
		return err
	}
	sc.Expect.Written(key, sc.pods, created["metadata"].(map[string]any)["resourceVersion"].(string))
	sc.Events.Eventf(ctx, ref, controllers.Normal, "SuccessfulCreate", "create Pod %s in StatefulSet %s successful", name, set.Metadata.Name)
	return nil
}

func (sc *Controller) delete(ctx context.Context, key string, set *statefulSet, p *pod, ref controllers.Reference) error {
	if _, err := sc.C.Delete(ctx, "/api/v1/namespaces/"+p.Metadata.Namespace+"/pods/"+p.Metadata.Name); err != nil {
		if client.IsNotFound(err) {
			return nil
		}
		sc.Events.Eventf(ctx, ref, controllers.Warning, "FailedDelete", "delete Pod %s in StatefulSet %s failed error: %s", p.Metadata.Name, set.Metadata.Name, controllers.Message(err))
		return err
	}
	controllers.Deleted(sc.Expect, key, sc.pods, p)
	sc.Events.Eventf(ctx, ref, controllers.Normal, "SuccessfulDelete", "delete Pod %s in StatefulSet %s successful", p.Metadata.Name, set.Metadata.Name)
	return nil
}

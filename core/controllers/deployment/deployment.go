// Package deployment is kube-controller-manager's Deployment controller as an
// API client of the core (system:serviceaccount:kube-system:deployment-
// controller), following kube's pkg/controller/deployment: each Deployment
// owns a ReplicaSet per pod template (named after the template's
// pod-template-hash), scales the new one up and the old ones down within
// maxSurge and maxUnavailable (or all down first, for Recreate), scales them
// proportionally when the Deployment is scaled mid-rollout, keeps
// revisionHistoryLimit old ones, and records revisions in the
// deployment.kubernetes.io annotations that `kubectl rollout history` and
// `undo` read. Its status (replicas, updated, ready, available, unavailable,
// the Available and Progressing conditions, progressDeadlineSeconds) is what
// `kubectl rollout status` waits on, and its ScalingReplicaSet events are
// what `kubectl describe` shows.
package deployment

import (
	"context"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/web"
)

type (
	deployment = controllers.Deployment
	replicaSet = controllers.ReplicaSet
)

// Controller is the Deployment controller.
type Controller struct {
	controllers.Base
	deploys *client.TypedInformer[*deployment]
	sets    *client.TypedInformer[*replicaSet]
}

// New is the Deployment controller, acting through h.
func New(h web.Handler, clk clock.Clock) *Controller {
	dc := &Controller{Base: controllers.NewBase(h, clk, "deployment-controller", "deployment-controller")}
	dc.deploys = controllers.Owners[deployment](dc.Base, "/apis/apps/v1/deployments")
	dc.sets = controllers.Claimable[replicaSet](dc.Base, "/apis/apps/v1/replicasets", dc.deploys, func(d *deployment, labels map[string]string) bool {
		return d.Spec.Selector.Selects(labels)
	})
	return dc
}

// Run works until ctx is done.
func (dc *Controller) Run(ctx context.Context) {
	controllers.Run(ctx, dc.Queue, dc.sync, dc.deploys, dc.sets)
}

// sync is kube's syncDeployment.
func (dc *Controller) sync(ctx context.Context, key string) error {
	cur, ok := dc.deploys.Get(key)
	if !ok {
		dc.Expect.Forget(key)
		return nil
	}
	if !dc.Expect.Satisfied(key) {
		return nil // the informers bring our last writes, and the key back
	}
	d := *cur
	d.Status.Conditions = append([]controllers.Condition(nil), cur.Status.Conditions...)
	r := &rollout{dc: dc, ctx: ctx, key: key, d: &d, now: dc.Clock.Now()}
	if len(d.Spec.Selector.MatchLabels) == 0 && len(d.Spec.Selector.MatchExpressions) == 0 {
		dc.Events.Eventf(ctx, r.ref(), controllers.Warning, "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
		if d.Status.ObservedGeneration < d.Metadata.Generation {
			d.Status.ObservedGeneration = d.Metadata.Generation
			return r.updateStatus()
		}
		return nil
	}
	// getReplicaSetsForDeployment: the namespace's ReplicaSets claimed.
	var inNamespace []*replicaSet
	for _, rs := range dc.sets.ByIndex("namespace", d.Metadata.Namespace) {
		copied := *rs
		inNamespace = append(inNamespace, &copied)
	}
	claim := &controllers.Claim{C: dc.C, Owner: &d.Metadata, APIVersion: "apps/v1", Kind: "Deployment",
		Path: "/apis/apps/v1/namespaces/" + d.Metadata.Namespace + "/deployments/" + d.Metadata.Name, Selects: d.Spec.Selector.Selects,
		Prefix: "/apis/apps/v1", Resource: "replicasets", Of: "ReplicaSet"}
	sets, err := controllers.Claimed(ctx, claim, inNamespace)
	if err != nil {
		return err
	}
	r.sets = sets
	if d.Metadata.DeletionTimestamp != "" {
		return r.syncStatusOnly()
	}
	if err := r.checkPausedConditions(); err != nil {
		return err
	}
	if d.Spec.Paused {
		return r.sync()
	}
	scaling, err := r.isScalingEvent()
	if err != nil {
		return err
	}
	if scaling {
		return r.sync()
	}
	if d.Spec.Strategy.Type == "Recreate" {
		return r.rolloutRecreate()
	}
	return r.rolloutRolling()
}

// rollout is one sync of one Deployment: the Deployment and its ReplicaSets
// as this sync changes them.
type rollout struct {
	dc   *Controller
	ctx  context.Context
	key  string
	d    *deployment
	sets []*replicaSet
	now  time.Time
}

func (r *rollout) ref() controllers.Reference {
	return controllers.Ref(&r.d.Metadata, "apps/v1", "Deployment")
}

func (r *rollout) replicas() int64 { return controllers.Replicas(r.d.Spec.Replicas) }

func (r *rollout) setsPath() string {
	return "/apis/apps/v1/namespaces/" + r.d.Metadata.Namespace + "/replicasets"
}

// updateStatus writes the Deployment's status (and annotations, which the
// status subresource of Deployments takes too) and keeps the resourceVersion
// stored.
func (r *rollout) updateStatus() error {
	data, err := controllers.Send(r.ctx, r.dc.C, web.MethodPut,
		"/apis/apps/v1/namespaces/"+r.d.Metadata.Namespace+"/deployments/"+r.d.Metadata.Name+"/status", r.d)
	if err != nil {
		return err
	}
	r.d.Metadata.ResourceVersion = controllers.Version(data)
	r.dc.Expect.Written(r.key, r.dc.deploys, r.d.Metadata.ResourceVersion)
	return nil
}

// updateSet writes a ReplicaSet (all of its spec is in the struct) and keeps
// what was stored in rs.
func (r *rollout) updateSet(rs *replicaSet) error {
	data, err := controllers.Send(r.ctx, r.dc.C, web.MethodPut, r.setsPath()+"/"+rs.Metadata.Name, rs)
	if err != nil {
		return err
	}
	stored, err := controllers.Read[replicaSet](data)
	if err != nil {
		return err
	}
	*rs = *stored
	r.dc.Expect.Written(r.key, r.dc.sets, rs.Metadata.ResourceVersion)
	return nil
}

// syncStatusOnly is for a Deployment being deleted: its status only.
func (r *rollout) syncStatusOnly() error {
	newRS, oldRSs, err := r.allReplicaSets(false)
	if err != nil {
		return err
	}
	return r.syncDeploymentStatus(append(oldRSs, newRS), newRS)
}

// sync scales (a scaling event, or a paused Deployment) without rolling out.
func (r *rollout) sync() error {
	newRS, oldRSs, err := r.allReplicaSets(false)
	if err != nil {
		return err
	}
	if err := r.scale(newRS, oldRSs); err != nil {
		return err
	}
	if r.d.Spec.Paused {
		if err := r.cleanup(oldRSs); err != nil {
			return err
		}
	}
	return r.syncDeploymentStatus(append(oldRSs, newRS), newRS)
}

// checkPausedConditions records pausing and resuming in the Progressing
// condition, so that a paused Deployment never times out.
func (r *rollout) checkPausedConditions() error {
	if !r.hasProgressDeadline() {
		return nil
	}
	cond := controllers.FindCondition(r.d.Status.Conditions, "Progressing")
	if cond != nil && cond.Reason == timedOutReason {
		return nil
	}
	pausedCond := cond != nil && cond.Reason == "DeploymentPaused"
	switch {
	case r.d.Spec.Paused && !pausedCond:
		r.setCondition(&r.d.Status, "Progressing", "Unknown", "DeploymentPaused", "Deployment is paused")
	case !r.d.Spec.Paused && pausedCond:
		r.setCondition(&r.d.Status, "Progressing", "Unknown", "DeploymentResumed", "Deployment is resumed")
	default:
		return nil
	}
	return r.updateStatus()
}

// isScalingEvent: a ReplicaSet's desired-replicas annotation says the
// Deployment was scaled since.
func (r *rollout) isScalingEvent() (bool, error) {
	newRS, oldRSs, err := r.allReplicaSets(false)
	if err != nil {
		return false, err
	}
	for _, rs := range active(append(oldRSs, newRS)) {
		if desired, ok := annotationInt(rs, desiredReplicasAnnotation); ok && desired != r.replicas() {
			return true, nil
		}
	}
	return false, nil
}

// rolloutRolling is the RollingUpdate strategy: scale the new ReplicaSet up
// within maxSurge, then the old ones down within maxUnavailable.
func (r *rollout) rolloutRolling() error {
	newRS, oldRSs, err := r.allReplicaSets(true)
	if err != nil {
		return err
	}
	all := append(oldRSs, newRS)
	scaledUp, err := r.reconcileNewReplicaSet(all, newRS)
	if err != nil {
		return err
	}
	if scaledUp {
		return r.syncRolloutStatus(all, newRS)
	}
	if r.reconcileOldReplicaSets(all, active(oldRSs), newRS) {
		return r.syncRolloutStatus(all, newRS)
	}
	if r.complete(&r.d.Status) {
		if err := r.cleanup(oldRSs); err != nil {
			return err
		}
	}
	return r.syncRolloutStatus(all, newRS)
}

// rolloutRecreate is the Recreate strategy: every old Pod gone before the new
// ReplicaSet scales up.
func (r *rollout) rolloutRecreate() error {
	newRS, oldRSs, err := r.allReplicaSets(false)
	if err != nil {
		return err
	}
	all := append(oldRSs, newRS)
	scaledDown := false
	for _, rs := range active(oldRSs) {
		scaled, err := r.scaleReplicaSet(rs, 0)
		if err != nil {
			return err
		}
		scaledDown = scaledDown || scaled
	}
	if scaledDown || sum(oldRSs, statusReplicas) > 0 {
		return r.syncRolloutStatus(all, newRS)
	}
	if newRS == nil {
		if newRS, oldRSs, err = r.allReplicaSets(true); err != nil {
			return err
		}
		all = append(oldRSs, newRS)
	}
	if _, err := r.scaleReplicaSet(newRS, r.replicas()); err != nil {
		return err
	}
	if r.complete(&r.d.Status) {
		if err := r.cleanup(oldRSs); err != nil {
			return err
		}
	}
	return r.syncRolloutStatus(all, newRS)
}

// reconcileNewReplicaSet scales the new ReplicaSet as far up as maxSurge
// lets it (or down, to the Deployment's replicas).
func (r *rollout) reconcileNewReplicaSet(all []*replicaSet, newRS *replicaSet) (bool, error) {
	want := specReplicas(newRS)
	switch {
	case want == r.replicas():
		return false, nil
	case want > r.replicas():
		return r.scaleReplicaSet(newRS, r.replicas())
	}
	return r.scaleReplicaSet(newRS, r.newReplicas(all, newRS))
}

// newReplicas is what the new ReplicaSet may be scaled to (NewRSNewReplicas).
func (r *rollout) newReplicas(all []*replicaSet, newRS *replicaSet) int64 {
	if r.d.Spec.Strategy.Type == "Recreate" {
		return r.replicas()
	}
	maxTotal := r.replicas() + r.maxSurge()
	current := sum(all, specReplicas)
	if current >= maxTotal {
		return specReplicas(newRS)
	}
	return specReplicas(newRS) + min(maxTotal-current, r.replicas()-specReplicas(newRS))
}

// reconcileOldReplicaSets scales old ReplicaSets down as far as
// maxUnavailable lets it, their unhealthy Pods first, and says whether it
// did; a failure is left for the next sync, as kube does.
func (r *rollout) reconcileOldReplicaSets(all, oldRSs []*replicaSet, newRS *replicaSet) bool {
	if sum(oldRSs, specReplicas) == 0 {
		return false
	}
	minAvailable := r.replicas() - r.maxUnavailable()
	newUnavailable := specReplicas(newRS) - newRS.Status.AvailableReplicas
	maxScaledDown := sum(all, specReplicas) - minAvailable - newUnavailable
	if maxScaledDown <= 0 {
		return false
	}
	byCreation(oldRSs)
	var cleaned int64
	for _, rs := range oldRSs {
		replicas, available := specReplicas(rs), rs.Status.AvailableReplicas
		if cleaned >= maxScaledDown || replicas == 0 || replicas == available {
			continue
		}
		down := min(maxScaledDown-cleaned, replicas-available)
		if down < 0 { // more available than asked for (Pods on their way out): kube's error
			return false
		}
		if _, err := r.scaleReplicaSet(rs, replicas-down); err != nil {
			return false
		}
		cleaned += down
	}
	// Then as many available ones as leave minAvailable.
	var scaled int64
	if available := sum(append(oldRSs, newRS), availableReplicas); available > minAvailable {
		total := available - minAvailable
		for _, rs := range oldRSs {
			replicas := specReplicas(rs)
			if scaled >= total || replicas == 0 {
				continue
			}
			down := min(replicas, total-scaled)
			if _, err := r.scaleReplicaSet(rs, replicas-down); err != nil {
				return false
			}
			scaled += down
		}
	}
	return cleaned+scaled > 0
}

// scale is a scaling event: the one active ReplicaSet takes the new size, or
// (rolling updates) every active one scales in proportion to its size.
func (r *rollout) scale(newRS *replicaSet, oldRSs []*replicaSet) error {
	if target := activeOrLatest(newRS, oldRSs); target != nil {
		if specReplicas(target) == r.replicas() {
			return nil
		}
		_, err := r.scaleReplicaSet(target, r.replicas())
		return err
	}
	if r.saturated(newRS) {
		for _, rs := range active(oldRSs) {
			if _, err := r.scaleReplicaSet(rs, 0); err != nil {
				return err
			}
		}
		return nil
	}
	if r.d.Spec.Strategy.Type == "Recreate" {
		return nil
	}
	sets := active(append(oldRSs, newRS))
	var allowed int64
	if r.replicas() > 0 {
		allowed = r.replicas() + r.maxSurge()
	}
	toAdd := allowed - sum(sets, specReplicas)
	if toAdd != 0 {
		bySize(sets, toAdd > 0)
	}
	var added int64
	sizes := make([]int64, len(sets))
	for i, rs := range sets {
		sizes[i] = specReplicas(rs)
		if toAdd != 0 {
			p := r.proportion(rs, toAdd, added)
			sizes[i] += p
			added += p
		}
	}
	for i, rs := range sets {
		if i == 0 && toAdd != 0 {
			sizes[i] = max(sizes[i]+toAdd-added, 0)
		}
		if _, err := r.scaleReplicaSet(rs, sizes[i]); err != nil {
			return err
		}
	}
	return nil
}

// proportion is GetReplicaSetProportion: how many of toAdd rs takes.
func (r *rollout) proportion(rs *replicaSet, toAdd, added int64) int64 {
	if specReplicas(rs) == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	allowed := toAdd - added
	fraction := r.fraction(rs)
	if toAdd > 0 {
		return min(fraction, allowed)
	}
	return max(fraction, allowed)
}

// fraction is getReplicaSetFraction: rs's share of the new size, by the size
// the Deployment had when rs was last scaled (its max-replicas annotation).
func (r *rollout) fraction(rs *replicaSet) int64 {
	if r.replicas() == 0 {
		return -specReplicas(rs)
	}
	maxNow := r.replicas() + r.maxSurge()
	before, ok := annotationInt(rs, maxReplicasAnnotation)
	if !ok || before == 0 {
		if before = r.d.Status.Replicas; before == 0 {
			return 0
		}
	}
	size := float64(specReplicas(rs)*maxNow) / float64(before)
	return int64(size+0.5) - specReplicas(rs)
}

// scaleReplicaSet sets rs's replicas (and the replica annotations), and
// records a ScalingReplicaSet event when the size changed.
func (r *rollout) scaleReplicaSet(rs *replicaSet, size int64) (bool, error) {
	if rs == nil {
		return false, nil
	}
	old := specReplicas(rs)
	if old == size && !r.replicasAnnotationsChange(rs) {
		return false, nil
	}
	next := *rs
	next.Spec.Replicas = &size
	next.Metadata.Annotations = cloneMap(rs.Metadata.Annotations)
	r.setReplicasAnnotations(&next)
	if err := r.updateSet(&next); err != nil {
		return false, err
	}
	*rs = next
	if old == size {
		return false, nil
	}
	direction := "up"
	if size < old {
		direction = "down"
	}
	r.dc.Events.Eventf(r.ctx, r.ref(), controllers.Normal, "ScalingReplicaSet", "Scaled %s replica set %s from %d to %d",
		direction, rs.Metadata.Name, old, size)
	return true, nil
}

// cleanup deletes the old ReplicaSets beyond revisionHistoryLimit, oldest
// revision first, that have nothing left to do.
func (r *rollout) cleanup(oldRSs []*replicaSet) error {
	limit := r.d.Spec.RevisionHistoryLimit
	var alive []*replicaSet
	for _, rs := range oldRSs {
		if rs != nil && rs.Metadata.DeletionTimestamp == "" {
			alive = append(alive, rs)
		}
	}
	if limit == nil || int64(len(alive)) <= *limit {
		return nil
	}
	byRevision(alive)
	for _, rs := range alive[:int64(len(alive))-*limit] {
		if rs.Status.Replicas != 0 || specReplicas(rs) != 0 || rs.Metadata.Generation > rs.Status.ObservedGeneration {
			continue
		}
		if _, err := r.dc.C.Delete(r.ctx, r.setsPath()+"/"+rs.Metadata.Name); err != nil && !client.IsNotFound(err) {
			return err
		}
		controllers.Deleted(r.dc.Expect, r.key, r.dc.sets, rs)
	}
	return nil
}

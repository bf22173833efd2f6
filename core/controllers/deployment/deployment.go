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
	"kubeplay/core/object"
	"kubeplay/core/web"
)

// Controller is the Deployment controller.
type Controller struct {
	c       *client.Client
	events  *controllers.Recorder
	clock   clock.Clock
	deploys *client.Informer
	sets    *client.Informer
	queue   *controllers.Queue
	expect  *controllers.Expectations
}

// New is the Deployment controller, acting through h.
func New(h web.Handler, clk clock.Clock) *Controller {
	c := controllers.NewClient(h, "deployment-controller")
	dc := &Controller{c: c, clock: clk, events: controllers.NewRecorder(c, clk, "deployment-controller", ""),
		queue: controllers.NewQueue(clk), expect: controllers.NewExpectations()}
	enqueue := func(d object.Object) { dc.queue.Add(client.Key(d)) }
	dc.deploys = client.NewInformer(c, "/apis/apps/v1/deployments", client.Handler{
		Add: enqueue, Update: func(_, d object.Object) { enqueue(d) }, Delete: enqueue,
	}, map[string]client.IndexFunc{"uid": func(o object.Object) []string { return []string{object.MetaString(o, "uid")} }}, clk)
	owner := func(rs object.Object) {
		if uid := controllers.ControllerOf(rs); uid != "" {
			for _, d := range dc.deploys.ByIndex("uid", uid) {
				enqueue(d)
			}
		}
	}
	dc.sets = client.NewInformer(c, "/apis/apps/v1/replicasets", client.Handler{
		Add: owner, Update: func(_, rs object.Object) { owner(rs) }, Delete: owner,
	}, map[string]client.IndexFunc{"controller": controllers.ByController}, clk)
	return dc
}

// Run works until ctx is done.
func (dc *Controller) Run(ctx context.Context) {
	go dc.deploys.Run(ctx)
	go dc.sets.Run(ctx)
	if controllers.Synced(ctx, dc.deploys, dc.sets) {
		dc.queue.Run(ctx, dc.sync)
	}
}

// sync is kube's syncDeployment.
func (dc *Controller) sync(ctx context.Context, key string) error {
	cur, ok := dc.deploys.Get(key)
	if !ok {
		dc.expect.Forget(key)
		return nil
	}
	if !dc.expect.Satisfied(key) {
		return nil // the informers bring our last writes, and the key back
	}
	r := &rollout{dc: dc, ctx: ctx, key: key, d: object.DeepCopy(cur), now: dc.clock.Now()}
	sel, _ := object.Path(r.d, "spec", "selector").(map[string]any)
	if len(object.StringMap(sel, "matchLabels")) == 0 && len(object.Objects(sel, "matchExpressions")) == 0 {
		dc.events.Eventf(ctx, r.ref(), controllers.Warning, "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
		if status := r.status(); object.Int(status["observedGeneration"]) < object.Int(object.Meta(r.d)["generation"]) {
			status["observedGeneration"] = object.Meta(r.d)["generation"]
			return r.updateStatus()
		}
		return nil
	}
	for _, rs := range dc.sets.ByIndex("controller", object.MetaString(r.d, "uid")) {
		r.sets = append(r.sets, object.DeepCopy(rs))
	}
	if object.Meta(r.d)["deletionTimestamp"] != nil {
		return r.syncStatusOnly()
	}
	if err := r.checkPausedConditions(); err != nil {
		return err
	}
	if r.paused() {
		return r.sync()
	}
	scaling, err := r.isScalingEvent()
	if err != nil {
		return err
	}
	if scaling {
		return r.sync()
	}
	if object.Path(r.d, "spec", "strategy", "type") == "Recreate" {
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
	d    object.Object
	sets []object.Object
	now  time.Time
}

func (r *rollout) ref() map[string]any { return controllers.Ref(r.d, "apps/v1", "Deployment") }

func (r *rollout) replicas() int64 { return controllers.Replicas(r.d, "spec", "replicas") }

func (r *rollout) paused() bool { return object.Path(r.d, "spec", "paused") == true }

// status is the Deployment's status, created when missing.
func (r *rollout) status() map[string]any {
	status, _ := r.d["status"].(map[string]any)
	if status == nil {
		status = map[string]any{}
		r.d["status"] = status
	}
	return status
}

func (r *rollout) path() string {
	return "/apis/apps/v1/namespaces/" + object.MetaString(r.d, "namespace") + "/deployments/" + object.MetaString(r.d, "name")
}

func (r *rollout) setsPath() string {
	return "/apis/apps/v1/namespaces/" + object.MetaString(r.d, "namespace") + "/replicasets"
}

// updateStatus writes the Deployment's status (and annotations, which the
// status subresource of Deployments takes too) and keeps what was stored.
func (r *rollout) updateStatus() error {
	written, err := r.dc.c.Update(r.ctx, r.path()+"/status", r.d)
	if err != nil {
		return err
	}
	r.dc.expect.Written(r.key, r.dc.deploys, written)
	replace(r.d, written)
	return nil
}

// updateSet writes a ReplicaSet, and keeps what was stored in rs.
func (r *rollout) updateSet(rs object.Object) error {
	written, err := r.dc.c.Update(r.ctx, r.setsPath()+"/"+object.MetaString(rs, "name"), rs)
	if err != nil {
		return err
	}
	r.dc.expect.Written(r.key, r.dc.sets, written)
	replace(rs, written)
	return nil
}

// replace makes dst what src is (dst is shared by the sync's lists).
func replace(dst, src object.Object) {
	clear(dst)
	for k, v := range src {
		dst[k] = v
	}
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
	if r.paused() {
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
	cond := conditionOf(r.status(), "Progressing")
	if cond != nil && cond["reason"] == timedOutReason {
		return nil
	}
	pausedCond := cond != nil && cond["reason"] == "DeploymentPaused"
	switch {
	case r.paused() && !pausedCond:
		r.setCondition(r.status(), "Progressing", "Unknown", "DeploymentPaused", "Deployment is paused")
	case !r.paused() && pausedCond:
		r.setCondition(r.status(), "Progressing", "Unknown", "DeploymentResumed", "Deployment is resumed")
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
	if scaledDown, err := r.reconcileOldReplicaSets(all, active(oldRSs), newRS); err != nil {
		return err
	} else if scaledDown {
		return r.syncRolloutStatus(all, newRS)
	}
	if r.complete(r.status()) {
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
	if scaledDown || sum(oldRSs, "status", "replicas") > 0 {
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
	if r.complete(r.status()) {
		if err := r.cleanup(oldRSs); err != nil {
			return err
		}
	}
	return r.syncRolloutStatus(all, newRS)
}

// reconcileNewReplicaSet scales the new ReplicaSet as far up as maxSurge
// lets it (or down, to the Deployment's replicas).
func (r *rollout) reconcileNewReplicaSet(all []object.Object, newRS object.Object) (bool, error) {
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
func (r *rollout) newReplicas(all []object.Object, newRS object.Object) int64 {
	if object.Path(r.d, "spec", "strategy", "type") == "Recreate" {
		return r.replicas()
	}
	maxTotal := r.replicas() + r.maxSurge()
	current := sum(all, "spec", "replicas")
	if current >= maxTotal {
		return specReplicas(newRS)
	}
	return specReplicas(newRS) + min(maxTotal-current, r.replicas()-specReplicas(newRS))
}

// reconcileOldReplicaSets scales old ReplicaSets down as far as
// maxUnavailable lets it: their unhealthy Pods first.
func (r *rollout) reconcileOldReplicaSets(all, oldRSs []object.Object, newRS object.Object) (bool, error) {
	if sum(oldRSs, "spec", "replicas") == 0 {
		return false, nil
	}
	minAvailable := r.replicas() - r.maxUnavailable()
	newUnavailable := specReplicas(newRS) - controllers.Replicas(newRS, "status", "availableReplicas")
	maxScaledDown := sum(all, "spec", "replicas") - minAvailable - newUnavailable
	if maxScaledDown <= 0 {
		return false, nil
	}
	byCreation(oldRSs)
	var cleaned int64
	for _, rs := range oldRSs {
		if cleaned >= maxScaledDown {
			break
		}
		replicas, available := specReplicas(rs), controllers.Replicas(rs, "status", "availableReplicas")
		if replicas == 0 || replicas == available {
			continue
		}
		down := min(maxScaledDown-cleaned, replicas-available)
		if down < 0 { // more available than asked for (Pods on their way out): kube's error
			return false, nil
		}
		if _, err := r.scaleReplicaSet(rs, replicas-down); err != nil {
			return false, nil
		}
		cleaned += down
	}
	// Then as many available ones as leave minAvailable.
	var scaled int64
	if available := sum(append(oldRSs, newRS), "status", "availableReplicas"); available > minAvailable {
		total := available - minAvailable
		for _, rs := range oldRSs {
			if scaled >= total {
				break
			}
			replicas := specReplicas(rs)
			if replicas == 0 {
				continue
			}
			down := min(replicas, total-scaled)
			if _, err := r.scaleReplicaSet(rs, replicas-down); err != nil {
				return false, nil
			}
			scaled += down
		}
	}
	return cleaned+scaled > 0, nil
}

// scale is a scaling event: the one active ReplicaSet takes the new size, or
// (rolling updates) every active one scales in proportion to its size.
func (r *rollout) scale(newRS object.Object, oldRSs []object.Object) error {
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
	if object.Path(r.d, "spec", "strategy", "type") == "Recreate" {
		return nil
	}
	sets := active(append(oldRSs, newRS))
	var allowed int64
	if r.replicas() > 0 {
		allowed = r.replicas() + r.maxSurge()
	}
	toAdd := allowed - sum(sets, "spec", "replicas")
	switch {
	case toAdd > 0:
		bySize(sets, true)
	case toAdd < 0:
		bySize(sets, false)
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
func (r *rollout) proportion(rs object.Object, toAdd, added int64) int64 {
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
func (r *rollout) fraction(rs object.Object) int64 {
	if r.replicas() == 0 {
		return -specReplicas(rs)
	}
	maxNow := r.replicas() + r.maxSurge()
	before, ok := annotationInt(rs, maxReplicasAnnotation)
	if !ok || before == 0 {
		if before = controllers.Replicas(r.d, "status", "replicas"); before == 0 {
			return 0
		}
	}
	size := float64(specReplicas(rs)*maxNow) / float64(before)
	return int64(size+0.5) - specReplicas(rs)
}

// scaleReplicaSet sets rs's replicas (and the replica annotations), and
// records a ScalingReplicaSet event when the size changed.
func (r *rollout) scaleReplicaSet(rs object.Object, size int64) (bool, error) {
	if rs == nil {
		return false, nil
	}
	old := specReplicas(rs)
	resize := old != size
	if !resize && !r.setReplicasAnnotations(object.DeepCopy(rs)) {
		return false, nil
	}
	spec, _ := rs["spec"].(map[string]any)
	spec["replicas"] = size
	r.setReplicasAnnotations(rs)
	if err := r.updateSet(rs); err != nil {
		return false, err
	}
	if resize {
		direction := "up"
		if size < old {
			direction = "down"
		}
		r.dc.events.Eventf(r.ctx, r.ref(), controllers.Normal, "ScalingReplicaSet", "Scaled %s replica set %s from %d to %d",
			direction, object.MetaString(rs, "name"), old, size)
	}
	return resize, nil
}

// cleanup deletes the old ReplicaSets beyond revisionHistoryLimit, oldest
// revision first, that have nothing left to do.
func (r *rollout) cleanup(oldRSs []object.Object) error {
	limit := object.Path(r.d, "spec", "revisionHistoryLimit")
	var alive []object.Object
	for _, rs := range oldRSs {
		if rs != nil && object.Meta(rs)["deletionTimestamp"] == nil {
			alive = append(alive, rs)
		}
	}
	diff := int64(len(alive)) - object.Int(limit)
	if limit == nil || diff <= 0 {
		return nil
	}
	byRevision(alive)
	for _, rs := range alive[:diff] {
		if controllers.Replicas(rs, "status", "replicas") != 0 || specReplicas(rs) != 0 ||
			object.Int(object.Meta(rs)["generation"]) > controllers.Replicas(rs, "status", "observedGeneration") {
			continue
		}
		if _, err := r.dc.c.Delete(r.ctx, r.setsPath()+"/"+object.MetaString(rs, "name")); err != nil && !client.IsNotFound(err) {
			return err
		}
		r.dc.expect.Deleted(r.key, r.dc.sets, rs)
	}
	return nil
}

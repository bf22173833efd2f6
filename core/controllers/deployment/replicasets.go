package deployment

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/registry"
)

// The annotations kube's Deployment controller keeps on ReplicaSets (and the
// revision on the Deployment).
const (
	revisionAnnotation        = "deployment.kubernetes.io/revision"
	revisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	desiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	maxReplicasAnnotation     = "deployment.kubernetes.io/max-replicas"
	// hashLabel tells a Deployment's ReplicaSets (and their Pods) apart.
	hashLabel = "pod-template-hash"
	// maxRevisionHistory is how long revision-history may grow, in characters.
	maxRevisionHistory = 2000
	timedOutReason     = "ProgressDeadlineExceeded"
	availableReason    = "NewReplicaSetAvailable"
)

// annotationsToSkip are the Deployment's annotations not copied to its
// ReplicaSets.
var annotationsToSkip = map[string]bool{"kubectl.kubernetes.io/last-applied-configuration": true,
	revisionAnnotation: true, revisionHistoryAnnotation: true, desiredReplicasAnnotation: true,
	maxReplicasAnnotation: true, "deprecated.deployment.rollback.to": true}

// allReplicaSets is getAllReplicaSetsAndSyncRevision: the ReplicaSet of the
// current template (created if asked and missing) and the others.
func (r *rollout) allReplicaSets(create bool) (object.Object, []object.Object, error) {
	current := r.findNew()
	var oldRSs []object.Object
	for _, rs := range r.sets {
		if !sameObject(rs, current) {
			oldRSs = append(oldRSs, rs)
		}
	}
	newRS, err := r.newReplicaSet(current, oldRSs, create)
	return newRS, oldRSs, err
}

func sameObject(a, b object.Object) bool {
	return b != nil && object.MetaString(a, "uid") == object.MetaString(b, "uid")
}

// findNew is the oldest ReplicaSet whose template is the Deployment's, but
// for the hash label.
func (r *rollout) findNew() object.Object {
	byCreation(r.sets)
	want := withoutHash(object.Path(r.d, "spec", "template"))
	for _, rs := range r.sets {
		if object.Equal(withoutHash(object.Path(rs, "spec", "template")), want) {
			return rs
		}
	}
	return nil
}

// withoutHash is a pod template without the pod-template-hash label.
func withoutHash(template any) any {
	t, _ := template.(map[string]any)
	t = object.DeepCopy(t)
	if labels, ok := object.Path(t, "metadata", "labels").(map[string]any); ok {
		delete(labels, hashLabel)
	}
	return t
}

// newReplicaSet is getNewReplicaSet: the current ReplicaSet with its revision
// (the newest) and the Deployment's annotations brought up to date, or a new
// one when asked.
func (r *rollout) newReplicaSet(current object.Object, oldRSs []object.Object, create bool) (object.Object, error) {
	var maxOld int64
	for _, rs := range oldRSs {
		maxOld = max(maxOld, revision(rs))
	}
	newRevision := strconv.FormatInt(maxOld+1, 10)
	status := r.status()
	if current != nil {
		updated := r.setNewReplicaSetAnnotations(current, newRevision, true)
		minReady := object.Path(r.d, "spec", "minReadySeconds")
		if updated || object.Int(object.Path(current, "spec", "minReadySeconds")) != object.Int(minReady) {
			spec, _ := current["spec"].(map[string]any)
			if minReady == nil {
				delete(spec, "minReadySeconds")
			} else {
				spec["minReadySeconds"] = minReady
			}
			return current, r.updateSet(current)
		}
		needsUpdate := setAnnotation(r.d, revisionAnnotation, object.StringMap(object.Meta(current), "annotations")[revisionAnnotation])
		if r.hasProgressDeadline() && conditionOf(status, "Progressing") == nil {
			r.setCondition(status, "Progressing", "True", "FoundNewReplicaSet", fmt.Sprintf("Found new replica set %q", object.MetaString(current, "name")))
			needsUpdate = true
		}
		if needsUpdate {
			return current, r.updateStatus()
		}
		return current, nil
	}
	if !create {
		return nil, nil
	}
	template := object.DeepCopy(object.Path(r.d, "spec", "template").(map[string]any))
	hash := podTemplateHash(template, status["collisionCount"])
	templateMeta, _ := template["metadata"].(map[string]any)
	if templateMeta == nil {
		templateMeta = map[string]any{}
		template["metadata"] = templateMeta
	}
	labels := map[string]any{}
	for k, v := range object.StringMap(templateMeta, "labels") {
		labels[k] = v
	}
	labels[hashLabel] = hash
	templateMeta["labels"] = labels
	selector := object.DeepCopy(object.Path(r.d, "spec", "selector").(map[string]any))
	matchLabels, _ := selector["matchLabels"].(map[string]any)
	if matchLabels == nil {
		matchLabels = map[string]any{}
		selector["matchLabels"] = matchLabels
	}
	matchLabels[hashLabel] = hash
	name := object.MetaString(r.d, "name") + "-" + hash
	spec := map[string]any{"replicas": 0, "selector": selector, "template": template}
	if m := object.Path(r.d, "spec", "minReadySeconds"); m != nil {
		spec["minReadySeconds"] = m
	}
	rs := object.Object{"apiVersion": "apps/v1", "kind": "ReplicaSet",
		"metadata": map[string]any{"name": name, "namespace": object.MetaString(r.d, "namespace"), "labels": object.DeepCopy(labels),
			"ownerReferences": []any{controllers.OwnerRef(r.d, "apps/v1", "Deployment")}},
		"spec": spec}
	replicas := r.newReplicas(append(oldRSs, rs), rs)
	spec["replicas"] = replicas
	r.setNewReplicaSetAnnotations(rs, newRevision, false)
	created, err := r.dc.c.Create(r.ctx, r.setsPath(), rs)
	exists := client.IsConflict(err)
	switch {
	case exists:
		// A ReplicaSet of that name: this Deployment's, of this template (our
		// informer is behind), or a hash collision.
		found, ok := r.dc.sets.Get(object.MetaString(r.d, "namespace") + "/" + name)
		if ok && controllers.ControllerOf(found) == object.MetaString(r.d, "uid") &&
			object.Equal(withoutHash(object.Path(found, "spec", "template")), withoutHash(object.Path(r.d, "spec", "template"))) {
			created, err = object.DeepCopy(found), nil
			break
		}
		status["collisionCount"] = object.Int(status["collisionCount"]) + 1
		_ = r.updateStatus()
		return nil, err
	case err != nil:
		msg := fmt.Sprintf("Failed to create new replica set %q: %s", name, controllers.Message(err))
		if r.hasProgressDeadline() {
			r.setCondition(status, "Progressing", "False", "ReplicaSetCreateError", msg)
			_ = r.updateStatus()
		}
		r.dc.events.Eventf(r.ctx, r.ref(), controllers.Warning, "ReplicaSetCreateError", "%s", msg)
		return nil, err
	default:
		r.dc.expect.Written(r.key, r.dc.sets, created)
	}
	r.sets = append(r.sets, created)
	if !exists && replicas > 0 {
		r.dc.events.Eventf(r.ctx, r.ref(), controllers.Normal, "ScalingReplicaSet", "Scaled up replica set %s from 0 to %d", name, replicas)
	}
	needsUpdate := setAnnotation(r.d, revisionAnnotation, newRevision)
	if !exists && r.hasProgressDeadline() {
		r.setCondition(status, "Progressing", "True", "NewReplicaSetCreated", fmt.Sprintf("Created new replica set %q", name))
		needsUpdate = true
	}
	if needsUpdate {
		return created, r.updateStatus()
	}
	return created, nil
}

// podTemplateHash is the pod-template-hash of a template: a 32-bit FNV-1a
// hash of it (and of the collision count, when there is one), encoded as
// kube's rand.SafeEncodeString encodes it, so it reads like kube's.
func podTemplateHash(template map[string]any, collisionCount any) string {
	h := fnv.New32a()
	b, _ := object.Encode(template)
	h.Write(b)
	if collisionCount != nil {
		var c [8]byte
		binary.LittleEndian.PutUint32(c[:], uint32(object.Int(collisionCount)))
		h.Write(c[:])
	}
	const alphanums = "bcdfghjklmnpqrstvwxz2456789"
	digits := []byte(strconv.FormatUint(uint64(h.Sum32()), 10))
	for i, d := range digits {
		digits[i] = alphanums[int(d)%len(alphanums)]
	}
	return string(digits)
}

// setNewReplicaSetAnnotations copies the Deployment's annotations to rs,
// raises its revision to newRevision (recording the one it had in
// revision-history) and, for a new ReplicaSet, sets the replica annotations.
// It says whether anything changed.
func (r *rollout) setNewReplicaSetAnnotations(rs object.Object, newRevision string, exists bool) bool {
	changed := false
	for k, v := range object.StringMap(object.Meta(r.d), "annotations") {
		if !annotationsToSkip[k] && setAnnotation(rs, k, v) {
			changed = true
		}
	}
	annotations := object.StringMap(object.Meta(rs), "annotations")
	oldRevision, had := annotations[revisionAnnotation]
	oldN, err := strconv.ParseInt(oldRevision, 10, 64)
	if err != nil && oldRevision != "" {
		return false
	}
	newN, _ := strconv.ParseInt(newRevision, 10, 64)
	if oldN < newN {
		setAnnotation(rs, revisionAnnotation, newRevision)
		changed = true
		if had {
			history := annotations[revisionHistoryAnnotation]
			revisions := strings.Split(history, ",")
			if history == "" {
				setAnnotation(rs, revisionHistoryAnnotation, oldRevision)
			} else {
				total, start := len(history)+len(oldRevision)+1, 0
				for total > maxRevisionHistory && start < len(revisions) {
					total -= len(revisions[start]) + 1
					start++
				}
				if total <= maxRevisionHistory {
					setAnnotation(rs, revisionHistoryAnnotation, strings.Join(append(revisions[start:], oldRevision), ","))
				}
			}
		}
	}
	if !exists && r.setReplicasAnnotations(rs) {
		changed = true
	}
	return changed
}

// setReplicasAnnotations records the Deployment's replicas and its most
// with surge on rs, and says whether they changed.
func (r *rollout) setReplicasAnnotations(rs object.Object) bool {
	desired := setAnnotation(rs, desiredReplicasAnnotation, strconv.FormatInt(r.replicas(), 10))
	most := setAnnotation(rs, maxReplicasAnnotation, strconv.FormatInt(r.replicas()+r.maxSurge(), 10))
	return desired || most
}

// setAnnotation sets an annotation and says whether it changed.
func setAnnotation(obj object.Object, key, value string) bool {
	meta := object.Meta(obj)
	annotations, _ := meta["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
		meta["annotations"] = annotations
	}
	if annotations[key] == value {
		return false
	}
	annotations[key] = value
	return true
}

func annotationInt(obj object.Object, key string) (int64, bool) {
	v, ok := object.StringMap(object.Meta(obj), "annotations")[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 31)
	return int64(n), err == nil
}

func revision(rs object.Object) int64 {
	n, _ := strconv.ParseInt(object.StringMap(object.Meta(rs), "annotations")[revisionAnnotation], 10, 64)
	return n
}

// syncDeploymentStatus writes the status the ReplicaSets give, if it changed.
func (r *rollout) syncDeploymentStatus(all []object.Object, newRS object.Object) error {
	status := r.calculateStatus(all, newRS)
	if object.Equal(status, r.d["status"]) {
		return nil
	}
	r.d["status"] = status
	return r.updateStatus()
}

// calculateStatus is the Deployment's status from its ReplicaSets, with its
// Available condition.
func (r *rollout) calculateStatus(all []object.Object, newRS object.Object) map[string]any {
	available := sum(all, "status", "availableReplicas")
	status := map[string]any{}
	for k, n := range map[string]int64{
		"observedGeneration":  object.Int(object.Meta(r.d)["generation"]),
		"replicas":            sum(all, "status", "replicas"),
		"updatedReplicas":     sum([]object.Object{newRS}, "status", "replicas"),
		"readyReplicas":       sum(all, "status", "readyReplicas"),
		"availableReplicas":   available,
		"unavailableReplicas": max(sum(all, "spec", "replicas")-available, 0),
	} {
		if n != 0 {
			status[k] = n
		}
	}
	old := r.status()
	if c, ok := old["collisionCount"]; ok {
		status["collisionCount"] = c
	}
	if c, ok := old["conditions"].([]any); ok {
		status["conditions"] = object.DeepCopy(map[string]any{"c": c})["c"]
	}
	if available >= r.replicas()-r.maxUnavailable() {
		r.setCondition(status, "Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
	} else {
		r.setCondition(status, "Available", "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability.")
	}
	return status
}

// syncRolloutStatus writes the status with the Progressing condition a
// rollout has reached, and looks again when the progress deadline passes.
func (r *rollout) syncRolloutStatus(all []object.Object, newRS object.Object) error {
	status := r.calculateStatus(all, newRS)
	if !r.hasProgressDeadline() {
		removeCondition(status, "Progressing")
	}
	current := conditionOf(r.status(), "Progressing")
	completed := object.Int(status["replicas"]) == object.Int(status["updatedReplicas"]) && current != nil && current["reason"] == availableReason
	if r.hasProgressDeadline() && !completed {
		subject := fmt.Sprintf("Deployment %q", object.MetaString(r.d, "name"))
		if newRS != nil {
			subject = fmt.Sprintf("ReplicaSet %q", object.MetaString(newRS, "name"))
		}
		switch {
		case r.complete(status):
			r.setCondition(status, "Progressing", "True", availableReason, subject+" has successfully progressed.")
		case r.progressing(status):
			transition := ""
			if current != nil {
				if current["status"] == "True" {
					transition = object.String(current["lastTransitionTime"])
				}
				removeCondition(status, "Progressing")
			}
			r.setCondition(status, "Progressing", "True", "ReplicaSetUpdated", subject+" is progressing.")
			if transition != "" {
				conditionOf(status, "Progressing")["lastTransitionTime"] = transition
			}
		case r.timedOut(status):
			r.setCondition(status, "Progressing", "False", timedOutReason, subject+" has timed out progressing.")
		}
	}
	if failure := r.replicaFailure(all, newRS); failure != nil {
		r.setCondition(status, "ReplicaFailure", object.String(failure["status"]), object.String(failure["reason"]), object.String(failure["message"]))
	} else {
		removeCondition(status, "ReplicaFailure")
	}
	if object.Equal(status, r.d["status"]) {
		r.requeueStuck(status)
		return nil
	}
	r.d["status"] = status
	return r.updateStatus()
}

// replicaFailure is the ReplicaFailure condition of the new ReplicaSet, else
// of any.
func (r *rollout) replicaFailure(all []object.Object, newRS object.Object) map[string]any {
	for _, rs := range append([]object.Object{newRS}, all...) {
		if rs != nil {
			if c := controllers.Condition(rs, "ReplicaFailure"); c != nil {
				return c
			}
		}
	}
	return nil
}

// requeueStuck looks at a rollout again when its progress deadline passes.
func (r *rollout) requeueStuck(status map[string]any) {
	current := conditionOf(r.status(), "Progressing")
	if !r.hasProgressDeadline() || current == nil || r.complete(status) || current["reason"] == timedOutReason {
		return
	}
	since, _ := time.Parse(time.RFC3339, object.String(current["lastUpdateTime"]))
	after := since.Add(r.deadline()).Sub(r.now)
	if after < time.Second {
		after = 0
	}
	r.dc.queue.AddAfter(r.key, after+time.Second)
}

// complete is DeploymentComplete: every replica updated and available, and
// the latest generation observed.
func (r *rollout) complete(status map[string]any) bool {
	n := r.replicas()
	return object.Int(status["updatedReplicas"]) == n && object.Int(status["replicas"]) == n &&
		object.Int(status["availableReplicas"]) == n && object.Int(status["observedGeneration"]) >= object.Int(object.Meta(r.d)["generation"])
}

// progressing is DeploymentProgressing: status moved on from the last one.
func (r *rollout) progressing(status map[string]any) bool {
	old := r.status()
	n := func(m map[string]any, k string) int64 { return object.Int(m[k]) }
	return n(status, "updatedReplicas") > n(old, "updatedReplicas") ||
		n(status, "replicas")-n(status, "updatedReplicas") < n(old, "replicas")-n(old, "updatedReplicas") ||
		n(status, "readyReplicas") > n(old, "readyReplicas") || n(status, "availableReplicas") > n(old, "availableReplicas")
}

// timedOut is DeploymentTimedOut: no progress for progressDeadlineSeconds.
func (r *rollout) timedOut(status map[string]any) bool {
	c := conditionOf(status, "Progressing")
	switch {
	case c == nil || c["reason"] == availableReason:
		return false
	case c["reason"] == timedOutReason:
		return true
	}
	since, _ := time.Parse(time.RFC3339, object.String(c["lastUpdateTime"]))
	return since.Add(r.deadline()).Before(r.now)
}

func (r *rollout) deadline() time.Duration {
	return time.Duration(object.Int(object.Path(r.d, "spec", "progressDeadlineSeconds"))) * time.Second
}

func (r *rollout) hasProgressDeadline() bool {
	d := object.Path(r.d, "spec", "progressDeadlineSeconds")
	return d != nil && object.Int(d) != 1<<31-1
}

// setCondition is SetDeploymentCondition: a condition of the same status and
// reason stays as it is; one of the same status keeps its transition time.
func (r *rollout) setCondition(status map[string]any, typ, value, reason, message string) {
	current := conditionOf(status, typ)
	if current != nil && current["status"] == value && current["reason"] == reason {
		return
	}
	now := registry.Timestamp(r.now)
	c := map[string]any{"type": typ, "status": value, "lastUpdateTime": now, "lastTransitionTime": now, "reason": reason, "message": message}
	if current != nil && current["status"] == value {
		c["lastTransitionTime"] = current["lastTransitionTime"]
	}
	removeCondition(status, typ)
	conditions, _ := status["conditions"].([]any)
	status["conditions"] = append(conditions, c)
}

func conditionOf(status map[string]any, typ string) map[string]any {
	for _, c := range object.Objects(status, "conditions") {
		if c["type"] == typ {
			return c
		}
	}
	return nil
}

func removeCondition(status map[string]any, typ string) {
	conditions, _ := status["conditions"].([]any)
	out := slices.DeleteFunc(slices.Clone(conditions), func(c any) bool { return object.Path(c, "type") == typ })
	if len(out) == 0 {
		delete(status, "conditions")
		return
	}
	status["conditions"] = out
}

// maxSurge and maxUnavailable are the rolling update's bounds for the
// Deployment's replicas (ResolveFenceposts): percentages of it, surge rounded
// up and unavailability down, never both zero.
func (r *rollout) maxSurge() int64 {
	surge, _ := r.fenceposts()
	return surge
}

func (r *rollout) maxUnavailable() int64 {
	_, unavailable := r.fenceposts()
	return min(unavailable, r.replicas())
}

func (r *rollout) fenceposts() (surge, unavailable int64) {
	if object.Path(r.d, "spec", "strategy", "type") == "Recreate" || r.replicas() == 0 {
		return 0, 0
	}
	ru, _ := object.Path(r.d, "spec", "strategy", "rollingUpdate").(map[string]any)
	surge = scaled(ru["maxSurge"], r.replicas(), true)
	unavailable = scaled(ru["maxUnavailable"], r.replicas(), false)
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return surge, unavailable
}

// scaled is GetScaledValueFromIntOrPercent.
func scaled(v any, total int64, roundUp bool) int64 {
	s, ok := v.(string)
	if !ok {
		return object.Int(v)
	}
	p := object.Int(strings.TrimSuffix(s, "%"))
	if roundUp {
		return (p*total + 99) / 100
	}
	return p * total / 100
}

// saturated is IsSaturated: the new ReplicaSet has all the Deployment's
// replicas, available.
func (r *rollout) saturated(rs object.Object) bool {
	if rs == nil {
		return false
	}
	desired, ok := annotationInt(rs, desiredReplicasAnnotation)
	return ok && specReplicas(rs) == r.replicas() && desired == r.replicas() &&
		controllers.Replicas(rs, "status", "availableReplicas") == r.replicas()
}

// activeOrLatest is FindActiveOrLatest: the one ReplicaSet with replicas, or
// the newest when none has any; nil when several have.
func activeOrLatest(newRS object.Object, oldRSs []object.Object) object.Object {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	olds := slices.Clone(oldRSs)
	byCreation(olds)
	slices.Reverse(olds)
	switch sets := active(append(olds, newRS)); len(sets) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return olds[0]
	case 1:
		return sets[0]
	}
	return nil
}

func specReplicas(rs object.Object) int64 { return controllers.Replicas(rs, "spec", "replicas") }

// active are the ReplicaSets with replicas.
func active(sets []object.Object) []object.Object {
	var out []object.Object
	for _, rs := range sets {
		if rs != nil && specReplicas(rs) > 0 {
			out = append(out, rs)
		}
	}
	return out
}

// sum adds a field up over ReplicaSets (nil ones count nothing).
func sum(sets []object.Object, path ...string) int64 {
	var n int64
	for _, rs := range sets {
		if rs != nil {
			n += controllers.Replicas(rs, path...)
		}
	}
	return n
}

// byCreation sorts ReplicaSets oldest first, then by name.
func byCreation(sets []object.Object) {
	slices.SortStableFunc(sets, func(a, b object.Object) int {
		if c := strings.Compare(object.MetaString(a, "creationTimestamp"), object.MetaString(b, "creationTimestamp")); c != 0 {
			return c
		}
		return strings.Compare(object.MetaString(a, "name"), object.MetaString(b, "name"))
	})
}

// byRevision sorts ReplicaSets oldest revision first.
func byRevision(sets []object.Object) {
	byCreation(sets)
	slices.SortStableFunc(sets, func(a, b object.Object) int { return int(revision(a) - revision(b)) })
}

// bySize sorts ReplicaSets largest first; among equals, newest first when
// newer, else oldest first.
func bySize(sets []object.Object, newer bool) {
	byCreation(sets)
	if newer {
		slices.Reverse(sets)
	}
	slices.SortStableFunc(sets, func(a, b object.Object) int { return int(specReplicas(b) - specReplicas(a)) })
}

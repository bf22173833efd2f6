package deployment

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/web"
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
func (r *rollout) allReplicaSets(create bool) (*replicaSet, []*replicaSet, error) {
	byCreation(r.sets)
	var current *replicaSet
	want := withoutHash(r.d.Spec.Template)
	var oldRSs []*replicaSet
	for _, rs := range r.sets {
		if current == nil && object.Equal(withoutHash(rs.Spec.Template), want) {
			current = rs
		} else {
			oldRSs = append(oldRSs, rs)
		}
	}
	newRS, err := r.newReplicaSet(current, oldRSs, create)
	return newRS, oldRSs, err
}

// withoutHash is a pod template without the pod-template-hash label, in its
// JSON form.
func withoutHash(template json.RawMessage) any {
	t, _ := object.Decode(template)
	if labels, ok := object.Path(t, "metadata", "labels").(map[string]any); ok {
		delete(labels, hashLabel)
	}
	return t
}

// newReplicaSet is getNewReplicaSet: the current ReplicaSet with its revision
// (the newest) and the Deployment's annotations brought up to date, or a new
// one when asked.
func (r *rollout) newReplicaSet(current *replicaSet, oldRSs []*replicaSet, create bool) (*replicaSet, error) {
	var maxOld int64
	for _, rs := range oldRSs {
		maxOld = max(maxOld, revision(rs))
	}
	newRevision := strconv.FormatInt(maxOld+1, 10)
	status := &r.d.Status
	if current != nil {
		next := *current
		next.Metadata.Annotations = cloneMap(current.Metadata.Annotations)
		if r.setNewReplicaSetAnnotations(&next, newRevision, true) || next.Spec.MinReadySeconds != r.d.Spec.MinReadySeconds {
			next.Spec.MinReadySeconds = r.d.Spec.MinReadySeconds
			if err := r.updateSet(&next); err != nil {
				return nil, err
			}
			*current = next
			return current, nil
		}
		needsUpdate := setAnnotation(&r.d.Metadata, revisionAnnotation, current.Metadata.Annotations[revisionAnnotation])
		if r.hasProgressDeadline() && controllers.FindCondition(status.Conditions, "Progressing") == nil {
			r.setCondition(status, "Progressing", "True", "FoundNewReplicaSet", fmt.Sprintf("Found new replica set %q", current.Metadata.Name))
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
	hash := controllers.TemplateHash(r.d.Spec.Template, status.CollisionCount)
	template, _ := object.Decode(r.d.Spec.Template)
	templateMeta, _ := template["metadata"].(map[string]any)
	if templateMeta == nil {
		templateMeta = map[string]any{}
		template["metadata"] = templateMeta
	}
	labels := maps.Clone(object.StringMap(templateMeta, "labels"))
	if labels == nil {
		labels = map[string]string{}
	}
	labels[hashLabel] = hash
	templateMeta["labels"] = labels
	rs := &replicaSet{}
	rs.Metadata = controllers.ObjectMeta{Name: r.d.Metadata.Name + "-" + hash, Namespace: r.d.Metadata.Namespace, Labels: labels,
		OwnerReferences: []controllers.OwnerReference{controllers.OwnerRef(&r.d.Metadata, "apps/v1", "Deployment")}}
	rs.Spec.MinReadySeconds = r.d.Spec.MinReadySeconds
	rs.Spec.Selector = controllers.LabelSelector{MatchLabels: cloneMap(r.d.Spec.Selector.MatchLabels), MatchExpressions: r.d.Spec.Selector.MatchExpressions}
	rs.Spec.Selector.MatchLabels[hashLabel] = hash
	rs.Spec.Template, _ = object.Encode(template)
	zero := int64(0)
	rs.Spec.Replicas = &zero
	replicas := r.newReplicas(append(oldRSs, rs), rs)
	rs.Spec.Replicas = &replicas
	r.setNewReplicaSetAnnotations(rs, newRevision, false)
	data, err := controllers.Send(r.ctx, r.dc.C, web.MethodPost, r.setsPath(), struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		*replicaSet
	}{"apps/v1", "ReplicaSet", rs})
	exists := client.IsConflict(err)
	switch {
	case exists:
		// A ReplicaSet of that name: this Deployment's, of this template (our
		// informer is behind), or a hash collision.
		found, ok := r.dc.sets.Get(rs.Metadata.Key())
		if ok && found.Metadata.Controller() == r.d.Metadata.UID && object.Equal(withoutHash(found.Spec.Template), withoutHash(r.d.Spec.Template)) {
			copied := *found
			rs, err = &copied, nil
			break
		}
		count := int64(1)
		if status.CollisionCount != nil {
			count = *status.CollisionCount + 1
		}
		status.CollisionCount = &count
		_ = r.updateStatus()
		return nil, err
	case err != nil:
		msg := fmt.Sprintf("Failed to create new replica set %q: %s", rs.Metadata.Name, controllers.Message(err))
		if r.hasProgressDeadline() {
			r.setCondition(status, "Progressing", "False", "ReplicaSetCreateError", msg)
			_ = r.updateStatus()
		}
		r.dc.Events.Eventf(r.ctx, r.ref(), controllers.Warning, "ReplicaSetCreateError", "%s", msg)
		return nil, err
	default:
		if rs, err = controllers.Read[replicaSet](data); err != nil {
			return nil, err
		}
		r.dc.Expect.Written(r.key, r.dc.sets, rs.Metadata.ResourceVersion)
	}
	r.sets = append(r.sets, rs)
	if !exists && replicas > 0 {
		r.dc.Events.Eventf(r.ctx, r.ref(), controllers.Normal, "ScalingReplicaSet", "Scaled up replica set %s from 0 to %d", rs.Metadata.Name, replicas)
	}
	needsUpdate := setAnnotation(&r.d.Metadata, revisionAnnotation, newRevision)
	if !exists && r.hasProgressDeadline() {
		r.setCondition(status, "Progressing", "True", "NewReplicaSetCreated", fmt.Sprintf("Created new replica set %q", rs.Metadata.Name))
		needsUpdate = true
	}
	if needsUpdate {
		return rs, r.updateStatus()
	}
	return rs, nil
}

// setNewReplicaSetAnnotations copies the Deployment's annotations to rs,
// raises its revision to newRevision (recording the one it had in
// revision-history) and, for a new ReplicaSet, sets the replica annotations.
// It says whether anything changed.
func (r *rollout) setNewReplicaSetAnnotations(rs *replicaSet, newRevision string, exists bool) bool {
	changed := false
	for k, v := range r.d.Metadata.Annotations {
		if !annotationsToSkip[k] && setAnnotation(&rs.Metadata, k, v) {
			changed = true
		}
	}
	oldRevision, had := rs.Metadata.Annotations[revisionAnnotation]
	oldN, err := strconv.ParseInt(oldRevision, 10, 64)
	if err != nil && oldRevision != "" {
		return false
	}
	if newN, _ := strconv.ParseInt(newRevision, 10, 64); oldN < newN {
		setAnnotation(&rs.Metadata, revisionAnnotation, newRevision)
		changed = true
		if history := rs.Metadata.Annotations[revisionHistoryAnnotation]; had && history == "" {
			setAnnotation(&rs.Metadata, revisionHistoryAnnotation, oldRevision)
		} else if had {
			revisions := strings.Split(history, ",")
			total, start := len(history)+len(oldRevision)+1, 0
			for total > maxRevisionHistory && start < len(revisions) {
				total -= len(revisions[start]) + 1
				start++
			}
			if total <= maxRevisionHistory {
				setAnnotation(&rs.Metadata, revisionHistoryAnnotation, strings.Join(append(revisions[start:], oldRevision), ","))
			}
		}
	}
	return !exists && r.setReplicasAnnotations(rs) || changed
}

// setReplicasAnnotations records the Deployment's replicas and its most with
// surge on rs, and says whether they changed.
func (r *rollout) setReplicasAnnotations(rs *replicaSet) bool {
	desired := setAnnotation(&rs.Metadata, desiredReplicasAnnotation, strconv.FormatInt(r.replicas(), 10))
	most := setAnnotation(&rs.Metadata, maxReplicasAnnotation, strconv.FormatInt(r.replicas()+r.maxSurge(), 10))
	return desired || most
}

// replicasAnnotationsChange says whether setReplicasAnnotations would change rs.
func (r *rollout) replicasAnnotationsChange(rs *replicaSet) bool {
	return rs.Metadata.Annotations[desiredReplicasAnnotation] != strconv.FormatInt(r.replicas(), 10) ||
		rs.Metadata.Annotations[maxReplicasAnnotation] != strconv.FormatInt(r.replicas()+r.maxSurge(), 10)
}

// setAnnotation sets an annotation and says whether it changed.
func setAnnotation(m *controllers.ObjectMeta, key, value string) bool {
	if v, ok := m.Annotations[key]; ok && v == value {
		return false
	}
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[key] = value
	return true
}

func cloneMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+1)
	maps.Copy(out, m)
	return out
}

func annotationInt(rs *replicaSet, key string) (int64, bool) {
	v, ok := rs.Metadata.Annotations[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 31)
	return int64(n), err == nil
}

func revision(rs *replicaSet) int64 {
	n, _ := strconv.ParseInt(rs.Metadata.Annotations[revisionAnnotation], 10, 64)
	return n
}

// syncDeploymentStatus writes the status the ReplicaSets give, if it changed.
func (r *rollout) syncDeploymentStatus(all []*replicaSet, newRS *replicaSet) error {
	status := r.calculateStatus(all, newRS)
	if equalStatus(status, r.d.Status) {
		return nil
	}
	r.d.Status = status
	return r.updateStatus()
}

func equalStatus(a, b controllers.DeploymentStatus) bool {
	ea, _ := json.Marshal(a)
	eb, _ := json.Marshal(b)
	return string(ea) == string(eb)
}

// calculateStatus is the Deployment's status from its ReplicaSets, with its
// Available condition.
func (r *rollout) calculateStatus(all []*replicaSet, newRS *replicaSet) controllers.DeploymentStatus {
	available := sum(all, availableReplicas)
	status := controllers.DeploymentStatus{
		ObservedGeneration:  r.d.Metadata.Generation,
		Replicas:            sum(all, statusReplicas),
		UpdatedReplicas:     sum([]*replicaSet{newRS}, statusReplicas),
		ReadyReplicas:       sum(all, func(rs *replicaSet) int64 { return rs.Status.ReadyReplicas }),
		AvailableReplicas:   available,
		UnavailableReplicas: max(sum(all, specReplicas)-available, 0),
		CollisionCount:      r.d.Status.CollisionCount,
		Conditions:          slices.Clone(r.d.Status.Conditions),
	}
	if available >= r.replicas()-r.maxUnavailable() {
		r.setCondition(&status, "Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
	} else {
		r.setCondition(&status, "Available", "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability.")
	}
	return status
}

// syncRolloutStatus writes the status with the Progressing condition a
// rollout has reached, and looks again when the progress deadline passes.
func (r *rollout) syncRolloutStatus(all []*replicaSet, newRS *replicaSet) error {
	status := r.calculateStatus(all, newRS)
	if !r.hasProgressDeadline() {
		removeCondition(&status, "Progressing")
	}
	current := controllers.FindCondition(r.d.Status.Conditions, "Progressing")
	completed := status.Replicas == status.UpdatedReplicas && current != nil && current.Reason == availableReason
	if r.hasProgressDeadline() && !completed {
		subject := fmt.Sprintf("Deployment %q", r.d.Metadata.Name)
		if newRS != nil {
			subject = fmt.Sprintf("ReplicaSet %q", newRS.Metadata.Name)
		}
		switch {
		case r.complete(&status):
			r.setCondition(&status, "Progressing", "True", availableReason, subject+" has successfully progressed.")
		case r.progressing(&status):
			transition := ""
			if current != nil {
				if current.Status == "True" {
					transition = current.LastTransitionTime
				}
				removeCondition(&status, "Progressing")
			}
			r.setCondition(&status, "Progressing", "True", "ReplicaSetUpdated", subject+" is progressing.")
			if transition != "" {
				controllers.FindCondition(status.Conditions, "Progressing").LastTransitionTime = transition
			}
		case r.timedOut(&status):
			r.setCondition(&status, "Progressing", "False", timedOutReason, subject+" has timed out progressing.")
		}
	}
	if failure := r.replicaFailure(all, newRS); failure != nil {
		r.setCondition(&status, "ReplicaFailure", failure.Status, failure.Reason, failure.Message)
	} else {
		removeCondition(&status, "ReplicaFailure")
	}
	if equalStatus(status, r.d.Status) {
		r.requeueStuck(&status)
		return nil
	}
	r.d.Status = status
	return r.updateStatus()
}

// replicaFailure is the ReplicaFailure condition of the new ReplicaSet, else
// of any.
func (r *rollout) replicaFailure(all []*replicaSet, newRS *replicaSet) *controllers.Condition {
	for _, rs := range append([]*replicaSet{newRS}, all...) {
		if rs != nil {
			if c := controllers.FindCondition(rs.Status.Conditions, "ReplicaFailure"); c != nil {
				return c
			}
		}
	}
	return nil
}

// requeueStuck looks at a rollout again when its progress deadline passes.
func (r *rollout) requeueStuck(status *controllers.DeploymentStatus) {
	current := controllers.FindCondition(r.d.Status.Conditions, "Progressing")
	if !r.hasProgressDeadline() || current == nil || r.complete(status) || current.Reason == timedOutReason {
		return
	}
	since, _ := time.Parse(time.RFC3339, current.LastUpdateTime)
	after := max(since.Add(r.deadline()).Sub(r.now), 0)
	r.dc.Queue.AddAfter(r.key, after+time.Second)
}

// complete is DeploymentComplete: every replica updated and available, and
// the latest generation observed.
func (r *rollout) complete(s *controllers.DeploymentStatus) bool {
	n := r.replicas()
	return s.UpdatedReplicas == n && s.Replicas == n && s.AvailableReplicas == n && s.ObservedGeneration >= r.d.Metadata.Generation
}

// progressing is DeploymentProgressing: status moved on from the last one.
func (r *rollout) progressing(s *controllers.DeploymentStatus) bool {
	old := &r.d.Status
	return s.UpdatedReplicas > old.UpdatedReplicas || s.Replicas-s.UpdatedReplicas < old.Replicas-old.UpdatedReplicas ||
		s.ReadyReplicas > old.ReadyReplicas || s.AvailableReplicas > old.AvailableReplicas
}

// timedOut is DeploymentTimedOut: no progress for progressDeadlineSeconds.
func (r *rollout) timedOut(s *controllers.DeploymentStatus) bool {
	c := controllers.FindCondition(s.Conditions, "Progressing")
	switch {
	case c == nil || c.Reason == availableReason:
		return false
	case c.Reason == timedOutReason:
		return true
	}
	since, _ := time.Parse(time.RFC3339, c.LastUpdateTime)
	return since.Add(r.deadline()).Before(r.now)
}

func (r *rollout) deadline() time.Duration {
	return time.Duration(*r.d.Spec.ProgressDeadlineSeconds) * time.Second
}

func (r *rollout) hasProgressDeadline() bool {
	return r.d.Spec.ProgressDeadlineSeconds != nil && *r.d.Spec.ProgressDeadlineSeconds != 1<<31-1
}

// setCondition is SetDeploymentCondition: a condition of the same status and
// reason stays as it is; one of the same status keeps its transition time.
func (r *rollout) setCondition(s *controllers.DeploymentStatus, typ, value, reason, message string) {
	current := controllers.FindCondition(s.Conditions, typ)
	if current != nil && current.Status == value && current.Reason == reason {
		return
	}
	now := object.Timestamp(r.now)
	c := controllers.Condition{Type: typ, Status: value, LastUpdateTime: now, LastTransitionTime: now, Reason: reason, Message: message}
	if current != nil && current.Status == value {
		c.LastTransitionTime = current.LastTransitionTime
	}
	removeCondition(s, typ)
	s.Conditions = append(s.Conditions, c)
}

func removeCondition(s *controllers.DeploymentStatus, typ string) {
	s.Conditions = slices.DeleteFunc(slices.Clone(s.Conditions), func(c controllers.Condition) bool { return c.Type == typ })
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
	ru := r.d.Spec.Strategy.RollingUpdate
	if r.d.Spec.Strategy.Type == "Recreate" || r.replicas() == 0 || ru == nil {
		return 0, 0
	}
	surge, unavailable = scaled(ru.MaxSurge, r.replicas(), true), scaled(ru.MaxUnavailable, r.replicas(), false)
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return surge, unavailable
}

// scaled is GetScaledValueFromIntOrPercent.
func scaled(v json.RawMessage, total int64, roundUp bool) int64 {
	var percent string
	if json.Unmarshal(v, &percent) != nil {
		return object.Int(string(v))
	}
	p := object.Int(strings.TrimSuffix(percent, "%"))
	if roundUp {
		return (p*total + 99) / 100
	}
	return p * total / 100
}

// saturated is IsSaturated: the new ReplicaSet has all the Deployment's
// replicas, available.
func (r *rollout) saturated(rs *replicaSet) bool {
	if rs == nil {
		return false
	}
	desired, ok := annotationInt(rs, desiredReplicasAnnotation)
	return ok && specReplicas(rs) == r.replicas() && desired == r.replicas() && rs.Status.AvailableReplicas == r.replicas()
}

// activeOrLatest is FindActiveOrLatest: the one ReplicaSet with replicas, or
// the newest when none has any; nil when several have.
func activeOrLatest(newRS *replicaSet, oldRSs []*replicaSet) *replicaSet {
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

func specReplicas(rs *replicaSet) int64      { return controllers.Replicas(rs.Spec.Replicas) }
func statusReplicas(rs *replicaSet) int64    { return rs.Status.Replicas }
func availableReplicas(rs *replicaSet) int64 { return rs.Status.AvailableReplicas }

// active are the ReplicaSets with replicas.
func active(sets []*replicaSet) []*replicaSet {
	var out []*replicaSet
	for _, rs := range sets {
		if rs != nil && specReplicas(rs) > 0 {
			out = append(out, rs)
		}
	}
	return out
}

// sum adds a count up over ReplicaSets (nil ones count nothing).
func sum(sets []*replicaSet, count func(*replicaSet) int64) int64 {
	var n int64
	for _, rs := range sets {
		if rs != nil {
			n += count(rs)
		}
	}
	return n
}

// byCreation sorts ReplicaSets oldest first, then by name.
func byCreation(sets []*replicaSet) {
	slices.SortStableFunc(sets, func(a, b *replicaSet) int {
		return cmp.Or(cmp.Compare(a.Metadata.CreationTimestamp, b.Metadata.CreationTimestamp), cmp.Compare(a.Metadata.Name, b.Metadata.Name))
	})
}

// byRevision sorts ReplicaSets oldest revision first.
func byRevision(sets []*replicaSet) {
	byCreation(sets)
	slices.SortStableFunc(sets, func(a, b *replicaSet) int { return cmp.Compare(revision(a), revision(b)) })
}

// bySize sorts ReplicaSets largest first; among equals, newest first when
// newer, else oldest first.
func bySize(sets []*replicaSet, newer bool) {
	byCreation(sets)
	if newer {
		slices.Reverse(sets)
	}
	slices.SortStableFunc(sets, func(a, b *replicaSet) int { return cmp.Compare(specReplicas(b), specReplicas(a)) })
}

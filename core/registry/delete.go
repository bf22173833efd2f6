package registry

import (
	"context"
	"fmt"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/storage"
)

// Deletion, as kube's generic registry deletes (registry/generic/registry
// store.go and rest/delete.go): a delete first checks its preconditions, then
// the kind's grace period (Pods), then what the garbage collector must do
// (the orphan and foregroundDeletion finalizers its propagationPolicy asks
// for); an object that finalizers hold is marked (deletionTimestamp,
// deletionGracePeriodSeconds) and stays until the last finalizer is removed,
// anything else is removed at once. core/controllers' garbage collector does
// what the finalizers ask.

// The garbage collector's finalizers.
const (
	FinalizerOrphan     = "orphan"
	FinalizerForeground = "foregroundDeletion"
)

// DeleteOptions are metav1.DeleteOptions.
type DeleteOptions struct {
	GracePeriodSeconds *int64         `json:"gracePeriodSeconds,omitempty"`
	Preconditions      *Preconditions `json:"preconditions,omitempty"`
	// OrphanDependents is the deprecated form of PropagationPolicy.
	OrphanDependents  *bool    `json:"orphanDependents,omitempty"`
	PropagationPolicy *string  `json:"propagationPolicy,omitempty"`
	DryRun            []string `json:"dryRun,omitempty"`
	// IgnoreStoreReadErrorWithClusterBreakingPotential deletes an object the
	// store cannot read (ForceDeleteCorrupt), and nothing else.
	IgnoreStoreReadErrorWithClusterBreakingPotential *bool `json:"ignoreStoreReadErrorWithClusterBreakingPotential,omitempty"`
}

// Preconditions must hold for a delete to happen.
type Preconditions struct {
	UID             *string `json:"uid,omitempty"`
	ResourceVersion *string `json:"resourceVersion,omitempty"`
}

// forceDelete says whether the options ask to delete a corrupt object.
func (o DeleteOptions) forceDelete() bool {
	return o.IgnoreStoreReadErrorWithClusterBreakingPotential != nil && *o.IgnoreStoreReadErrorWithClusterBreakingPotential
}

// Validate checks the options as kube's ValidateDeleteOptions does, every
// problem in one 422 on meta.k8s.io's DeleteOptions.
func (o DeleteOptions) Validate() error {
	var errs field.ErrorList
	policy := field.NewPath("propagationPolicy")
	if o.OrphanDependents != nil && o.PropagationPolicy != nil {
		errs = append(errs, field.Invalid(policy, *o.PropagationPolicy, "orphanDependents and deletionPropagation cannot be both set"))
	}
	if p := o.PropagationPolicy; p != nil && *p != object.PropagationForeground && *p != object.PropagationBackground && *p != object.PropagationOrphan {
		errs = append(errs, field.NotSupported(policy, *p, []string{object.PropagationForeground, object.PropagationBackground, object.PropagationOrphan, "nil"}))
	}
	errs = append(errs, ValidateDryRun(o.DryRun)...)
	if o.forceDelete() {
		force := field.NewPath("ignoreStoreReadErrorWithClusterBreakingPotential")
		for _, set := range []struct {
			name string
			set  bool
		}{
			{"dryRun", len(o.DryRun) > 0},
			{"propagationPolicy", o.PropagationPolicy != nil},
			{"orphanDependents", o.OrphanDependents != nil},
			{"gracePeriodSeconds", o.GracePeriodSeconds != nil},
			{"preconditions", o.Preconditions != nil},
		} {
			if set.set {
				errs = append(errs, field.Invalid(force, true, "cannot be set together with ."+set.name))
			}
		}
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid("meta.k8s.io", "DeleteOptions", "", errs)
	}
	return nil
}

// ValidateDryRun checks a write's dryRun values: none, or "All".
func ValidateDryRun(values []string) field.ErrorList {
	for _, v := range values {
		if v != "All" {
			return field.ErrorList{field.NotSupported(field.NewPath("dryRun"), values, []string{"All"})}
		}
	}
	return nil
}

// deleteHow is what a delete does.
type deleteHow int

const (
	// deleteGeneric: the kind has no deletion of its own; the generic one decides.
	deleteGeneric deleteHow = iota
	deleteKeep              // nothing changes: the object is answered as it is
	deleteLater             // marked: finalizers or a grace period hold it
	deleteNow               // removed at once
	// deleteMarkedNow: marked (a MODIFIED event), then removed (a grace period
	// of zero: a Pod that never ran).
	deleteMarkedNow
)

// gcPolicy is what deleting a kind does to its dependents when the delete
// does not say (kube's DefaultGarbageCollectionPolicy).
type gcPolicy int

const (
	// gcBackground: the garbage collector deletes them after the owner
	// (kube's DeleteDependents, which the apps/v1 kinds say, or no policy).
	gcBackground gcPolicy = iota
	// gcUnsupported: the kind never gets the garbage collector's finalizers
	// (Events).
	gcUnsupported
)

// DeleteResult is what a delete did.
type DeleteResult struct {
	// Object is the object as now stored, or as deleted (for a dry run, as it
	// would be).
	Object []byte
	// Gone: the object was removed.
	Gone bool
}

// Delete deletes the target, or marks it for deletion when finalizers or a
// grace period hold it.
func (s *Store) Delete(t Target, opts DeleteOptions) (DeleteResult, error) {
	t = t.stored()
	if err := opts.Validate(); err != nil {
		return DeleteResult{}, err
	}
	if opts.forceDelete() {
		return s.forceDeleteCorrupt(t)
	}
	st := strategyFor(t, s.clock, s.cel)
	var how deleteHow
	var marked []byte // the marked object, when it is removed after
	stored, err := s.mutate(t, func(cur []byte, rev int64) (storage.Change, error) {
		how, marked = deleteGeneric, nil
		obj, err := s.decodeStored(t, cur)
		if err != nil {
			return storage.Change{}, err
		}
		if err := s.admit(Delete, t, nil, obj); err != nil {
			return storage.Change{}, err
		}
		if err := (validatingPolicies{s.webhooks}).Admit(Delete, t, nil, obj); err != nil {
			return storage.Change{}, err
		}
		if err := (validatingWebhooks{s.webhooks}).Admit(Delete, t, nil, obj); err != nil {
			return storage.Change{}, err
		}
		o := opts // beginDelete may settle the grace period
		if how, err = st.BeginDelete(t, obj, &o, s.clock.Now()); err == nil && how == deleteGeneric {
			how, err = beginDelete(st, t, obj, &o, s.clock.Now())
		}
		switch {
		case err != nil:
			return storage.Change{}, err
		case how == deleteKeep:
			return storage.Change{Op: storage.Keep}, nil
		case how == deleteNow:
			return deletion(cur, rev)
		}
		ch, err := s.put(t, obj, rev)
		if how == deleteMarkedNow {
			marked = ch.Value
		}
		return ch, err
	})
	switch {
	case err != nil:
		return DeleteResult{}, err
	case how == deleteMarkedNow && t.DryRun:
		return DeleteResult{Object: stored, Gone: true}, nil
	case how == deleteMarkedNow:
		// The mark is stored: remove what was marked, unless it was replaced.
		mark, _ := object.Decode(marked)
		uid := object.MetaString(mark, "uid")
		rev, gone, err := s.storage.Mutate(t.key(), func(cur []byte, rev int64) (storage.Change, error) {
			obj, err := object.Decode(cur)
			if cur == nil || err != nil || object.MetaString(obj, "uid") != uid {
				return storage.Change{}, apierrors.NewNotFound(t.served().Group, t.served().Plural, t.Name)
			}
			return deletion(cur, rev)
		})
		if err == nil {
			t.committed(rev, storage.Delete)
		}
		if apierrors.HasCode(err, 404) {
			return DeleteResult{Object: stored, Gone: true}, nil // deleted meanwhile
		}
		return DeleteResult{Object: gone, Gone: err == nil}, err
	}
	return DeleteResult{Object: stored, Gone: how == deleteNow}, nil
}

// deletion is the change that removes the object stored as cur at revision
// rev: the DELETED event carries it as it was, with the deletion's revision.
func deletion(cur []byte, rev int64) (storage.Change, error) {
	b, err := object.Restamp(cur, rev)
	return storage.Change{Op: storage.Delete, Value: b}, err
}

// decodeStored reads the object stored at t (cur): 404 when there is none,
// kube's 500 for a corrupt one.
func (s *Store) decodeStored(t Target, cur []byte) (object.Object, error) {
	if cur == nil {
		return nil, apierrors.NewNotFound(t.served().Group, t.served().Plural, t.Name)
	}
	if IsCorrupt(cur) {
		return nil, CorruptObjectError(t.Res, t.Namespace, t.Name)
	}
	obj, err := object.Decode(cur)
	if err != nil {
		return nil, apierrors.NewInternal(err)
	}
	return obj, nil
}

// beginDelete is the generic deletion of obj (changed in place): its
// preconditions, its grace period, the garbage collector's finalizers, and
// then whether it goes now.
func beginDelete(st Strategy, t Target, obj object.Object, opts *DeleteOptions, now time.Time) (deleteHow, error) {
	meta := object.Meta(obj)
	if err := checkPreconditions(t, meta, opts.Preconditions); err != nil {
		return 0, err
	}
	if g := opts.GracePeriodSeconds; g != nil && *g < 0 {
		one := int64(1)
		opts.GracePeriodSeconds = &one
	}
	graceful, pending := beginGracefulDelete(st, obj, opts, now)
	if pending {
		return deleteKeep, nil
	}
	before := len(object.Strings(meta, "finalizers"))
	changed, finalizers := gcFinalizers(st.GCPolicy(), meta, *opts)
	if !graceful && before == 0 && !changed {
		return deleteNow, nil
	}
	if changed {
		setFinalizers(meta, finalizers)
	}
	switch {
	case len(finalizers) > 0 && !graceful:
		markDeleting(meta, now)
	case len(finalizers) > 0:
	case !graceful:
		return deleteNow, nil
	case *opts.GracePeriodSeconds == 0:
		return deleteMarkedNow, nil
	}
	return deleteLater, nil
}

// checkPreconditions checks a delete's preconditions as kube's BeforeDelete
// does.
func checkPreconditions(t Target, meta map[string]any, p *Preconditions) error {
	if p == nil {
		return nil
	}
	uid, _ := meta["uid"].(string)
	rv, _ := meta["resourceVersion"].(string)
	var why string
	switch {
	case p.UID != nil && *p.UID != uid:
		why = fmt.Sprintf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, uid)
	case p.ResourceVersion != nil && *p.ResourceVersion != rv:
		why = fmt.Sprintf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, rv)
	default:
		return nil
	}
	// kube names the kind here, not the resource.
	st := apierrors.NewConflict(t.Res.Group, t.Res.Kind, t.Name, why)
	st.Details.Kind = t.Res.Kind
	return st
}

// checkPreconditionsAsStorage checks them as the storage layer words it: the
// kinds whose REST deletion is their own (namespaces, CRDs) check them so.
func checkPreconditionsAsStorage(t Target, meta map[string]any, p *Preconditions) error {
	if p == nil {
		return nil
	}
	uid, _ := meta["uid"].(string)
	rv, _ := meta["resourceVersion"].(string)
	switch {
	case p.UID != nil && *p.UID != uid:
		return apierrors.NewConflict(t.served().Group, t.served().Plural, t.Name, fmt.Sprintf("Precondition failed: UID in precondition: %s, UID in object meta: %s", *p.UID, uid))
	case p.ResourceVersion != nil && *p.ResourceVersion != rv:
		return apierrors.NewConflict(t.served().Group, t.served().Plural, t.Name, fmt.Sprintf("Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in object meta: %s", *p.ResourceVersion, rv))
	}
	return nil
}

// beginGracefulDelete is the grace period of kube's BeforeDelete, for the
// kinds deleted gracefully (Pods): a first delete sets deletionTimestamp to
// now plus the period and deletionGracePeriodSeconds to it (and bumps the
// generation); a later one may only shorten it. pending: the deletion under
// way already ends sooner, and nothing changes.
func beginGracefulDelete(st Strategy, obj object.Object, opts *DeleteOptions, now time.Time) (graceful, pending bool) {
	if _, ok := st.GracePeriod(obj, nil); !ok {
		return false, false
	}
	meta := object.Meta(obj)
	if meta["deletionTimestamp"] != nil {
		current := meta["deletionGracePeriodSeconds"]
		period := object.Int(current)
		if current == nil || period <= 0 {
			return false, false
		}
		if opts.GracePeriodSeconds == nil || *opts.GracePeriodSeconds >= period {
			return false, true
		}
		started, _ := time.Parse(time.RFC3339, fmt.Sprint(meta["deletionTimestamp"]))
		shorter := *opts.GracePeriodSeconds
		meta["deletionTimestamp"] = object.Timestamp(started.Add(time.Duration(shorter-period) * time.Second))
		meta["deletionGracePeriodSeconds"] = shorter
		return true, false
	}
	period, _ := st.GracePeriod(obj, opts.GracePeriodSeconds)
	opts.GracePeriodSeconds = &period
	meta["deletionTimestamp"] = object.Timestamp(now.Add(time.Duration(period) * time.Second))
	meta["deletionGracePeriodSeconds"] = period
	if gen := object.Int(meta["generation"]); gen > 0 {
		meta["generation"] = gen + 1
	}
	return true, false
}

// markDeleting marks an object held by finalizers as being deleted, as kube's
// markAsDeleting does: deletionTimestamp now (unless an earlier one is
// set), deletionGracePeriodSeconds 0, and the generation bumped the first time.
func markDeleting(meta map[string]any, now time.Time) {
	ts, _ := meta["deletionTimestamp"].(string)
	if ts == "" {
		if gen := object.Int(meta["generation"]); gen > 0 {
			meta["generation"] = gen + 1
		}
	}
	if set, err := time.Parse(time.RFC3339, ts); ts == "" || err != nil || set.After(now) {
		meta["deletionTimestamp"] = object.Timestamp(now)
	}
	meta["deletionGracePeriodSeconds"] = 0
}

// gcFinalizers are the finalizers a delete leaves on an object for the
// garbage collector (kube's deletionFinalizersForGarbageCollection): orphan
// to orphan its dependents, foregroundDeletion to delete them first, as the
// options, else the finalizers already there, else the kind's policy say.
// changed says whether they differ from the object's.
func gcFinalizers(policy gcPolicy, meta map[string]any, opts DeleteOptions) (changed bool, finalizers []string) {
	current := object.Strings(meta, "finalizers")
	if policy == gcUnsupported {
		return false, current
	}
	orphan, foreground := false, false
	switch {
	case opts.OrphanDependents != nil:
		orphan = *opts.OrphanDependents
	case opts.PropagationPolicy != nil:
		orphan = *opts.PropagationPolicy == object.PropagationOrphan
		foreground = *opts.PropagationPolicy == object.PropagationForeground
	default:
		for _, f := range current {
			if f == FinalizerOrphan || f == FinalizerForeground {
				orphan, foreground = f == FinalizerOrphan, f == FinalizerForeground
				break
			}
		}
	}
	finalizers = []string{}
	for _, f := range current {
		if f != FinalizerOrphan && f != FinalizerForeground {
			finalizers = append(finalizers, f)
		}
	}
	if orphan {
		finalizers = append(finalizers, FinalizerOrphan)
	}
	if foreground {
		finalizers = append(finalizers, FinalizerForeground)
	}
	if object.SameStrings(current, finalizers) {
		return false, current
	}
	return true, finalizers
}

// setFinalizers sets metadata.finalizers, or removes them when there are none.
func setFinalizers(meta map[string]any, finalizers []string) {
	if len(finalizers) == 0 {
		delete(meta, "finalizers")
		return
	}
	object.SetStrings(meta, "finalizers", finalizers)
}

// DeleteCollection deletes, one by one as kube does, every object of the
// target's collection that filter keeps, and returns them as they were
// listed, with the list's revision. It stops when ctx ends (the client has
// gone), as kube's deletes with the request's context do.
func (s *Store) DeleteCollection(ctx context.Context, t Target, o *ListOptions, opts DeleteOptions) ([]Item, int64, error) {
	t = t.stored()
	if err := opts.Validate(); err != nil {
		return nil, 0, err
	}
	// kube lists what it deletes through its watch cache, consistently.
	res, err := s.storage.List(storage.ListOptions{Prefix: collectionPrefix(t.Res, t.Namespace), Filter: o.filter(), Cache: storage.CacheConsistent})
	if err != nil {
		return nil, 0, err
	}
	for _, it := range res.Items {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		obj, err := object.Decode([]byte(it.Value))
		if err != nil {
			continue
		}
		one := t
		one.Name, one.inCollection = object.MetaString(obj, "name"), true
		if one.Res.Namespaced {
			one.Namespace = object.MetaString(obj, "namespace")
		}
		if _, err := s.Delete(one, opts); err != nil && !apierrors.HasCode(err, 404) {
			return nil, 0, err
		}
	}
	return res.Items, res.Rev, nil
}

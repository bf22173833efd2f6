package registry

import (
	"time"

	"kubeplay/core/api"
	"kubeplay/core/clock"
	"kubeplay/core/defaults"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/types"
)

// Strategy is what one kind does differently on its way into storage, as kube's
// rest.RESTCreateStrategy, RESTUpdateStrategy and RESTDeleteStrategy are. The
// generic Store calls it; a built-in kind's rules are its descriptor's hooks
// (core/kinds, api.Hooks), which the one strategy of every built-in kind
// runs; a custom resource's are its definition's.
type Strategy interface {
	// Canonicalize writes what a request decoded into in the form kube stores:
	// the kind's defaults (core/defaults), which kube gives every object it
	// decodes, and its conversion's effects (a Secret's stringData written
	// into data).
	Canonicalize(obj object.Object)
	// AsRead gives a valid object written through a view the defaults its
	// stored kind's reads give it: kube validates a write in the request's
	// version and decodes what it stored with the storage version's
	// defaults, so every answer shows them.
	AsRead(obj object.Object)
	// PrepareForCreate sets what a new object starts with (its status), before
	// it is validated.
	PrepareForCreate(obj object.Object)
	// PrepareForUpdate returns the object to store when a write to sub (""
	// for the resource itself) turns old into obj: each part changes only its
	// own fields.
	PrepareForUpdate(obj, old object.Object, sub string) object.Object
	// Validate checks a new object against the kind's own rules (metadata is
	// checked for every kind).
	Validate(obj object.Object) field.ErrorList
	// WarningsOnCreate are the warnings a valid new object is answered with.
	WarningsOnCreate(obj object.Object) []string
	// ValidateUpdate checks the object a write to sub turns old into: the
	// kind's rules, and what may not change.
	ValidateUpdate(obj, old object.Object, sub string) field.ErrorList
	// NewGeneration says whether an update of old to obj bumps
	// metadata.generation (for the kinds that track it).
	NewGeneration(obj, old object.Object) bool
	// BeginDelete is the kind's own deletion of obj (changed in place), as
	// namespaces and CRDs have (their first delete only marks them);
	// deleteGeneric leaves it to the generic deletion. An error refuses the
	// delete.
	BeginDelete(t Target, obj object.Object, opts *DeleteOptions, now time.Time) (deleteHow, error)
	// GCPolicy is what deleting the kind does to dependents when the delete
	// does not say.
	GCPolicy() gcPolicy
	// GracePeriod is how long deleting obj takes when requested (nil: as
	// the object says), and whether the kind is deleted gracefully at all
	// (kube's CheckGracefulDelete).
	GracePeriod(obj object.Object, requested *int64) (period int64, graceful bool)
	// DeleteWhenFinalized: an update that leaves obj, being deleted, with nothing
	// holding it removes it.
	DeleteWhenFinalized(obj, old object.Object) bool
}

// strategyFor is the strategy of a resource's kind, on clk: a custom
// resource's, or the one every built-in kind has, with its descriptor's hooks.
func strategyFor(t Target, clk clock.Clock, c api.CEL) Strategy {
	res := t.Res
	base := resourceStrategy{res: res, via: t.Via, clock: clk, cel: c, warn: t.warn}
	if res.Custom != nil {
		return customStrategy{base}
	}
	return base
}

// resourceStrategy is what every kind does: the kind's defaults, a status
// subresource that owns status, finalizers that hold a deleted object; and
// what the kind's descriptor (core/kinds) says it does besides
// (api.Hooks).
type resourceStrategy struct {
	res   *api.Resource
	via   *api.Resource // the view the write came through, if any
	clock clock.Clock   // the time for the kinds whose strategy notes it
	cel   api.CEL       // the host's CEL, nil if it has none
	warn  func([]string)
}

// checks are the hooks that validate the write: the view's when it has its
// own (kube validates by the request's version), else the kind's.
func (s resourceStrategy) checks() *api.Hooks {
	if s.via != nil && s.via.Hooks.Validate != nil {
		return &s.via.Hooks
	}
	return &s.res.Hooks
}

// Canonicalize gives the object its defaults and the fields its Go type
// always writes (kinds without built-in Go types, custom resources, have
// neither here), then what the kind's conversion does. A write through a
// view that has defaults of its own gets those (kube defaults a write in
// its request's version, before it converts it).
//
//go:noinline
func (s resourceStrategy) Canonicalize(obj object.Object) {
	if s.via != nil && s.via.Defaults != nil {
		s.via.Defaults(obj)
	} else if s.res.Defaults != nil {
		s.res.Defaults(obj)
	}
	defaults.Apply(s.res.APIVersion(), s.res.Kind, obj)
	if !s.res.Hooks.AsWritten {
		types.Complete(s.res.APIVersion(), s.res.Kind, obj)
	}
	if h := s.res.Hooks.Canonicalize; h != nil {
		h(obj)
	}
}

func (s resourceStrategy) AsRead(obj object.Object) {
	if s.via != nil && s.via.Defaults != nil && s.res.Defaults != nil {
		s.res.Defaults(obj)
	}
}

// encode writes obj in its stored form, its fields in the order of its kind's
// Go type, as kube-apiserver writes them.
func encode(res *api.Resource, obj object.Object) ([]byte, error) {
	return object.EncodeOrdered(obj, types.Order(res.APIVersion(), res.Kind))
}

// NewGeneration: a kind that tracks generation bumps it when anything but
// metadata and status changes, or what its hook says does.
//
//go:noinline
func (s resourceStrategy) NewGeneration(obj, old object.Object) bool {
	h := s.res.Hooks.NewGeneration
	return s.res.Generation && !s.res.GenerationFixed && (specChanged(old, obj) || h != nil && h(obj, old))
}

func (s resourceStrategy) PrepareForCreate(obj object.Object) {
	if h := s.res.Hooks.PrepareForCreate; h != nil {
		h(obj, s.clock.Now())
	}
}

func (s resourceStrategy) WarningsOnCreate(obj object.Object) []string {
	if h := s.res.Hooks.WarningsOnCreate; h != nil {
		return h(obj)
	}
	return nil
}

// WarningsOnUpdate is kube's WarningsOnUpdate, the kind's hook's.
func (s resourceStrategy) WarningsOnUpdate(obj, old object.Object) []string {
	if h := s.res.Hooks.WarningsOnUpdate; h != nil {
		return h(obj, old)
	}
	return nil
}

// Validate is the kind's own check, when it has one.
func (s resourceStrategy) Validate(obj object.Object) field.ErrorList {
	var errs field.ErrorList
	if h := s.checks().Validate; h != nil {
		errs = h(obj)
	}
	return append(errs, s.validateCEL(obj, nil)...)
}

// ValidateUpdate is the kind's own check of an update, else its Validate.
func (s resourceStrategy) ValidateUpdate(obj, old object.Object, sub string) field.ErrorList {
	if h := s.checks().ValidateUpdate; h != nil {
		errs := h(obj, old, sub)
		if sub == "" {
			errs = append(errs, s.validateCEL(obj, old)...)
		}
		return errs
	}
	return s.Validate(obj)
}

// validateCEL is the kind's check of what the object says in CEL.
func (s resourceStrategy) validateCEL(obj, old object.Object) field.ErrorList {
	h := s.res.Hooks.ValidateCEL
	if h == nil {
		return nil
	}
	errs, warnings := h(s.cel, obj, old)
	s.warn(warnings)
	return errs
}

// PrepareForUpdate is the kind's hook's, else what every kind does
// (schema.Update.Generic).
//
//go:noinline
func (s resourceStrategy) PrepareForUpdate(obj, old object.Object, sub string) object.Object {
	u := api.Update{Res: s.res, Obj: obj, Old: old, Sub: sub, Now: s.clock.Now()}
	if h := s.res.Hooks.PrepareForUpdate; h != nil {
		return h(u)
	}
	return u.Generic()
}

// BeginDelete: most kinds are deleted the generic way; a kind whose
// deletion is its own (api.Hooks.MarkDeleting) is marked by its first
// delete and left to its own finalizers.
//
//go:noinline
func (s resourceStrategy) BeginDelete(t Target, obj object.Object, opts *DeleteOptions, now time.Time) (deleteHow, error) {
	mark := s.res.Hooks.MarkDeleting
	if mark == nil {
		return deleteGeneric, nil
	}
	meta := object.Meta(obj)
	if err := checkPreconditionsAsStorage(t, meta, opts.Preconditions); err != nil {
		return 0, err
	}
	if meta["deletionTimestamp"] != nil {
		if s.finalizing(obj) {
			return deleteKeep, nil
		}
		return deleteGeneric, nil
	}
	propagation := ""
	switch p := opts.PropagationPolicy; {
	case opts.OrphanDependents != nil && *opts.OrphanDependents:
		propagation = object.PropagationOrphan
	case opts.OrphanDependents != nil:
		propagation = object.PropagationForeground
	case p != nil:
		propagation = *p
	}
	mark(obj, now, propagation)
	return deleteLater, nil
}

// finalizing says whether the kind's own finalizers hold obj.
func (s resourceStrategy) finalizing(obj object.Object) bool {
	h := s.res.Hooks.Finalizing
	return h != nil && h(obj)
}

// GCPolicy: dependents are deleted in the background.
//
//go:noinline
func (s resourceStrategy) GCPolicy() gcPolicy {
	if s.res.Hooks.NoGarbageCollection {
		return gcUnsupported
	}
	return gcBackground
}

// GracePeriod is the kind's hook's; without one, a delete is immediate.
func (s resourceStrategy) GracePeriod(obj object.Object, requested *int64) (int64, bool) {
	if h := s.res.Hooks.GracePeriod; h != nil {
		return h(obj, requested), true
	}
	return 0, false
}

// DeleteWhenFinalized is kube's ShouldDeleteDuringUpdate: the object is being
// deleted, with no grace period left, and its last finalizer is gone (the
// kind's own ones too).
//
//go:noinline
func (s resourceStrategy) DeleteWhenFinalized(obj, old object.Object) bool {
	if s.finalizing(obj) {
		return false
	}
	oldMeta := object.Meta(old)
	grace := oldMeta["deletionGracePeriodSeconds"]
	return oldMeta["deletionTimestamp"] != nil && len(object.Strings(object.Meta(obj), "finalizers")) == 0 &&
		(grace == nil || object.Int(grace) == 0)
}

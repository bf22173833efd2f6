package api

import (
	"time"

	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/user"
)

// Hooks are what a built-in kind does differently on its way into storage, as
// kube's per-kind strategies (rest.RESTCreateStrategy, RESTUpdateStrategy,
// RESTDeleteStrategy) have it. core/registry's generic strategy calls them;
// each is optional, and a kind without them gets only what every kind does.
type Hooks struct {
	// Canonicalize writes, after the kind's defaults, what kube's conversion
	// of a decoded object shows (a Secret's stringData written into data).
	Canonicalize func(obj object.Object)
	// PrepareForCreate sets what a new object starts with (its status),
	// before it is validated; now is the write's time.
	PrepareForCreate func(obj object.Object, now time.Time)
	// SetRequester writes into a new object, after PrepareForCreate, who
	// asks for it (a CertificateSigningRequest's requester).
	SetRequester func(obj object.Object, u user.User)
	// PrepareForUpdate returns the object to store for u, in place of
	// u.Generic().
	PrepareForUpdate func(u Update) object.Object
	// StatusResetsMetadata are the metadata fields a write to the status
	// subresource resets besides spec, as the kind's status strategy names
	// them (its GetResetFields): nobody owns them through it.
	StatusResetsMetadata []string
	// StatusOnly: a write to the status subresource changes nothing but the
	// status, its metadata included, as the status strategies of the kinds
	// that reset all of it have it (FlowSchemas, PriorityLevelConfigurations,
	// and those calling kube's ResetObjectMetaForStatus). Without it the
	// metadata written is kept but for StatusResetsMetadata, as most kinds'
	// status strategies reset only the spec.
	StatusOnly bool
	// Validate checks a new object against the kind's own rules (metadata is
	// checked for every kind).
	Validate func(obj object.Object) field.ErrorList
	// ValidateUpdate checks the object a write to sub ("" for the resource
	// itself) turns old into; without it, an update is checked by Validate.
	ValidateUpdate func(obj, old object.Object, sub string) field.ErrorList
	// ValidateCEL checks what the object says in the Common Expression
	// Language (a CustomResourceDefinition's rules), with the host's CEL
	// (old is nil on create); without one, it warns that it could not.
	ValidateCEL func(c CEL, obj, old object.Object) (field.ErrorList, []string)
	// LabelChecksOnUpdate is how many times kube's validation of an update
	// checks the object's labels and annotations, each time listing their
	// causes again (twice in what every kind's metadata gets, once or twice
	// more in the kind's own update validation); 0: once.
	LabelChecksOnUpdate int
	// WarningsOnCreate and WarningsOnUpdate are the warnings a valid write is
	// answered with.
	WarningsOnCreate func(obj object.Object) []string
	WarningsOnUpdate func(obj, old object.Object) []string
	// NewGeneration says what, besides a change of anything but metadata and
	// status, bumps metadata.generation (for the kinds that track it).
	NewGeneration func(obj, old object.Object) bool
	// GracePeriod is how long deleting obj takes when requested (nil: as
	// the object says), for the kinds deleted gracefully (kube's
	// CheckGracefulDelete); without it, a delete is immediate.
	GracePeriod func(obj object.Object, requested *int64) int64
	// Admit is the kind's own mutating admission (kube's plugins that
	// complete or refuse one kind's objects: a Pod's service account,
	// priority and tolerations, a Node's taint), run for a create (old nil)
	// or an update of the object itself, named name, where kube's chain runs
	// them: after LimitRanger, before DefaultStorageClass.
	Admit func(name string, obj, old object.Object) error
	// MarkDeleting makes the kind's deletion its own (kube's namespace and
	// CustomResourceDefinition REST deletions): a first delete only marks
	// obj as being deleted at now, propagation being what the delete asks of
	// dependents ("Orphan", "Foreground", "Background"; "" when it does not
	// say); while Finalizing holds it, a delete changes nothing; then the
	// generic deletion removes it. Such a kind's delete preconditions are
	// checked as kube's storage words them.
	MarkDeleting func(obj object.Object, now time.Time, propagation string)
	// Finalizing says whether the kind's own finalizers still hold obj (a
	// namespace's spec.finalizers): it is not removed while they do.
	Finalizing func(obj object.Object) bool
	// NoGarbageCollection: the kind's objects never get the garbage
	// collector's finalizers (kube's Events).
	NoGarbageCollection bool
	// AsWritten: the kind's objects keep the form they were written in,
	// not completed to what their Go type writes (kubeplay's API Priority
	// and Fairness kinds, whose defaults write what they need).
	AsWritten bool
}

// Update is a write that turns Old into Obj, as a kind's PrepareForUpdate
// sees it.
type Update struct {
	Res      *Resource
	Obj, Old object.Object
	Sub      string    // the subresource written, "" for the resource itself
	Now      time.Time // the write's time
}

// Generic is what every kind stores for an update: a write to the status
// subresource changes the status and the metadata, all but what the kind's
// status strategy resets (StatusResetsMetadata); a custom resource's, or a
// StatusOnly kind's, changes only the status (and the managedFields the write
// records); a write to a kind that has one keeps the status as it was.
func (u Update) Generic() object.Object {
	switch {
	case u.Sub == "status":
		out := object.DeepCopy(u.Old)
		SetOrDelete(out, "status", u.Obj)
		if u.Res.Custom != nil || u.Res.Hooks.StatusOnly {
			KeepManagedFields(out, u.Obj)
			return out
		}
		meta, oldMeta := object.Meta(u.Obj), object.Meta(u.Old)
		for _, f := range u.Res.Hooks.StatusResetsMetadata {
			SetOrDelete(meta, f, oldMeta)
		}
		out["metadata"] = meta
		return out
	case u.Res.Sub("status") != nil:
		SetOrDelete(u.Obj, "status", u.Old)
	}
	return u.Obj
}

// KeepManagedFields gives a subresource's result the managedFields of the
// object written (an apply's), as kube's status strategies keep them.
func KeepManagedFields(out, obj object.Object) {
	SetOrDelete(object.Meta(out), "managedFields", object.Meta(obj))
}

// SetOrDelete sets dst's field to src's, or removes it when src has none.
func SetOrDelete(dst object.Object, key string, src object.Object) {
	if v, ok := src[key]; ok {
		dst[key] = v
	} else {
		delete(dst, key)
	}
}

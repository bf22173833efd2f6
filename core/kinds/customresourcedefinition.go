package kinds

import (
	"slices"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/crd"
	"kubeplay/core/field"
	"kubeplay/core/object"
)

// customResourceDefinition is apiextensions.k8s.io/v1
// CustomResourceDefinition: its defaults, status and validation are
// core/crd's; its first delete only marks it, as kube's REST does.
func customResourceDefinition() *api.Resource {
	return &api.Resource{
		Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition",
		Plural: "customresourcedefinitions", Singular: "customresourcedefinition",
		ShortNames: []string{"crd", "crds"}, Categories: []string{"api-extensions"}, Verbs: allVerbs, Generation: true, Untyped: true,
		UpdateNeedsVersion: true,
		Subs:               []api.Subresource{{Name: "status", Kind: "CustomResourceDefinition", Group: "apiextensions.k8s.io", Verbs: statusVerbs}},
		Hooks: api.Hooks{
			Canonicalize:     crd.Canonicalize,
			PrepareForCreate: func(obj object.Object, _ time.Time) { crd.PrepareForCreate(obj) },
			PrepareForUpdate: func(u api.Update) object.Object {
				out := u.Generic()
				if u.Sub == "" {
					crd.PrepareForUpdate(out, u.Old)
				}
				return out
			},
			Validate: func(obj object.Object) field.ErrorList {
				errs, _ := crd.Validate(obj)
				return errs
			},
			ValidateUpdate: func(obj, old object.Object, sub string) field.ErrorList {
				if sub != "" {
					return nil
				}
				errs, _ := crd.Validate(obj)
				return append(errs, crd.ValidateUpdate(obj, old)...)
			},
			ValidateCEL: crd.ValidateCEL,
			// What writing the definition warns of, on update too.
			WarningsOnCreate: crdWarnings,
			WarningsOnUpdate: func(obj, _ object.Object) []string { return crdWarnings(obj) },
			MarkDeleting:     markCRDDeleting,
		},
	}
}

// crdWarnings are what writing a definition warns of.
func crdWarnings(obj object.Object) []string {
	_, warnings := crd.Validate(obj)
	return warnings
}

// crdFinalizer holds a deleted CustomResourceDefinition until its objects
// are gone (core/crd's controller deletes them, then removes it).
const crdFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// markCRDDeleting is kube's CustomResourceDefinition REST deletion: the
// first delete marks the definition Terminating and holds it with the
// cleanup finalizer (whatever the delete asks of dependents).
func markCRDDeleting(obj object.Object, now time.Time, _ string) {
	meta := object.Meta(obj)
	meta["deletionTimestamp"] = object.Timestamp(now)
	if finalizers := object.Strings(meta, "finalizers"); !slices.Contains(finalizers, crdFinalizer) {
		object.SetStrings(meta, "finalizers", append(finalizers, crdFinalizer))
	}
	setCondition(obj, map[string]any{"type": "Terminating", "status": "True", "lastTransitionTime": object.Timestamp(now),
		"reason": "InstanceDeletionPending", "message": "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon"})
}

// setCondition sets a condition in status.conditions, replacing one of its
// type.
func setCondition(obj object.Object, cond map[string]any) {
	status := object.Child(obj, "status")
	conds, _ := status["conditions"].([]any)
	for i, c := range conds {
		if object.Path(c, "type") == cond["type"] {
			conds[i] = cond
			return
		}
	}
	status["conditions"] = append(conds, cond)
}

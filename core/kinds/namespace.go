package kinds

import (
	"slices"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
)

// namespace is v1 Namespace: held by its spec.finalizers until the
// namespace controller has emptied it, which only the finalize subresource
// changes; its deletion is its own, as kube's namespace REST deletion is.
func namespace() *api.Resource {
	return &api.Resource{
		Version: "v1", Kind: "Namespace", Plural: "namespaces", Singular: "namespace",
		ShortNames: []string{"ns"}, Verbs: clusterVerbs, Names: api.DNSLabel,
		Subs: []api.Subresource{
			{Name: "finalize", Kind: "Namespace", Verbs: []string{"update"}},
			{Name: "status", Kind: "Namespace", Verbs: statusVerbs},
		},
		ReturnDeleted: true,
		Fields:        map[string]func(object.Object) string{"status.phase": str("status", "phase")},
		Defaults:      defaultNamespace,
		Hooks: api.Hooks{
			LabelChecksOnUpdate: 4,
			PrepareForCreate:    prepareNewNamespace,
			PrepareForUpdate:    prepareNamespaceUpdate,
			// The first delete marks it Terminating and leaves the rest to the
			// namespace controller.
			MarkDeleting: markNamespaceDeleting,
			Finalizing: func(obj object.Object) bool {
				spec, _ := obj["spec"].(map[string]any)
				return len(object.Strings(spec, "finalizers")) > 0
			},
		},
		Printer: table.Namespace,
	}
}

// defaultNamespace is SetDefaults_Namespace: a named namespace is labelled with its
// name.
func defaultNamespace(m map[string]any) {
	meta := object.Child(m, "metadata")
	if name, _ := meta["name"].(string); name != "" {
		object.Child(meta, "labels")["kubernetes.io/metadata.name"] = name
	}
}

// prepareNewNamespace: a new namespace is Active, and held by the
// kubernetes finalizer until the namespace controller has emptied it. One
// named from a generateName is labelled with its name only now, as kube's
// Canonicalize labels it: after the write was recorded in managedFields.
func prepareNewNamespace(obj object.Object, _ time.Time) {
	labels, _ := object.Meta(obj)["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
		object.Meta(obj)["labels"] = labels
	}
	labels["kubernetes.io/metadata.name"] = object.MetaString(obj, "name")
	obj["status"] = map[string]any{"phase": "Active"}
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		obj["spec"] = spec
	}
	finalizers, _ := spec["finalizers"].([]any)
	if !slices.Contains(finalizers, any("kubernetes")) {
		spec["finalizers"] = append(finalizers, "kubernetes")
	}
}

// prepareNamespaceUpdate: only the finalize subresource changes
// spec.finalizers.
func prepareNamespaceUpdate(u api.Update) object.Object {
	if u.Sub != "finalize" {
		obj := u.Generic()
		if u.Sub == "" {
			spec, _ := obj["spec"].(map[string]any)
			if spec == nil {
				spec = map[string]any{}
				obj["spec"] = spec
			}
			oldSpec, _ := u.Old["spec"].(map[string]any)
			api.SetOrDelete(spec, "finalizers", oldSpec)
		}
		return obj
	}
	out := object.DeepCopy(u.Old)
	api.KeepManagedFields(out, u.Obj)
	spec, _ := out["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		out["spec"] = spec
	}
	if f, ok := object.Path(u.Obj, "spec", "finalizers").([]any); ok && len(f) > 0 {
		spec["finalizers"] = f
	} else {
		delete(spec, "finalizers")
	}
	return out
}

// The garbage collector's finalizers (k8s.io/apimachinery's metav1).
const (
	finalizerOrphan     = "orphan"
	finalizerForeground = "foregroundDeletion"
)

// markNamespaceDeleting marks a namespace Terminating, with the garbage
// collector's finalizers the delete asks for: unlike the generic deletion, a
// namespace keeps the one the delete does not speak of.
func markNamespaceDeleting(obj object.Object, now time.Time, propagation string) {
	meta := object.Meta(obj)
	meta["deletionTimestamp"] = object.Timestamp(now)
	object.Child(obj, "status")["phase"] = "Terminating"
	finalizers := object.Strings(meta, "finalizers")
	orphan, foreground := slices.Contains(finalizers, finalizerOrphan), slices.Contains(finalizers, finalizerForeground)
	if propagation != "" {
		orphan, foreground = propagation == "Orphan", propagation == "Foreground"
	}
	kept := slices.DeleteFunc(slices.Clone(finalizers), func(f string) bool { return f == finalizerOrphan || f == finalizerForeground })
	if orphan {
		kept = append(kept, finalizerOrphan)
	}
	if foreground {
		kept = append(kept, finalizerForeground)
	}
	if object.SameStrings(kept, finalizers) {
		return
	}
	if len(kept) == 0 {
		delete(meta, "finalizers")
	} else {
		object.SetStrings(meta, "finalizers", kept)
	}
}

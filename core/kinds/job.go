package kinds

import (
	"time"

	"kubeplay/core/api"
	"kubeplay/core/defaults"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
)

// job is batch/v1 Job (its rules are not checked yet).
func job() *api.Resource {
	return &api.Resource{
		Group: "batch", Version: "v1", Kind: "Job", Plural: "jobs", Singular: "job",
		Namespaced: true, Categories: []string{"all"}, Verbs: allVerbs,
		Generation: true,
		Subs:       []api.Subresource{{Name: "status", Kind: "Job", Group: "batch", Verbs: statusVerbs}},
		Fields:     map[string]func(object.Object) string{"status.successful": str("status", "succeeded")},
		Defaults:   defaultJob,
		Hooks: api.Hooks{
			Canonicalize: convertTemplate,
			PrepareForCreate: func(obj object.Object, _ time.Time) {
				obj["status"] = map[string]any{}
				generateSelector(obj)
				// What kube stores is read back through the defaults, which
				// give a Job without labels its template's, now the
				// selector's.
				if meta := object.Child(obj, "metadata"); len(object.StringMap(meta, "labels")) == 0 {
					if labels, ok := object.Path(obj, "spec", "template", "metadata", "labels").(map[string]any); ok {
						meta["labels"] = object.DeepCopyValue(labels)
					}
				}
			},
			PrepareForUpdate: statusResetsSpecOnly,
		},
		Printer: table.Job,
	}
}

// statusResetsSpecOnly is the PrepareForUpdate of the kinds whose status
// strategy resets only the spec (a Job's, a CronJob's): what a write to
// their status makes of the metadata a client may change (labels,
// annotations, finalizers, owners) is kept.
func statusResetsSpecOnly(u api.Update) object.Object {
	out := u.Generic()
	if u.Sub == "status" {
		meta, written := object.Meta(out), object.Meta(u.Obj)
		for _, f := range []string{"labels", "annotations", "finalizers", "ownerReferences"} {
			api.SetOrDelete(meta, f, written)
		}
	}
	return out
}

// defaultJob is SetDefaults_Job: one completion at a time, six retries, the
// template's labels for a Job without its own (the very map, as in kube:
// the labels the registry adds to the template show on the Job too), not
// suspended.
func defaultJob(m map[string]any) {
	spec := object.Child(m, "spec")
	if spec["completions"] == nil && spec["parallelism"] == nil {
		spec["completions"] = defaults.Number("1")
	}
	defaults.SetUnset(spec, "parallelism", defaults.Number("1"))
	if spec["backoffLimitPerIndex"] != nil {
		defaults.SetUnset(spec, "backoffLimit", defaults.Number("2147483647"))
	}
	defaults.SetUnset(spec, "backoffLimit", defaults.Number("6"))
	meta := object.Child(m, "metadata")
	if labels, ok := object.Path(spec, "template", "metadata", "labels").(map[string]any); ok && len(object.StringMap(meta, "labels")) == 0 {
		meta["labels"] = labels
	}
	defaults.SetUnset(spec, "completionMode", "NonIndexed")
	defaults.SetUnset(spec, "suspend", false)
	if spec["podFailurePolicy"] != nil {
		defaults.SetUnset(spec, "podReplacementPolicy", "Failed")
	}
	defaults.SetUnset(spec, "podReplacementPolicy", "TerminatingOrFailed")
	defaults.SetUnset(spec, "manualSelector", false)
}

// generateSelector: unless a new Job chose its own selector
// (manualSelector), its Pods are told apart by its uid: the template gets
// the controller-uid and job-name labels (with their legacy, unprefixed
// twins) and the selector matches the uid, as kube's generateSelector does.
func generateSelector(obj object.Object) {
	spec := object.Child(obj, "spec")
	if spec["manualSelector"] == true {
		return
	}
	uid, name := object.MetaString(obj, "uid"), object.MetaString(obj, "name")
	labels := object.Child(object.Child(object.Child(spec, "template"), "metadata"), "labels")
	for _, prefix := range []string{"batch.kubernetes.io/", ""} {
		labels[prefix+"controller-uid"], labels[prefix+"job-name"] = uid, name
	}
	spec["selector"] = map[string]any{"matchLabels": map[string]any{"batch.kubernetes.io/controller-uid": uid}}
}

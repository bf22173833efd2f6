package registry

import (
	"strconv"

	"kubeplay/core/object"
)

// What kube's registry adds to the Job and DaemonSet strategies, as
// workloadRules.prepare hooks.

// prepareJob: unless a new Job chose its own selector (manualSelector), its
// Pods are told apart by its uid: the template gets the controller-uid and
// job-name labels (with their legacy, unprefixed twins) and the selector
// matches the uid, as kube's generateSelector does.
func prepareJob(obj, _, old object.Object, _ string) {
	spec := object.Child(obj, "spec")
	if old != nil || spec["manualSelector"] == true {
		return
	}
	uid, name := object.MetaString(obj, "uid"), object.MetaString(obj, "name")
	labels := object.Child(object.Child(object.Child(spec, "template"), "metadata"), "labels")
	for _, prefix := range []string{"batch.kubernetes.io/", ""} {
		labels[prefix+"controller-uid"], labels[prefix+"job-name"] = uid, name
	}
	spec["selector"] = map[string]any{"matchLabels": map[string]any{"batch.kubernetes.io/controller-uid": uid}}
}

// templateGeneration is the annotation apps/v1 keeps a DaemonSet's template
// generation in.
const templateGeneration = "deprecated.daemonset.template.generation"

// prepareDaemonSet: a DaemonSet's template generation, which apps/v1 shows as
// the deprecated.daemonset.template.generation annotation, starts at 1 and
// counts the template's changes.
func prepareDaemonSet(obj, _, old object.Object, sub string) {
	generation := int64(1)
	if old != nil {
		generation = max(object.Int(object.StringMap(object.Meta(old), "annotations")[templateGeneration]), 1)
		if sub == "" && !object.Equal(object.Path(obj, "spec", "template"), object.Path(old, "spec", "template")) {
			generation++
		}
	}
	object.Child(object.Meta(obj), "annotations")[templateGeneration] = strconv.FormatInt(generation, 10)
}

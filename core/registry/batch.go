package registry

import (
	"fmt"

	"kubeplay/core/object"
)

// The Job and DaemonSet strategies: what kube's registry adds to them.

// jobStrategy: a new Job's status is empty and, unless it chose its own
// selector (manualSelector), its Pods are told apart by its uid: the
// template gets the controller-uid and job-name labels (with their legacy,
// unprefixed twins) and the selector matches the uid, as kube's
// generateSelector does.
type jobStrategy struct{ workloadStrategy }

func (s jobStrategy) PrepareForCreate(obj object.Object) {
	obj["status"] = map[string]any{}
	spec := specOf(obj)
	if spec["manualSelector"] == true {
		return
	}
	uid, name := object.MetaString(obj, "uid"), object.MetaString(obj, "name")
	template, _ := spec["template"].(map[string]any)
	if template == nil {
		return
	}
	meta, _ := template["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		template["metadata"] = meta
	}
	labels, _ := meta["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
		meta["labels"] = labels
	}
	for _, prefix := range []string{"batch.kubernetes.io/", ""} {
		labels[prefix+"controller-uid"], labels[prefix+"job-name"] = uid, name
	}
	spec["selector"] = map[string]any{"matchLabels": map[string]any{"batch.kubernetes.io/controller-uid": uid}}
}

// daemonSetStrategy: a DaemonSet's template generation, which apps/v1 shows
// as the deprecated.daemonset.template.generation annotation, starts at 1
// and counts the template's changes; a new one's status is all zeros.
type daemonSetStrategy struct{ workloadStrategy }

// templateGeneration is the annotation apps/v1 keeps a DaemonSet's template
// generation in.
const templateGeneration = "deprecated.daemonset.template.generation"

func (daemonSetStrategy) PrepareForCreate(obj object.Object) {
	obj["status"] = map[string]any{"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0, "numberReady": 0}
	setTemplateGeneration(obj, 1)
}

func (s daemonSetStrategy) PrepareForUpdate(obj, old object.Object, sub string) object.Object {
	obj = s.workloadStrategy.PrepareForUpdate(obj, old, sub)
	generation := object.Int(object.StringMap(object.Meta(old), "annotations")[templateGeneration])
	if sub == "" && !object.Equal(object.Path(obj, "spec", "template"), object.Path(old, "spec", "template")) {
		generation++
	}
	setTemplateGeneration(obj, max(generation, 1))
	return obj
}

func setTemplateGeneration(obj object.Object, n int64) {
	meta := object.Meta(obj)
	annotations, _ := meta["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
		meta["annotations"] = annotations
	}
	annotations[templateGeneration] = fmt.Sprint(n)
}

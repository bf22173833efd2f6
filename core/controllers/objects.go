package controllers

import (
	"errors"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/object"
	"kubeplay/core/selector"
)

// OwnerRef is the ownerReference of an object controlled by owner (of kind in
// apiVersion), as metav1.NewControllerRef makes it: the garbage collector
// deletes the object with its owner, and foreground deletion of the owner
// waits for it.
func OwnerRef(owner object.Object, apiVersion, kind string) map[string]any {
	return map[string]any{"apiVersion": apiVersion, "kind": kind, "name": object.MetaString(owner, "name"),
		"uid": object.MetaString(owner, "uid"), "controller": true, "blockOwnerDeletion": true}
}

// ControllerOf is the uid of obj's controller (the ownerReference with
// controller: true), or "".
func ControllerOf(obj object.Object) string {
	for _, ref := range object.Objects(object.Meta(obj), "ownerReferences") {
		if c, _ := ref["controller"].(bool); c {
			uid, _ := ref["uid"].(string)
			return uid
		}
	}
	return ""
}

// ByController is an informer index of objects by their controller's uid.
func ByController(obj object.Object) []string {
	if uid := ControllerOf(obj); uid != "" {
		return []string{uid}
	}
	return nil
}

// Selects says whether the label selector sel (a LabelSelector) selects
// labels; an empty or invalid selector selects nothing.
func Selects(sel map[string]any, labels map[string]string) bool {
	s, ok := selector.FormatLabelSelector(sel)
	if !ok || s == "" {
		return false
	}
	parsed, err := selector.ParseLabels(s)
	return err == nil && parsed.Matches(labels)
}

// PodReady says whether a Pod's Ready condition is True.
func PodReady(pod object.Object) bool {
	c := Condition(pod, "Ready")
	return c != nil && c["status"] == "True"
}

// PodAvailable says whether a Pod has been ready for minReadySeconds at now.
func PodAvailable(pod object.Object, minReadySeconds int64, now time.Time) bool {
	if !PodReady(pod) {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	since, err := time.Parse(time.RFC3339, object.String(Condition(pod, "Ready")["lastTransitionTime"]))
	return err == nil && !since.Add(time.Duration(minReadySeconds)*time.Second).After(now)
}

// PodActive says whether a Pod counts for its controller: neither finished
// (Succeeded, Failed) nor being deleted.
func PodActive(pod object.Object) bool {
	phase := object.Path(pod, "status", "phase")
	return phase != "Succeeded" && phase != "Failed" && object.Meta(pod)["deletionTimestamp"] == nil
}

// Condition is the condition of type typ in obj's status.conditions, or nil.
func Condition(obj object.Object, typ string) map[string]any {
	status, _ := obj["status"].(map[string]any)
	for _, c := range object.Objects(status, "conditions") {
		if c["type"] == typ {
			return c
		}
	}
	return nil
}

// PodFromTemplate is the Pod a controller creates from a Pod template
// (a PodTemplateSpec), as kube's GetPodFromTemplate makes it: the template's
// labels, annotations, finalizers and spec, a name generated from
// generateName, and the controller's ownerReference.
func PodFromTemplate(template map[string]any, generateName string, owner map[string]any) object.Object {
	t := object.DeepCopy(template)
	meta := map[string]any{"generateName": generateName, "ownerReferences": []any{owner}}
	tm, _ := t["metadata"].(map[string]any)
	for _, f := range []string{"labels", "annotations", "finalizers"} {
		if v, ok := tm[f]; ok {
			meta[f] = v
		}
	}
	return object.Object{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": t["spec"]}
}

// Replicas is an int32 field (spec.replicas, status.readyReplicas, ...) of obj
// at path; absent is 0.
func Replicas(obj object.Object, path ...string) int64 { return object.Int(object.Path(obj, path...)) }

// Message is what a failed call says: the message of the Status the server
// answered with, as kube's controllers quote an error in their events.
func Message(err error) string {
	var e *client.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// Package kinds owns the built-in kinds kubeplay serves, one descriptor per
// kind in one file per kind: its resource names, scope, verbs, subresources,
// short names and field selectors as kube-apiserver v1.32 serves them, its
// strategy's hooks (what a new or updated object gets, its validation, its
// warnings, how it is deleted), its own defaults and its printer. All is the
// list that the API registry (core/api) serves, and through it core/registry's
// strategies, core/defaults and the Tables read.
//
// A descriptor may name rules kept where other kinds share them (the Pod
// template's validation in core/validation, the printers' cells in
// core/encoding/table); the kind's wiring is its file's alone.
package kinds

import (
	"fmt"

	"kubeplay/core/field"

	"kubeplay/core/api"
	"kubeplay/core/object"
)

// All returns the built-in kinds of kube-apiserver v1.32 that kubeplay
// serves, a group's first (discovery sorts them by resource name, as kube
// does).
func All() []*api.Resource {
	ev, hpa := event(), horizontalPodAutoscaler()
	return []*api.Resource{
		namespace(), binding(), pod(), configMap(), secret(), service(), endpoints(), node(),
		persistentVolumeClaim(), persistentVolume(), resourceQuota(), limitRange(), ev, serviceAccount(), podTemplate(), replicationController(), componentStatus(),
		controllerRevision(), daemonSet(), deployment(), replicaSet(), statefulSet(),
		hpa, horizontalPodAutoscalerV1(hpa),
		ingressClass(), ingress(), networkPolicy(), podDisruptionBudget(), storageClass(), csiDriver(), csiNode(), volumeAttachment(), csiStorageCapacity(), customResourceDefinition(), priorityClass(), cronJob(), job(), runtimeClass(),
		apiService(), endpointSlice(), lease(), selfSubjectReview(), tokenReview(), selfSubjectAccessReview(), subjectAccessReview(), localSubjectAccessReview(), selfSubjectRulesReview(), certificateSigningRequest(),
		clusterRole(), clusterRoleBinding(), role(), roleBinding(),
		flowSchema(), priorityLevelConfiguration(), eventsV1(ev),
		validatingWebhookConfiguration(), mutatingWebhookConfiguration(), validatingAdmissionPolicy(), validatingAdmissionPolicyBinding(),
	}
}

// Verb sets as kube-apiserver's discovery lists them.
var (
	allVerbs     = api.AllVerbs
	clusterVerbs = []string{"create", "delete", "get", "list", "patch", "update", "watch"}
	statusVerbs  = []string{"get", "patch", "update"}
	createOnly   = []string{"create"}
	// The connect subresources': a stream (exec, attach, portforward) is
	// upgraded from a GET or a POST; a proxy passes any method on.
	connectStream = []string{"create", "get"}
	connectProxy  = []string{"create", "delete", "get", "patch", "update"}
)

// anySubresource is an update rule that judges every write alike, whatever
// subresource it goes through.
func anySubresource(rule func(obj, old object.Object) field.ErrorList) func(obj, old object.Object, sub string) field.ErrorList {
	return func(obj, old object.Object, _ string) field.ErrorList { return rule(obj, old) }
}

// notForStatus is an update rule for the resource itself: a write to the
// status subresource is judged by nothing else.
func notForStatus(rule func(obj object.Object) field.ErrorList) func(obj, old object.Object, sub string) field.ErrorList {
	return func(obj, _ object.Object, sub string) field.ErrorList {
		if sub == "status" {
			return nil
		}
		return rule(obj)
	}
}

// str reads a field selector field that holds a string.
func str(path ...string) func(object.Object) string {
	return func(o object.Object) string {
		switch v := object.Path(o, path...).(type) {
		case string:
			return v
		case nil:
			return ""
		default:
			return fmt.Sprint(v)
		}
	}
}

// boolField reads a field selector field that holds a bool.
func boolField(path ...string) func(object.Object) string {
	return func(o object.Object) string {
		if b, _ := object.Path(o, path...).(bool); b {
			return "true"
		}
		return "false"
	}
}

// nonNegative refuses m's field key when it is negative, with msg.
func nonNegative(m map[string]any, key string, p *field.Path, msg string) field.ErrorList {
	if v, ok := m[key]; ok && v != nil && object.Int(v) < 0 {
		return field.ErrorList{field.Invalid(p.Child(key), object.Int(v), msg)}
	}
	return nil
}

// mustBeNonNegative is kube's ValidateNonnegativeField's message.
const mustBeNonNegative = "must be greater than or equal to 0"

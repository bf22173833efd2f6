package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/schema"
)

// pod is policy/v1 Pod.
func pod() *schema.Resource {
	return &schema.Resource{
		Version: "v1", Kind: "Pod", Plural: "pods", Singular: "pod", Namespaced: true,
		ShortNames: []string{"po"}, Categories: []string{"all"}, Verbs: allVerbs,
		Subs: []schema.Subresource{
			{Name: "binding", Kind: "Binding", Verbs: createOnly},
			{Name: "eviction", Kind: "Eviction", Group: "policy", Verbs: []string{"create"}},
			{Name: "log", Kind: "Pod", Verbs: []string{"get"}},
			{Name: "status", Kind: "Pod", Verbs: statusVerbs},
		},
		ReturnDeleted: true,
		Fields: map[string]func(object.Object) string{
			"spec.nodeName":            str("spec", "nodeName"),
			"spec.restartPolicy":       str("spec", "restartPolicy"),
			"spec.schedulerName":       str("spec", "schedulerName"),
			"spec.serviceAccountName":  str("spec", "serviceAccountName"),
			"spec.hostNetwork":         boolField("spec", "hostNetwork"),
			"status.phase":             str("status", "phase"),
			"status.podIP":             str("status", "podIP"),
			"status.nominatedNodeName": str("status", "nominatedNodeName"),
		},
		Printer: table.Pod,
	}
}

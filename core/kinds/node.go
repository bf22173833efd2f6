package kinds

import (
	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
)

// node is v1 Node.
func node() *api.Resource {
	return &api.Resource{
		Version: "v1", Kind: "Node", Plural: "nodes", Singular: "node",
		ShortNames: []string{"no"}, Verbs: allVerbs,
		Subs: []api.Subresource{
			{Name: "proxy", Kind: "NodeProxyOptions", Verbs: connectProxy},
			{Name: "status", Kind: "Node", Verbs: statusVerbs},
		},
		Fields: map[string]func(object.Object) string{"spec.unschedulable": boolField("spec", "unschedulable")},
		Hooks: api.Hooks{
			LabelChecksOnUpdate: 4,
			Admit: func(_ string, obj, old object.Object) error {
				if old == nil {
					taintNotReady(obj)
				}
				return nil
			},
		},
		Printer: table.Node,
	}
}

// taintNotReady is kube's TaintNodesByCondition admission: a new Node is
// tainted not-ready until its kubelet says otherwise.
func taintNotReady(obj object.Object) {
	spec := object.Child(obj, "spec")
	taints, _ := spec["taints"].([]any)
	for _, taint := range taints {
		if m, _ := taint.(map[string]any); m["key"] == "node.kubernetes.io/not-ready" && m["effect"] == "NoSchedule" {
			return
		}
	}
	spec["taints"] = append(taints, map[string]any{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"})
}

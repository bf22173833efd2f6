package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/schema"
)

// node is v1 Node.
func node() *schema.Resource {
	return &schema.Resource{
		Version: "v1", Kind: "Node", Plural: "nodes", Singular: "node",
		ShortNames: []string{"no"}, Verbs: allVerbs,
		Subs: []schema.Subresource{
			{Name: "status", Kind: "Node", Verbs: statusVerbs},
		},
		Fields:  map[string]func(object.Object) string{"spec.unschedulable": boolField("spec", "unschedulable")},
		Printer: table.Node,
	}
}

package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/schema"
)

// daemonSet is apps/v1 DaemonSet.
func daemonSet() *schema.Resource {
	return &schema.Resource{
		Group: "apps", Version: "v1", Kind: "DaemonSet", Plural: "daemonsets", Singular: "daemonset",
		Namespaced: true, ShortNames: []string{"ds"}, Categories: []string{"all"}, Verbs: allVerbs,
		Generation: true,
		Subs:       []schema.Subresource{{Name: "status", Kind: "DaemonSet", Group: "apps", Verbs: statusVerbs}},
		Printer:    table.DaemonSet,
	}
}

package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/schema"
)

// replicaSet is apps/v1 ReplicaSet.
func replicaSet() *schema.Resource {
	return &schema.Resource{
		Group: "apps", Version: "v1", Kind: "ReplicaSet", Plural: "replicasets", Singular: "replicaset",
		Namespaced: true, ShortNames: []string{"rs"}, Categories: []string{"all"}, Verbs: allVerbs,
		Generation: true,
		Subs: []schema.Subresource{
			{Name: "scale", Kind: "Scale", Group: "autoscaling", Verbs: statusVerbs},
			{Name: "status", Kind: "ReplicaSet", Group: "apps", Verbs: statusVerbs},
		},
		Printer: table.ReplicaSet,
	}
}

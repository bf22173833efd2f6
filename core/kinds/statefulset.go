package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/schema"
)

// statefulSet is apps/v1 StatefulSet.
func statefulSet() *schema.Resource {
	return &schema.Resource{
		Group: "apps", Version: "v1", Kind: "StatefulSet", Plural: "statefulsets", Singular: "statefulset",
		Namespaced: true, ShortNames: []string{"sts"}, Categories: []string{"all"}, Verbs: allVerbs,
		Generation: true, Names: schema.DNSLabel,
		Subs: []schema.Subresource{
			{Name: "scale", Kind: "Scale", Group: "autoscaling", Verbs: statusVerbs},
			{Name: "status", Kind: "StatefulSet", Group: "apps", Verbs: statusVerbs},
		},
		Printer: table.StatefulSet,
	}
}

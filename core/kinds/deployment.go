package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/schema"
)

// deployment is apps/v1 Deployment.
func deployment() *schema.Resource {
	return &schema.Resource{
		Group: "apps", Version: "v1", Kind: "Deployment", Plural: "deployments", Singular: "deployment",
		Namespaced: true, ShortNames: []string{"deploy"}, Categories: []string{"all"}, Verbs: allVerbs,
		Generation: true,
		Subs: []schema.Subresource{
			{Name: "scale", Kind: "Scale", Group: "autoscaling", Verbs: statusVerbs},
			{Name: "status", Kind: "Deployment", Group: "apps", Verbs: statusVerbs},
		},
		Printer: table.Deployment,
	}
}

package kinds

import (
	"kubeplay/core/schema"
)

// podDisruptionBudget is policy/v1 PodDisruptionBudget.
func podDisruptionBudget() *schema.Resource {
	return &schema.Resource{
		Group: "policy", Version: "v1", Kind: "PodDisruptionBudget", Plural: "poddisruptionbudgets", Singular: "poddisruptionbudget",
		Namespaced: true, ShortNames: []string{"pdb"}, Verbs: allVerbs, Generation: true,
		Subs: []schema.Subresource{{Name: "status", Kind: "PodDisruptionBudget", Group: "policy", Verbs: statusVerbs}},
	}
}

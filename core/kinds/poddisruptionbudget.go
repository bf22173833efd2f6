package kinds

import (
	"kubeplay/core/api"
)

// podDisruptionBudget is policy/v1 PodDisruptionBudget.
func podDisruptionBudget() *api.Resource {
	return &api.Resource{
		Group: "policy", Version: "v1", Kind: "PodDisruptionBudget", Plural: "poddisruptionbudgets", Singular: "poddisruptionbudget",
		Namespaced: true, ShortNames: []string{"pdb"}, Verbs: allVerbs, Generation: true,
		Subs: []api.Subresource{{Name: "status", Kind: "PodDisruptionBudget", Group: "policy", Verbs: statusVerbs}},
	}
}

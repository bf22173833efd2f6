package kinds

import (
	"kubeplay/core/api"
	"kubeplay/core/validation"
)

// limitRange is v1 LimitRange: its rules, on update too. (What it does to
// other writes is core/registry's LimitRanger admission.)
func limitRange() *api.Resource {
	return &api.Resource{
		Version: "v1", Kind: "LimitRange", Plural: "limitranges", Singular: "limitrange",
		Namespaced: true, ShortNames: []string{"limits"}, Verbs: allVerbs, CreateOnUpdate: true,
		Hooks: api.Hooks{Validate: validation.LimitRange, LabelChecksOnUpdate: 3},
	}
}

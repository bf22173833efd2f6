package kinds

import (
	"kubeplay/core/schema"
	"kubeplay/core/validation"
)

// limitRange is v1 LimitRange: its rules, on update too. (What it does to
// other writes is core/registry's LimitRanger admission.)
func limitRange() *schema.Resource {
	return &schema.Resource{
		Version: "v1", Kind: "LimitRange", Plural: "limitranges", Singular: "limitrange",
		Namespaced: true, ShortNames: []string{"limits"}, Verbs: allVerbs, CreateOnUpdate: true,
		Hooks: schema.Hooks{Validate: validation.LimitRange},
	}
}

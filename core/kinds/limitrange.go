package kinds

import (
	"kubeplay/core/schema"
)

// limitRange is v1 LimitRange.
func limitRange() *schema.Resource {
	return &schema.Resource{
		Version: "v1", Kind: "LimitRange", Plural: "limitranges", Singular: "limitrange",
		Namespaced: true, ShortNames: []string{"limits"}, Verbs: allVerbs, CreateOnUpdate: true,
	}
}

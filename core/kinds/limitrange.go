package kinds

import (
	"time"

	"kubeplay/core/api"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// limitRange is v1 LimitRange: its rules, on update too. (What it does to
// other writes is core/registry's LimitRanger admission.) One created with
// neither a name nor a generateName is named by a new uid, as kube's strategy
// names it.
func limitRange() *api.Resource {
	return &api.Resource{
		Version: "v1", Kind: "LimitRange", Plural: "limitranges", Singular: "limitrange",
		Namespaced: true, ShortNames: []string{"limits"}, Verbs: allVerbs, CreateOnUpdate: true,
		Hooks: api.Hooks{Validate: validation.LimitRange, LabelChecksOnUpdate: 3,
			PrepareForCreate: func(obj object.Object, _ time.Time) {
				if meta := object.Meta(obj); object.MetaString(obj, "name") == "" {
					meta["name"] = object.NewUID()
				}
			}},
	}
}

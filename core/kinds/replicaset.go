package kinds

import (
	"time"

	"kubeplay/core/api"
	"kubeplay/core/defaults"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// replicaSet is apps/v1 ReplicaSet.
func replicaSet() *api.Resource {
	return &api.Resource{
		Group: "apps", Version: "v1", Kind: "ReplicaSet", Plural: "replicasets", Singular: "replicaset",
		Namespaced: true, ShortNames: []string{"rs"}, Categories: []string{"all"}, Verbs: allVerbs,
		Generation: true,
		Subs: []api.Subresource{
			{Name: "scale", Kind: "Scale", Group: "autoscaling", Verbs: statusVerbs},
			{Name: "status", Kind: "ReplicaSet", Group: "apps", Verbs: statusVerbs},
		},
		ScaleSelector: labelSelectorScale,
		// SetDefaults_ReplicaSet: one replica.
		Defaults: func(m map[string]any) { defaults.SetUnset(object.Child(m, "spec"), "replicas", defaults.Number("1")) },
		Hooks: api.Hooks{
			LabelChecksOnUpdate: 4,
			Canonicalize:        convertTemplate,
			PrepareForCreate:    func(obj object.Object, _ time.Time) { obj["status"] = map[string]any{"replicas": 0} },
			Validate:            validation.ReplicaSet,
			ValidateUpdate:      specUpdate(validation.ReplicaSetUpdate),
			WarningsOnCreate:    podNameWarning,
		},
		Printer: table.ReplicaSet,
	}
}

package kinds

import (
	"time"

	"kubeplay/core/api"
	"kubeplay/core/defaults"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// statefulSet is apps/v1 StatefulSet.
func statefulSet() *api.Resource {
	return &api.Resource{
		Group: "apps", Version: "v1", Kind: "StatefulSet", Plural: "statefulsets", Singular: "statefulset",
		Namespaced: true, ShortNames: []string{"sts"}, Categories: []string{"all"}, Verbs: allVerbs,
		Generation: true, Names: api.DNSLabel,
		Subs: []api.Subresource{
			{Name: "scale", Kind: "Scale", Group: "autoscaling", Verbs: statusVerbs},
			{Name: "status", Kind: "StatefulSet", Group: "apps", Verbs: statusVerbs},
		},
		ScaleSelector: labelSelectorScale,
		Defaults:      defaultStatefulSet,
		Hooks: api.Hooks{
			LabelChecksOnUpdate: 3,
			Canonicalize:        convertTemplate,
			PrepareForCreate: func(obj object.Object, _ time.Time) {
				obj["status"] = map[string]any{"replicas": 0, "availableReplicas": 0}
			},
			Validate:       validation.StatefulSet,
			ValidateUpdate: specUpdate(validation.StatefulSetUpdate),
		},
		Printer: table.StatefulSet,
	}
}

// defaultStatefulSet is SetDefaults_StatefulSet: pods made in order,
// rolling updates from partition 0, claims retained, one replica, ten
// revisions kept.
func defaultStatefulSet(m map[string]any) {
	spec := object.Child(m, "spec")
	defaults.SetString(spec, "podManagementPolicy", "OrderedReady")
	strategy := object.Child(spec, "updateStrategy")
	if s, _ := strategy["type"].(string); s == "" {
		strategy["type"] = "RollingUpdate"
		defaults.SetUnset(strategy, "rollingUpdate", map[string]any{})
	}
	if rolling, ok := strategy["rollingUpdate"].(map[string]any); ok && strategy["type"] == "RollingUpdate" {
		defaults.SetUnset(rolling, "partition", defaults.Number("0"))
	}
	retention := object.Child(spec, "persistentVolumeClaimRetentionPolicy")
	defaults.SetString(retention, "whenDeleted", "Retain")
	defaults.SetString(retention, "whenScaled", "Retain")
	defaults.SetUnset(spec, "replicas", defaults.Number("1"))
	defaults.SetUnset(spec, "revisionHistoryLimit", defaults.Number("10"))
}

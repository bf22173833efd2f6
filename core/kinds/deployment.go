package kinds

import (
	"time"

	"kubeplay/core/api"
	"kubeplay/core/defaults"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// deployment is apps/v1 Deployment.
func deployment() *api.Resource {
	return &api.Resource{
		Group: "apps", Version: "v1", Kind: "Deployment", Plural: "deployments", Singular: "deployment",
		Namespaced: true, ShortNames: []string{"deploy"}, Categories: []string{"all"}, Verbs: allVerbs,
		Generation: true,
		Subs: []api.Subresource{
			{Name: "scale", Kind: "Scale", Group: "autoscaling", Verbs: statusVerbs},
			{Name: "status", Kind: "Deployment", Group: "apps", Verbs: statusVerbs},
		},
		ScaleSelector: labelSelectorScale,
		Defaults:      defaultDeployment,
		Hooks: api.Hooks{
			StatusResetsMetadata: []string{"labels"},
			LabelChecksOnUpdate:  3,
			Canonicalize:         convertTemplate,
			PrepareForCreate:     func(obj object.Object, _ time.Time) { obj["status"] = map[string]any{} },
			PrepareForUpdate:     prepareDeploymentUpdate,
			Validate:             validation.Deployment,
			ValidateUpdate:       specUpdate(validation.DeploymentUpdate),
			WarningsOnCreate:     podNameWarning,
			// Annotations bump a Deployment's generation too (kube copies
			// them to its ReplicaSets).
			NewGeneration: func(obj, old object.Object) bool {
				return !object.Equal(object.Meta(obj)["annotations"], object.Meta(old)["annotations"])
			},
		},
		Printer: table.Deployment,
	}
}

// defaultDeployment is SetDefaults_Deployment: one replica, rolling updates
// of 25% surge and 25% unavailable, ten old ReplicaSets kept, ten minutes
// to progress.
func defaultDeployment(m map[string]any) {
	spec := object.Child(m, "spec")
	defaults.SetUnset(spec, "replicas", defaults.Number("1"))
	strategy := object.Child(spec, "strategy")
	defaults.SetString(strategy, "type", "RollingUpdate")
	if strategy["type"] == "RollingUpdate" {
		rolling := object.Child(strategy, "rollingUpdate")
		defaults.SetUnset(rolling, "maxUnavailable", "25%")
		defaults.SetUnset(rolling, "maxSurge", "25%")
	}
	defaults.SetUnset(spec, "revisionHistoryLimit", defaults.Number("10"))
	defaults.SetUnset(spec, "progressDeadlineSeconds", defaults.Number("600"))
}

// prepareDeploymentUpdate: a write to a Deployment's status may change its
// annotations too, as kube's deploymentStatusStrategy lets it (the
// controller records the revision so, without a new generation).
func prepareDeploymentUpdate(u api.Update) object.Object {
	out := u.Generic()
	if u.Sub == "status" {
		api.SetOrDelete(object.Meta(out), "annotations", object.Meta(u.Obj))
	}
	return out
}

package kinds

import (
	"strconv"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/defaults"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
)

// daemonSet is apps/v1 DaemonSet (its rules are not checked yet).
func daemonSet() *api.Resource {
	return &api.Resource{
		Group: "apps", Version: "v1", Kind: "DaemonSet", Plural: "daemonsets", Singular: "daemonset",
		Namespaced: true, ShortNames: []string{"ds"}, Categories: []string{"all"}, Verbs: allVerbs,
		Generation: true,
		Subs:       []api.Subresource{{Name: "status", Kind: "DaemonSet", Group: "apps", Verbs: statusVerbs}},
		Defaults:   defaultDaemonSet,
		Hooks: api.Hooks{
			Canonicalize: convertTemplate,
			PrepareForCreate: func(obj object.Object, _ time.Time) {
				obj["status"] = map[string]any{"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0, "numberReady": 0}
				countTemplateGeneration(obj, nil, "")
			},
			PrepareForUpdate: func(u api.Update) object.Object {
				out := u.Generic()
				countTemplateGeneration(out, u.Old, u.Sub)
				return out
			},
		},
		Printer: table.DaemonSet,
	}
}

// defaultDaemonSet is SetDefaults_DaemonSet: rolling updates one node at a
// time, ten revisions kept.
func defaultDaemonSet(m map[string]any) {
	spec := object.Child(m, "spec")
	strategy := object.Child(spec, "updateStrategy")
	defaults.SetString(strategy, "type", "RollingUpdate")
	if strategy["type"] == "RollingUpdate" {
		rolling := object.Child(strategy, "rollingUpdate")
		defaults.SetUnset(rolling, "maxUnavailable", defaults.Number("1"))
		defaults.SetUnset(rolling, "maxSurge", defaults.Number("0"))
	}
	defaults.SetUnset(spec, "revisionHistoryLimit", defaults.Number("10"))
}

// templateGeneration is the annotation apps/v1 keeps a DaemonSet's template
// generation in.
const templateGeneration = "deprecated.daemonset.template.generation"

// countTemplateGeneration: a DaemonSet's template generation, which apps/v1
// shows as the deprecated.daemonset.template.generation annotation, starts
// at 1 and counts the template's changes (old: nil for a new DaemonSet).
func countTemplateGeneration(obj, old object.Object, sub string) {
	generation := int64(1)
	if old != nil {
		generation = max(object.Int(object.StringMap(object.Meta(old), "annotations")[templateGeneration]), 1)
		if sub == "" && !object.Equal(object.Path(obj, "spec", "template"), object.Path(old, "spec", "template")) {
			generation++
		}
	}
	object.Child(object.Meta(obj), "annotations")[templateGeneration] = strconv.FormatInt(generation, 10)
}

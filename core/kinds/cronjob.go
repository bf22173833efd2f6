package kinds

import (
	"time"

	"kubeplay/core/api"
	"kubeplay/core/defaults"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
)

// cronJob is batch/v1 CronJob (its rules are not checked yet).
func cronJob() *api.Resource {
	return &api.Resource{
		Group: "batch", Version: "v1", Kind: "CronJob", Plural: "cronjobs", Singular: "cronjob",
		Namespaced: true, ShortNames: []string{"cj"}, Categories: []string{"all"}, Verbs: allVerbs,
		Generation: true,
		Subs:       []api.Subresource{{Name: "status", Kind: "CronJob", Group: "batch", Verbs: statusVerbs}},
		Defaults:   defaultCronJob,
		Hooks: api.Hooks{
			Canonicalize:     convertTemplate,
			PrepareForCreate: func(obj object.Object, _ time.Time) { obj["status"] = map[string]any{} },
			PrepareForUpdate: statusResetsSpecOnly,
		},
		Printer: table.CronJob,
	}
}

// defaultCronJob is SetDefaults_CronJob: concurrent runs allowed, three
// successful and one failed Job kept.
func defaultCronJob(m map[string]any) {
	spec := object.Child(m, "spec")
	object.Child(object.Child(spec, "jobTemplate"), "metadata") // kube's JSON shows the empty struct
	defaults.SetString(spec, "concurrencyPolicy", "Allow")
	defaults.SetUnset(spec, "suspend", false)
	defaults.SetUnset(spec, "successfulJobsHistoryLimit", defaults.Number("3"))
	defaults.SetUnset(spec, "failedJobsHistoryLimit", defaults.Number("1"))
}

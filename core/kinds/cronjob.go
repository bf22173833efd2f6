package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/schema"
)

// cronJob is batch/v1 CronJob.
func cronJob() *schema.Resource {
	return &schema.Resource{
		Group: "batch", Version: "v1", Kind: "CronJob", Plural: "cronjobs", Singular: "cronjob",
		Namespaced: true, ShortNames: []string{"cj"}, Categories: []string{"all"}, Verbs: allVerbs,
		Generation: true,
		Subs:       []schema.Subresource{{Name: "status", Kind: "CronJob", Group: "batch", Verbs: statusVerbs}},
		Printer:    table.CronJob,
	}
}

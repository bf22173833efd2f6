package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/schema"
)

// job is batch/v1 Job.
func job() *schema.Resource {
	return &schema.Resource{
		Group: "batch", Version: "v1", Kind: "Job", Plural: "jobs", Singular: "job",
		Namespaced: true, Categories: []string{"all"}, Verbs: allVerbs,
		Generation: true,
		Subs:       []schema.Subresource{{Name: "status", Kind: "Job", Group: "batch", Verbs: statusVerbs}},
		Fields:     map[string]func(object.Object) string{"status.successful": str("status", "succeeded")},
		Printer:    table.Job,
	}
}

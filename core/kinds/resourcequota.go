package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/schema"
)

// resourceQuota is v1 ResourceQuota.
func resourceQuota() *schema.Resource {
	return &schema.Resource{
		Version: "v1", Kind: "ResourceQuota", Plural: "resourcequotas", Singular: "resourcequota",
		Namespaced: true, ShortNames: []string{"quota"}, Verbs: allVerbs, ReturnDeleted: true,
		Subs:    []schema.Subresource{{Name: "status", Kind: "ResourceQuota", Verbs: statusVerbs}},
		Printer: table.ResourceQuota,
	}
}

package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/schema"
)

// flowSchema is flowcontrol.apiserver.k8s.io/v1 FlowSchema.
func flowSchema() *schema.Resource {
	return &schema.Resource{
		Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Kind: "FlowSchema",
		Plural: "flowschemas", Singular: "flowschema", Verbs: allVerbs, Generation: true,
		Subs:    []schema.Subresource{{Name: "status", Kind: "FlowSchema", Group: "flowcontrol.apiserver.k8s.io", Verbs: statusVerbs}},
		Printer: table.FlowSchema,
	}
}

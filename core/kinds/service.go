package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/schema"
)

// service is v1 Service.
func service() *schema.Resource {
	return &schema.Resource{
		Version: "v1", Kind: "Service", Plural: "services", Singular: "service",
		Namespaced: true, ShortNames: []string{"svc"}, Categories: []string{"all"},
		Verbs: allVerbs, Names: schema.DNS1035Label, CreateOnUpdate: true, ReturnDeleted: true,
		Subs: []schema.Subresource{
			{Name: "status", Kind: "Service", Verbs: statusVerbs},
		},
		Fields: map[string]func(object.Object) string{
			"spec.clusterIP": str("spec", "clusterIP"),
			"spec.type":      str("spec", "type"),
		},
		Printer: table.Service,
	}
}

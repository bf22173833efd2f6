package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/schema"
)

// namespace is v1 Namespace.
func namespace() *schema.Resource {
	return &schema.Resource{
		Version: "v1", Kind: "Namespace", Plural: "namespaces", Singular: "namespace",
		ShortNames: []string{"ns"}, Verbs: clusterVerbs, Names: schema.DNSLabel,
		Subs: []schema.Subresource{
			{Name: "finalize", Kind: "Namespace", Verbs: []string{"update"}},
			{Name: "status", Kind: "Namespace", Verbs: statusVerbs},
		},
		ReturnDeleted: true,
		Fields:        map[string]func(object.Object) string{"status.phase": str("status", "phase")},
		Printer:       table.Namespace,
	}
}

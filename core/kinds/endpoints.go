package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/schema"
)

// endpoints is v1 Endpoints.
func endpoints() *schema.Resource {
	return &schema.Resource{
		Version: "v1", Kind: "Endpoints", Plural: "endpoints", Singular: "endpoints",
		Namespaced: true, ShortNames: []string{"ep"}, Verbs: allVerbs, CreateOnUpdate: true,
		Printer: table.Endpoints,
	}
}

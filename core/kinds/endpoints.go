package kinds

import (
	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
)

// endpoints is v1 Endpoints.
func endpoints() *api.Resource {
	return &api.Resource{
		Version: "v1", Kind: "Endpoints", Plural: "endpoints", Singular: "endpoints",
		Namespaced: true, ShortNames: []string{"ep"}, Verbs: allVerbs, CreateOnUpdate: true,
		Hooks:   api.Hooks{LabelChecksOnUpdate: 4},
		Printer: table.Endpoints,
	}
}

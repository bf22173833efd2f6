package kinds

import (
	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/validation"
)

// configMap is v1 ConfigMap: its keys, size and immutability are checked.
func configMap() *api.Resource {
	return &api.Resource{
		Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Singular: "configmap",
		Namespaced: true, ShortNames: []string{"cm"}, Verbs: allVerbs,
		Hooks: api.Hooks{
			LabelChecksOnUpdate: 4,
			Validate:            validation.ConfigMap,
			ValidateUpdate:      anySubresource(validation.ConfigMapUpdate),
		},
		Printer: table.ConfigMap,
	}
}

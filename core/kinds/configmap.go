package kinds

import (
	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/field"
	"kubeplay/core/object"
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
			ValidateUpdate: func(obj, old object.Object, _ string) field.ErrorList {
				return validation.ConfigMapUpdate(obj, old)
			},
		},
		Printer: table.ConfigMap,
	}
}

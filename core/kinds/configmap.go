package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/schema"
	"kubeplay/core/validation"
)

// configMap is v1 ConfigMap: its keys, size and immutability are checked.
func configMap() *schema.Resource {
	return &schema.Resource{
		Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Singular: "configmap",
		Namespaced: true, ShortNames: []string{"cm"}, Verbs: allVerbs,
		Hooks: schema.Hooks{
			Validate: validation.ConfigMap,
			ValidateUpdate: func(obj, old object.Object, _ string) field.ErrorList {
				return validation.ConfigMapUpdate(obj, old)
			},
		},
		Printer: table.ConfigMap,
	}
}

package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/schema"
)

// configMap is v1 ConfigMap.
func configMap() *schema.Resource {
	return &schema.Resource{
		Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Singular: "configmap",
		Namespaced: true, ShortNames: []string{"cm"}, Verbs: allVerbs,
		Printer: table.ConfigMap,
	}
}

package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/schema"
)

// secret is v1 Secret.
func secret() *schema.Resource {
	return &schema.Resource{
		Version: "v1", Kind: "Secret", Plural: "secrets", Singular: "secret",
		Namespaced: true, Verbs: allVerbs,
		Fields:  map[string]func(object.Object) string{"type": str("type")},
		Printer: table.Secret,
	}
}

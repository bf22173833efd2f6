package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/schema"
)

// serviceAccount is v1 ServiceAccount.
func serviceAccount() *schema.Resource {
	return &schema.Resource{
		Version: "v1", Kind: "ServiceAccount", Plural: "serviceaccounts", Singular: "serviceaccount",
		Namespaced: true, ShortNames: []string{"sa"}, Verbs: allVerbs, ReturnDeleted: true,
		Printer: table.ServiceAccount,
	}
}

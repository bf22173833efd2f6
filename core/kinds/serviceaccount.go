package kinds

import (
	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
)

// serviceAccount is v1 ServiceAccount.
func serviceAccount() *api.Resource {
	return &api.Resource{
		Version: "v1", Kind: "ServiceAccount", Plural: "serviceaccounts", Singular: "serviceaccount",
		Namespaced: true, ShortNames: []string{"sa"}, Verbs: allVerbs, ReturnDeleted: true,
		Hooks:   api.Hooks{LabelChecksOnUpdate: 4},
		Printer: table.ServiceAccount,
	}
}

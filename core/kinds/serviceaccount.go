package kinds

import (
	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
)

// serviceAccount is v1 ServiceAccount, with its token subresource (a
// TokenRequest, answered by core/registry with a token the sandbox signs).
func serviceAccount() *api.Resource {
	return &api.Resource{
		Version: "v1", Kind: "ServiceAccount", Plural: "serviceaccounts", Singular: "serviceaccount",
		Namespaced: true, ShortNames: []string{"sa"}, Verbs: allVerbs, ReturnDeleted: true,
		Subs:    []api.Subresource{{Name: "token", Kind: "TokenRequest", Group: "authentication.k8s.io", Verbs: createOnly}},
		Hooks:   api.Hooks{LabelChecksOnUpdate: 4},
		Printer: table.ServiceAccount,
	}
}

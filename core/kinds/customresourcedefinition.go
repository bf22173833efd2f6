package kinds

import (
	"kubeplay/core/schema"
)

// customResourceDefinition is apiextensions.k8s.io/v1 CustomResourceDefinition.
func customResourceDefinition() *schema.Resource {
	return &schema.Resource{
		Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition",
		Plural: "customresourcedefinitions", Singular: "customresourcedefinition",
		ShortNames: []string{"crd", "crds"}, Categories: []string{"api-extensions"}, Verbs: allVerbs, Generation: true, Untyped: true,
		Subs: []schema.Subresource{{Name: "status", Kind: "CustomResourceDefinition", Group: "apiextensions.k8s.io", Verbs: statusVerbs}},
	}
}

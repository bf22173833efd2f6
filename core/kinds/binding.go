package kinds

import "kubeplay/core/api"

// binding is core/v1's top-level bindings: kube's legacy form of a Pod's
// binding subresource, a Binding created in the Pod's namespace that names
// the Pod (core/apiserver hands it to the Pod's binding). Nothing is
// stored.
func binding() *api.Resource {
	return &api.Resource{
		Group: "", Version: "v1", Kind: "Binding", Plural: "bindings", Singular: "binding",
		Namespaced: true, Verbs: createOnly, Virtual: true,
	}
}

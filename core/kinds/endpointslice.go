package kinds

import (
	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
)

// endpointSlice is discovery.k8s.io/v1 EndpointSlice.
func endpointSlice() *api.Resource {
	return &api.Resource{
		Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice", Plural: "endpointslices", Singular: "endpointslice",
		Namespaced: true, Verbs: allVerbs, Generation: true,
		Printer: table.EndpointSlice,
	}
}

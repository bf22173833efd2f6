package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/schema"
)

// endpointSlice is discovery.k8s.io/v1 EndpointSlice.
func endpointSlice() *schema.Resource {
	return &schema.Resource{
		Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice", Plural: "endpointslices", Singular: "endpointslice",
		Namespaced: true, Verbs: allVerbs, Generation: true,
		Printer: table.EndpointSlice,
	}
}

package kinds

import (
	"kubeplay/core/api"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// csiStorageCapacity is storage.k8s.io/v1 CSIStorageCapacity, namespaced:
// the capacity a CSI driver reports for a storage class in a node topology,
// which may change while the topology and the class stay. An update must
// name the resourceVersion it replaces. kube registers no printer for it:
// its Table is the default one (name, creation time).
func csiStorageCapacity() *api.Resource {
	return &api.Resource{
		Group: "storage.k8s.io", Version: "v1", Kind: "CSIStorageCapacity", Plural: "csistoragecapacities", Singular: "csistoragecapacity",
		Namespaced: true, Verbs: allVerbs, UpdateNeedsVersion: true,
		Hooks: api.Hooks{
			Validate:            validation.CSIStorageCapacity,
			ValidateUpdate:      anySubresource(validation.CSIStorageCapacityUpdate),
			LabelChecksOnUpdate: 4,
			WarningsOnCreate:    validation.CSIStorageCapacityWarnings,
			WarningsOnUpdate:    func(obj, _ object.Object) []string { return validation.CSIStorageCapacityWarnings(obj) },
		},
	}
}

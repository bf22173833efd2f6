package kinds

import (
	"kubeplay/core/api"
	"kubeplay/core/defaults"
	"kubeplay/core/encoding/table"
	"kubeplay/core/validation"
)

// storageClass is storage.k8s.io/v1 StorageClass: its rules, and what it
// may not change.
func storageClass() *api.Resource {
	return &api.Resource{
		Group: "storage.k8s.io", Version: "v1", Kind: "StorageClass", Plural: "storageclasses", Singular: "storageclass",
		ShortNames: []string{"sc"}, Verbs: allVerbs, ReturnDeleted: true,
		// SetDefaults_StorageClass: its volumes are deleted once released,
		// and bound as soon as they are claimed.
		Defaults: func(m map[string]any) {
			defaults.SetUnset(m, "reclaimPolicy", "Delete")
			defaults.SetUnset(m, "volumeBindingMode", "Immediate")
		},
		Hooks: api.Hooks{
			LabelChecksOnUpdate: 4,
			Validate:            validation.StorageClass,
			ValidateUpdate:      anySubresource(validation.StorageClassUpdate),
		},
		Printer: table.StorageClass,
	}
}

package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/schema"
)

// storageClass is storage.k8s.io/v1 StorageClass.
func storageClass() *schema.Resource {
	return &schema.Resource{
		Group: "storage.k8s.io", Version: "v1", Kind: "StorageClass", Plural: "storageclasses", Singular: "storageclass",
		ShortNames: []string{"sc"}, Verbs: allVerbs, ReturnDeleted: true,
		Printer: table.StorageClass,
	}
}

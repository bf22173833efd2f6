package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/schema"
)

// persistentVolumeClaim is v1 PersistentVolumeClaim.
func persistentVolumeClaim() *schema.Resource {
	return &schema.Resource{
		Version: "v1", Kind: "PersistentVolumeClaim", Plural: "persistentvolumeclaims", Singular: "persistentvolumeclaim",
		Namespaced: true, ShortNames: []string{"pvc"}, Verbs: allVerbs,
		Subs:          []schema.Subresource{{Name: "status", Kind: "PersistentVolumeClaim", Verbs: statusVerbs}},
		ReturnDeleted: true,
		Printer:       table.PersistentVolumeClaim,
	}
}

package kinds

import (
	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
)

// persistentVolumeClaim is v1 PersistentVolumeClaim.
func persistentVolumeClaim() *api.Resource {
	return &api.Resource{
		Version: "v1", Kind: "PersistentVolumeClaim", Plural: "persistentvolumeclaims", Singular: "persistentvolumeclaim",
		Namespaced: true, ShortNames: []string{"pvc"}, Verbs: allVerbs,
		Subs:          []api.Subresource{{Name: "status", Kind: "PersistentVolumeClaim", Verbs: statusVerbs}},
		ReturnDeleted: true,
		Printer:       table.PersistentVolumeClaim,
	}
}

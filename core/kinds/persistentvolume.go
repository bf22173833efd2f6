package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/schema"
)

// persistentVolume is v1 PersistentVolume.
func persistentVolume() *schema.Resource {
	return &schema.Resource{
		Version: "v1", Kind: "PersistentVolume", Plural: "persistentvolumes", Singular: "persistentvolume",
		ShortNames: []string{"pv"}, Verbs: allVerbs, ReturnDeleted: true,
		Subs:    []schema.Subresource{{Name: "status", Kind: "PersistentVolume", Verbs: statusVerbs}},
		Printer: table.PersistentVolume,
	}
}

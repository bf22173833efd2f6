package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/schema"
)

// controllerRevision is apps/v1 ControllerRevision.
func controllerRevision() *schema.Resource {
	return &schema.Resource{
		Group: "apps", Version: "v1", Kind: "ControllerRevision", Plural: "controllerrevisions", Singular: "controllerrevision",
		Namespaced: true, Verbs: allVerbs,
		Printer: table.ControllerRevision,
	}
}

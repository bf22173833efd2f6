package kinds

import (
	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
)

// controllerRevision is apps/v1 ControllerRevision.
func controllerRevision() *api.Resource {
	return &api.Resource{
		Group: "apps", Version: "v1", Kind: "ControllerRevision", Plural: "controllerrevisions", Singular: "controllerrevision",
		Namespaced: true, Verbs: allVerbs,
		Printer: table.ControllerRevision,
	}
}

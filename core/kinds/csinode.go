package kinds

import (
	"time"

	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// csiNode is storage.k8s.io/v1 CSINode, cluster-scoped and named after its
// node: the CSI drivers installed there (written by the kubelet). An update
// must name the resourceVersion it replaces and may not change a driver it
// has; a delete answers with the object.
func csiNode() *api.Resource {
	return &api.Resource{
		Group: "storage.k8s.io", Version: "v1", Kind: "CSINode", Plural: "csinodes", Singular: "csinode",
		Verbs: allVerbs, UpdateNeedsVersion: true, ReturnDeleted: true,
		Hooks: api.Hooks{
			Validate:            validation.CSINode,
			ValidateUpdate:      anySubresource(validation.CSINodeUpdate),
			LabelChecksOnUpdate: 4,
		},
		Printer: table.NewPrinter([]table.Column{
			table.NameColumn,
			{Name: "Drivers", Type: "integer", Description: "Drivers indicates the number of CSI drivers registered on the node"},
			table.AgeColumn,
		}, func(n object.Object, now time.Time) []any {
			spec, _ := n["spec"].(map[string]any)
			return []any{table.Name(n), int64(len(object.Objects(spec, "drivers"))), table.Age(n, now)}
		}),
	}
}

package kinds

import (
	"time"

	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// volumeAttachment is storage.k8s.io/v1 VolumeAttachment, cluster-scoped:
// a request to attach a volume to a node, whose status (written through its
// subresource) the attacher reports in. A new one starts unattached, its
// spec never changes, an update must name the resourceVersion it replaces,
// and a delete answers with the object.
func volumeAttachment() *api.Resource {
	return &api.Resource{
		Group: "storage.k8s.io", Version: "v1", Kind: "VolumeAttachment", Plural: "volumeattachments", Singular: "volumeattachment",
		Verbs: allVerbs, UpdateNeedsVersion: true, ReturnDeleted: true,
		Subs: []api.Subresource{{Name: "status", Kind: "VolumeAttachment", Group: "storage.k8s.io", Verbs: statusVerbs}},
		Hooks: api.Hooks{
			StatusOnly: true, // its status strategy resets all the metadata
			PrepareForCreate: func(obj object.Object, _ time.Time) {
				obj["status"] = map[string]any{"attached": false}
			},
			Validate:            validation.VolumeAttachment,
			ValidateUpdate:      anySubresource(validation.VolumeAttachmentUpdate),
			LabelChecksOnUpdate: 4,
		},
		Printer: table.NewPrinter([]table.Column{
			table.NameColumn,
			{Name: "Attacher", Type: "string", Format: "name", Description: "attacher indicates the name of the volume driver that MUST handle this request. This is the name returned by GetPluginName()."},
			{Name: "PV", Type: "string", Description: "persistentVolumeName represents the name of the persistent volume to attach."},
			{Name: "Node", Type: "string", Description: "nodeName represents the node that the volume should be attached to."},
			{Name: "Attached", Type: "boolean", Description: "attached indicates the volume is successfully attached. This field must only be set by the entity completing the attach operation, i.e. the external-attacher."},
			table.AgeColumn,
		}, func(va object.Object, now time.Time) []any {
			attacher, _ := object.Path(va, "spec", "attacher").(string)
			pv, _ := object.Path(va, "spec", "source", "persistentVolumeName").(string)
			node, _ := object.Path(va, "spec", "nodeName").(string)
			attached, _ := object.Path(va, "status", "attached").(bool)
			return []any{table.Name(va), attacher, pv, node, attached, table.Age(va, now)}
		}),
	}
}

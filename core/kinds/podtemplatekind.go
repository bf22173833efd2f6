package kinds

import (
	"time"

	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// podTemplate is v1 PodTemplate: a pod template kept on its own (this file
// is not podtemplate.go, which holds what the kinds that run Pods share).
// Its template is all it has; a change to it is a new generation.
func podTemplate() *api.Resource {
	return &api.Resource{
		Version: "v1", Kind: "PodTemplate", Plural: "podtemplates", Singular: "podtemplate",
		Namespaced: true, Verbs: allVerbs, Generation: true, ReturnDeleted: true,
		Hooks: api.Hooks{
			Canonicalize: func(obj object.Object) {
				if spec, ok := object.Path(obj, "template", "spec").(map[string]any); ok {
					convertPodSpec(spec)
				}
			},
			// ValidatePodTemplate: the template as a workload's.
			Validate: func(obj object.Object) field.ErrorList {
				template, _ := obj["template"].(map[string]any)
				return validation.PodTemplate(template, field.NewPath("template"))
			},
		},
		Printer: table.NewPrinter([]table.Column{
			table.NameColumn,
			{Name: "Containers", Type: "string", Description: "Names of each container in the template."},
			{Name: "Images", Type: "string", Description: "Images referenced by each container in the template."},
			{Name: "Pod Labels", Type: "string", Description: "The labels for the pod template."},
		}, func(pt object.Object, _ time.Time) []any {
			template, _ := pt["template"].(map[string]any)
			names, images := table.Containers(template)
			meta, _ := template["metadata"].(map[string]any)
			return []any{table.Name(pt), names, images, table.Labels(object.StringMap(meta, "labels"))}
		}),
	}
}

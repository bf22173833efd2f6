package kinds

import (
	"time"

	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// runtimeClass is node.k8s.io/v1 RuntimeClass, cluster-scoped: a container
// runtime configuration Pods may name (core/registry's RuntimeClass
// admission adds its overhead and scheduling to them). A PUT may create one,
// and must name the resourceVersion of the one it replaces.
func runtimeClass() *api.Resource {
	return &api.Resource{
		Group: "node.k8s.io", Version: "v1", Kind: "RuntimeClass", Plural: "runtimeclasses", Singular: "runtimeclass",
		Verbs: allVerbs, CreateOnUpdate: true, UpdateNeedsVersion: true,
		Hooks: api.Hooks{
			Validate: validation.RuntimeClass,
			ValidateUpdate: func(obj, old object.Object, _ string) field.ErrorList {
				return append(validation.RuntimeClass(obj), validation.RuntimeClassUpdate(obj, old)...)
			},
			WarningsOnCreate: validation.RuntimeClassWarnings,
			WarningsOnUpdate: func(obj, _ object.Object) []string { return validation.RuntimeClassWarnings(obj) },
		},
		Printer: table.NewPrinter([]table.Column{
			table.NameColumn,
			{Name: "Handler", Type: "string"},
			table.AgeColumn,
		}, func(rc object.Object, now time.Time) []any {
			handler, _ := rc["handler"].(string)
			return []any{table.Name(rc), handler, table.Age(rc, now)}
		}),
	}
}

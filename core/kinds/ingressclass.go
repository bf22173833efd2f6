package kinds

import (
	"time"

	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// ingressClass is networking.k8s.io/v1 IngressClass, cluster-scoped: the
// controller that serves an Ingress of the class, and its parameters.
func ingressClass() *api.Resource {
	return &api.Resource{
		Group: "networking.k8s.io", Version: "v1", Kind: "IngressClass", Plural: "ingressclasses", Singular: "ingressclass",
		Verbs: allVerbs, Generation: true,
		// SetDefaults_IngressClass: parameters are cluster-scoped unless
		// they say otherwise.
		Defaults: func(m map[string]any) {
			if params, ok := object.Path(m, "spec", "parameters").(map[string]any); ok && params["scope"] == nil {
				params["scope"] = "Cluster"
			}
		},
		Hooks: api.Hooks{
			Validate:       validation.IngressClass,
			ValidateUpdate: anySubresource(validation.IngressClassUpdate),
		},
		Printer: table.NewPrinter([]table.Column{
			table.NameColumn,
			{Name: "Controller", Type: "string", Description: "Controller that is responsible for handling this class"},
			{Name: "Parameters", Type: "string", Description: "A reference to a resource with additional parameters"},
			table.AgeColumn,
		}, func(ic object.Object, now time.Time) []any {
			spec, _ := ic["spec"].(map[string]any)
			controller, _ := spec["controller"].(string)
			params := "<none>"
			if p, ok := spec["parameters"].(map[string]any); ok {
				kind, _ := p["kind"].(string)
				name, _ := p["name"].(string)
				params = kind
				if group, ok := p["apiGroup"].(string); ok {
					params += "." + group
				}
				params += "/" + name
			}
			return []any{table.Name(ic), controller, params, table.Age(ic, now)}
		}),
	}
}

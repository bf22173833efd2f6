package kinds

import (
	"fmt"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// podDisruptionBudget is policy/v1 PodDisruptionBudget.
func podDisruptionBudget() *api.Resource {
	return &api.Resource{
		Group: "policy", Version: "v1", Kind: "PodDisruptionBudget", Plural: "poddisruptionbudgets", Singular: "poddisruptionbudget",
		Namespaced: true, ShortNames: []string{"pdb"}, Verbs: allVerbs, Generation: true,
		Subs: []api.Subresource{{Name: "status", Kind: "PodDisruptionBudget", Group: "policy", Verbs: statusVerbs}},
		Hooks: api.Hooks{
			Validate: validation.PodDisruptionBudget,
			ValidateUpdate: func(obj, _ object.Object, sub string) field.ErrorList {
				if sub == "status" {
					return validation.PodDisruptionBudgetStatusUpdate(obj)
				}
				return validation.PodDisruptionBudget(obj)
			},
		},
		Printer: table.NewPrinter([]table.Column{
			table.NameColumn,
			{Name: "Min Available", Type: "string", Description: "The minimum number of pods that must be available."},
			{Name: "Max Unavailable", Type: "string", Description: "The maximum number of pods that may be unavailable."},
			{Name: "Allowed Disruptions", Type: "integer", Description: "Calculated number of pods that may be disrupted at this time."},
			table.AgeColumn,
		}, func(pdb object.Object, now time.Time) []any {
			return []any{table.Name(pdb), intOrPercent(object.Path(pdb, "spec", "minAvailable")), intOrPercent(object.Path(pdb, "spec", "maxUnavailable")),
				table.Int(pdb, "status", "disruptionsAllowed"), table.Age(pdb, now)}
		}),
	}
}

// intOrPercent is an IntOrString as kube prints it, N/A when unset.
func intOrPercent(v any) string {
	if v == nil {
		return "N/A"
	}
	return fmt.Sprint(v)
}

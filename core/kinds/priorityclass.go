package kinds

import (
	"time"

	"kubeplay/core/api"
	"kubeplay/core/defaults"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// priorityClass is scheduling.k8s.io/v1 PriorityClass, cluster-scoped: the
// priority a Pod naming it gets (core/registry's Priority admission reads
// them; the system ones are created when the store opens). Its value and
// preemption policy never change, nor its generation.
func priorityClass() *api.Resource {
	return &api.Resource{
		Group: "scheduling.k8s.io", Version: "v1", Kind: "PriorityClass", Plural: "priorityclasses", Singular: "priorityclass",
		ShortNames: []string{"pc"}, Verbs: allVerbs, Generation: true, GenerationFixed: true,
		// SetDefaults_PriorityClass: a class preempts lower priorities.
		Defaults: func(m map[string]any) { defaults.SetUnset(m, "preemptionPolicy", "PreemptLowerPriority") },
		Hooks: api.Hooks{
			Validate:       validation.PriorityClass,
			ValidateUpdate: anySubresource(validation.PriorityClassUpdate),
		},
		Printer: table.NewPrinter([]table.Column{
			table.NameColumn,
			{Name: "Value", Type: "integer", Description: "value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec."},
			{Name: "Global-Default", Type: "boolean", Description: "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority."},
			table.AgeColumn,
			{Name: "PreemptionPolicy", Type: "string", Description: "preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset."},
		}, func(pc object.Object, now time.Time) []any {
			policy, _ := pc["preemptionPolicy"].(string)
			return []any{table.Name(pc), table.Int(pc, "value"), pc["globalDefault"] == true, table.Age(pc, now), policy}
		}),
	}
}

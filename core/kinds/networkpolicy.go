package kinds

import (
	"time"

	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/selector"
	"kubeplay/core/validation"
)

// networkPolicy is networking.k8s.io/v1 NetworkPolicy: which traffic the
// Pods it selects accept and send (stored only: no network plugin here
// enforces it).
func networkPolicy() *api.Resource {
	return &api.Resource{
		Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy", Plural: "networkpolicies", Singular: "networkpolicy",
		Namespaced: true, ShortNames: []string{"netpol"}, Verbs: allVerbs, Generation: true,
		// SetDefaults_NetworkPolicy: a policy that names no policy types
		// is an ingress policy, and an egress one too when it has egress
		// rules.
		Defaults: func(m map[string]any) {
			spec := object.Child(m, "spec")
			if len(object.Strings(spec, "policyTypes")) > 0 {
				return
			}
			types := []any{"Ingress"}
			if len(object.Objects(spec, "egress")) > 0 {
				types = append(types, "Egress")
			}
			spec["policyTypes"] = types
		},
		Hooks: api.Hooks{
			Validate: validation.NetworkPolicy,
			// kube checks the spec twice on update, as a new policy and as
			// an update.
			ValidateUpdate: func(obj, _ object.Object, _ string) field.ErrorList {
				return append(validation.NetworkPolicy(obj), validation.NetworkPolicy(obj)...)
			},
		},
		Printer: table.NewPrinter([]table.Column{
			table.NameColumn,
			{Name: "Pod-Selector", Type: "string", Description: "Selects the pods to which this NetworkPolicy object applies.  The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods.  In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace."},
			table.AgeColumn,
		}, func(np object.Object, now time.Time) []any {
			sel, _ := object.Path(np, "spec", "podSelector").(map[string]any)
			s, _ := selector.FormatLabelSelector(sel)
			if s == "" {
				s = "<none>"
			}
			return []any{table.Name(np), s, table.Age(np, now)}
		}),
	}
}

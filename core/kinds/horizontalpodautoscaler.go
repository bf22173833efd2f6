package kinds

import (
	"fmt"
	"strings"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/conversion"
	"kubeplay/core/defaults"
	"kubeplay/core/encoding/table"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// horizontalPodAutoscaler is autoscaling/v2 HorizontalPodAutoscaler, the
// version kube stores (the autoscaler itself, kube-controller-manager's, is
// the simulated cluster's: core/controllers/podautoscaler).
func horizontalPodAutoscaler() *api.Resource {
	return &api.Resource{
		Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler", Plural: "horizontalpodautoscalers", Singular: "horizontalpodautoscaler",
		Namespaced: true, ShortNames: []string{"hpa"}, Categories: []string{"all"}, Verbs: allVerbs,
		Subs:     []api.Subresource{{Name: "status", Kind: "HorizontalPodAutoscaler", Group: "autoscaling", Verbs: statusVerbs}},
		Defaults: defaultHorizontalPodAutoscaler,
		Hooks: api.Hooks{
			LabelChecksOnUpdate: 3,
			// v2 neither shows nor keeps what v1 keeps in annotations.
			Canonicalize:     conversion.DropHPARoundTripAnnotations,
			PrepareForCreate: func(obj object.Object, _ time.Time) { obj["status"] = map[string]any{"desiredReplicas": 0} },
			Validate:         validation.HorizontalPodAutoscaler,
			ValidateUpdate: func(obj, old object.Object, sub string) field.ErrorList {
				if sub == "status" {
					return validation.HorizontalPodAutoscalerStatus(obj)
				}
				return validation.HorizontalPodAutoscalerUpdate(obj, old)
			},
		},
		Printer: table.NewPrinter([]table.Column{
			table.NameColumn,
			{Name: "Reference", Type: "string", Description: "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count."},
			{Name: "Targets", Type: "string", Description: "metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond."},
			{Name: "MinPods", Type: "string", Description: "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available."},
			{Name: "MaxPods", Type: "string", Description: "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas."},
			{Name: "Replicas", Type: "string", Description: "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler."},
			table.AgeColumn,
		}, func(hpa object.Object, now time.Time) []any {
			spec, _ := hpa["spec"].(map[string]any)
			minPods := "<unset>"
			if m := spec["minReplicas"]; m != nil {
				minPods = fmt.Sprint(object.Int(m))
			}
			reference := object.String(object.Path(spec, "scaleTargetRef", "kind")) + "/" + object.String(object.Path(spec, "scaleTargetRef", "name"))
			return []any{
				table.Name(hpa), reference, hpaTargets(object.Objects(spec, "metrics"), hpaStatuses(hpa)), minPods,
				table.Int(hpa, "spec", "maxReplicas"), table.Int(hpa, "status", "currentReplicas"), table.Age(hpa, now),
			}
		}),
	}
}

// horizontalPodAutoscalerV1 is autoscaling/v1 HorizontalPodAutoscaler: the
// autoscaling/v2 objects in v1's form (kube's conversion keeps what v1
// cannot say in annotations), checked by v2's rules, as kube checks every
// version's writes in its internal form.
func horizontalPodAutoscalerV1(v2 *api.Resource) *api.Resource {
	return &api.Resource{
		Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler", Plural: "horizontalpodautoscalers", Singular: "horizontalpodautoscaler",
		Namespaced: true, ShortNames: []string{"hpa"}, Categories: []string{"all"}, Verbs: allVerbs,
		Subs: []api.Subresource{{Name: "status", Kind: "HorizontalPodAutoscaler", Group: "autoscaling", Verbs: statusVerbs}},
		// v1's SetDefaults_HorizontalPodAutoscaler, on the converted
		// object: one replica at least (the conversion names the CPU
		// target); a behavior kept in the annotation is checked as written,
		// without v2's defaults.
		Defaults: func(m map[string]any) {
			defaults.SetUnset(object.Child(m, "spec"), "minReplicas", defaults.Number("1"))
		},
		View: &api.View{
			Stored:      v2,
			FieldLabels: map[string]string{"metadata.name": "metadata.name", "metadata.namespace": "metadata.namespace"},
			FromStored:  conversion.HPAV1FromV2,
			ToStored:    conversion.HPAV1ToV2,
		},
	}
}

// defaultHorizontalPodAutoscaler is autoscaling/v2's
// SetDefaults_HorizontalPodAutoscaler: one replica at least, 80% of the CPU
// the target when no metric is named, and a behavior's unset rules kube's
// (scale up by 4 Pods or 100% every 15s, whichever is more; down by 100%
// every 15s).
func defaultHorizontalPodAutoscaler(m map[string]any) {
	spec := object.Child(m, "spec")
	defaults.SetUnset(spec, "minReplicas", defaults.Number("1"))
	if len(object.Objects(spec, "metrics")) == 0 {
		spec["metrics"] = []any{map[string]any{"type": "Resource", "resource": map[string]any{
			"name": "cpu", "target": map[string]any{"type": "Utilization", "averageUtilization": defaults.Number("80")},
		}}}
	}
	behavior, ok := spec["behavior"].(map[string]any)
	if !ok {
		return
	}
	policy := func(typ string, value int) any {
		return map[string]any{"type": typ, "value": defaults.Number(fmt.Sprint(value)), "periodSeconds": defaults.Number("15")}
	}
	scaleUp := map[string]any{"stabilizationWindowSeconds": defaults.Number("0"), "selectPolicy": "Max", "policies": []any{policy("Pods", 4), policy("Percent", 100)}}
	scaleDown := map[string]any{"selectPolicy": "Max", "policies": []any{policy("Percent", 100)}}
	for dir, rules := range map[string]map[string]any{"scaleUp": scaleUp, "scaleDown": scaleDown} {
		if set, ok := behavior[dir].(map[string]any); ok {
			for _, f := range []string{"selectPolicy", "stabilizationWindowSeconds", "policies"} {
				if v := set[f]; v != nil {
					rules[f] = v
				}
			}
		}
		behavior[dir] = rules
	}
}

// hpaStatuses are the metrics an autoscaler's status observed.
func hpaStatuses(hpa object.Object) []map[string]any {
	status, _ := hpa["status"].(map[string]any)
	return object.Objects(status, "currentMetrics")
}

// hpaTargets is kube's formatHPAMetrics: each metric's current value (the
// status's metric at the same index) over its target, two at most.
func hpaTargets(specs, statuses []map[string]any) string {
	if len(specs) == 0 {
		return "<none>"
	}
	// status is the source of the i-th metric observed, nil when it was not.
	status := func(i int, source string) map[string]any {
		if i >= len(statuses) {
			return nil
		}
		s, _ := statuses[i][source].(map[string]any)
		return s
	}
	quantity := func(m map[string]any, path ...string) string {
		if q, ok := object.Path(m, path...).(string); ok {
			return q
		}
		return "<nil>" // a nil *Quantity's String
	}
	var list []string
	for i, spec := range specs {
		typ := object.String(spec["type"])
		source := map[string]string{"External": "external", "Pods": "pods", "Object": "object", "Resource": "resource", "ContainerResource": "containerResource"}[typ]
		src, _ := spec[source].(map[string]any)
		target, _ := src["target"].(map[string]any)
		cur := status(i, source)
		current := "<unknown>"
		switch typ {
		case "External", "Object":
			if _, avg := target["averageValue"].(string); avg {
				if cur != nil && object.Path(cur, "current", "averageValue") != nil {
					current = quantity(cur, "current", "averageValue")
				}
				list = append(list, current+"/"+quantity(target, "averageValue")+" (avg)")
			} else {
				if cur != nil {
					current = quantity(cur, "current", "value")
				}
				list = append(list, current+"/"+quantity(target, "value"))
			}
		case "Pods":
			if cur != nil {
				current = quantity(cur, "current", "averageValue")
			}
			list = append(list, current+"/"+quantity(target, "averageValue"))
		case "Resource", "ContainerResource":
			name := object.String(src["name"])
			if _, avg := target["averageValue"].(string); avg {
				if cur != nil {
					current = quantity(cur, "current", "averageValue")
				}
				list = append(list, name+": "+current+"/"+quantity(target, "averageValue"))
			} else {
				if u := object.Path(cur, "current", "averageUtilization"); u != nil {
					current = fmt.Sprintf("%d%%", object.Int(u))
				}
				t := "<auto>"
				if u := target["averageUtilization"]; u != nil {
					t = fmt.Sprintf("%d%%", object.Int(u))
				}
				list = append(list, name+": "+current+"/"+t)
			}
		default:
			list = append(list, "<unknown type>")
		}
	}
	if len(list) > 2 {
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:2], ", "), len(list)-2)
	}
	return strings.Join(list, ", ")
}

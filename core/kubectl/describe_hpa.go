package kubectl

import (
	"fmt"
)

// This file owns describe's HorizontalPodAutoscaler: the autoscaling/v2
// object, its metrics (current / target), behavior and conditions.

func init() { describers["autoscaling/HorizontalPodAutoscaler"] = describeHPA }

// quantityOrNil is a *Quantity field as its String prints it: "<nil>" when
// unset.
func quantityOrNil(v any, path ...string) string {
	if !has(v, path...) {
		return "<nil>"
	}
	return quantityString(stringAt(v, path...))
}

func describeHPA(c *Cmd, o *describeOptions, _ Resource, namespace, name string) (string, error) {
	hpa, err := c.getTyped("/apis/autoscaling/v2/namespaces/" + namespace + "/horizontalpodautoscalers/" + name)
	if err != nil {
		return "", err
	}
	events := c.objectEvents(o, hpa, "HorizontalPodAutoscaler")
	spec, st := obj(hpa, "spec"), obj(hpa, "status")
	current := list(st, "currentMetrics")
	currentAt := func(i int, source string) map[string]any {
		if i < len(current) {
			return obj(current[i], source)
		}
		return nil
	}
	w := newDescribeWriter()
	w.objectMeta(hpa)
	w.write(0, "CreationTimestamp:\t%s\n", rfc1123(stringAt(hpa, "metadata", "creationTimestamp")))
	w.write(0, "Reference:\t%s/%s\n", stringAt(spec, "scaleTargetRef", "kind"), stringAt(spec, "scaleTargetRef", "name"))
	w.write(0, "Metrics:\t( current / target )\n")
	for i, m := range list(spec, "metrics") {
		switch typ := stringAt(m, "type"); typ {
		case "External":
			cur := "<unknown>"
			if has(m, "external", "target", "averageValue") {
				if cm := currentAt(i, "external"); cm != nil && has(cm, "current", "averageValue") {
					cur = quantityOrNil(cm, "current", "averageValue")
				}
				w.write(1, "%q (target average value):\t%s / %s\n", stringAt(m, "external", "metric", "name"), cur, quantityOrNil(m, "external", "target", "averageValue"))
			} else {
				if cm := currentAt(i, "external"); cm != nil {
					cur = quantityOrNil(cm, "current", "value")
				}
				w.write(1, "%q (target value):\t%s / %s\n", stringAt(m, "external", "metric", "name"), cur, quantityOrNil(m, "external", "target", "value"))
			}
		case "Pods":
			cur := "<unknown>"
			if cm := currentAt(i, "pods"); cm != nil {
				cur = quantityOrNil(cm, "current", "averageValue")
			}
			w.write(1, "%q on pods:\t%s / %s\n", stringAt(m, "pods", "metric", "name"), cur, quantityOrNil(m, "pods", "target", "averageValue"))
		case "Object":
			w.write(1, "\"%s\" on %s/%s ", stringAt(m, "object", "metric", "name"), stringAt(m, "object", "describedObject", "kind"), stringAt(m, "object", "describedObject", "name"))
			cur := "<unknown>"
			if stringAt(m, "object", "target", "type") == "AverageValue" {
				if cm := currentAt(i, "object"); cm != nil {
					cur = quantityOrNil(cm, "current", "averageValue")
				}
				w.write(0, "(target average value):\t%s / %s\n", cur, quantityOrNil(m, "object", "target", "averageValue"))
			} else {
				if cm := currentAt(i, "object"); cm != nil {
					cur = quantityOrNil(cm, "current", "value")
				}
				w.write(0, "(target value):\t%s / %s\n", cur, quantityOrNil(m, "object", "target", "value"))
			}
		case "Resource", "ContainerResource":
			source := "resource"
			if typ == "Resource" {
				w.write(1, "resource %s on pods", stringAt(m, "resource", "name"))
			} else {
				source = "containerResource"
				w.write(1, "resource %s of container \"%s\" on pods", stringAt(m, source, "name"), stringAt(m, source, "container"))
			}
			cur := "<unknown>"
			if has(m, source, "target", "averageValue") {
				if cm := currentAt(i, source); cm != nil {
					cur = quantityOrNil(cm, "current", "averageValue")
				}
				w.write(0, ":\t%s / %s\n", cur, quantityOrNil(m, source, "target", "averageValue"))
			} else {
				if cm := currentAt(i, source); cm != nil && has(cm, "current", "averageUtilization") {
					cur = fmt.Sprintf("%d%% (%s)", num(cm, "current", "averageUtilization"), quantityOrNil(cm, "current", "averageValue"))
				}
				target := "<auto>"
				if has(m, source, "target", "averageUtilization") {
					target = fmt.Sprintf("%d%%", num(m, source, "target", "averageUtilization"))
				}
				w.write(1, "(as a percentage of request):\t%s / %s\n", cur, target)
			}
		default:
			w.write(1, "<unknown metric type %q>\n", typ)
		}
	}
	minReplicas := "<unset>"
	if has(spec, "minReplicas") {
		minReplicas = fmt.Sprint(num(spec, "minReplicas"))
	}
	w.write(0, "Min replicas:\t%s\n", minReplicas)
	w.write(0, "Max replicas:\t%d\n", num(spec, "maxReplicas"))
	if b := obj(spec, "behavior"); b != nil {
		w.write(0, "Behavior:\n")
		for _, d := range []struct{ key, title string }{{"scaleUp", "Scale Up"}, {"scaleDown", "Scale Down"}} {
			rules := obj(b, d.key)
			if rules == nil {
				continue
			}
			w.write(1, "%s:\n", d.title)
			if has(rules, "stabilizationWindowSeconds") {
				w.write(2, "Stabilization Window: %d seconds\n", num(rules, "stabilizationWindowSeconds"))
			}
			if policies := list(rules, "policies"); len(policies) > 0 {
				sel := stringAt(rules, "selectPolicy")
				if sel == "" {
					sel = "Max"
				}
				w.write(2, "Select Policy: %s\n", sel)
				w.write(2, "Policies:\n")
				for _, p := range policies {
					w.write(3, "- Type: %s\tValue: %d\tPeriod: %d seconds\n", stringAt(p, "type"), num(p, "value"), num(p, "periodSeconds"))
				}
			}
		}
	}
	w.write(0, "%s pods:\t", stringAt(spec, "scaleTargetRef", "kind"))
	w.write(0, "%d current / %d desired\n", num(st, "currentReplicas"), num(st, "desiredReplicas"))
	if conds := list(st, "conditions"); len(conds) > 0 {
		w.write(0, "Conditions:\n")
		w.write(1, "Type\tStatus\tReason\tMessage\n")
		w.write(1, "----\t------\t------\t-------\n")
		for _, cd := range conds {
			w.write(1, "%v\t%v\t%v\t%v\n", stringAt(cd, "type"), stringAt(cd, "status"), stringAt(cd, "reason"), stringAt(cd, "message"))
		}
	}
	w.events(events)
	return w.String(), nil
}

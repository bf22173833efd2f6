package validation

import (
	"fmt"
	"sort"

	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/quantity"
)

// kube's HorizontalPodAutoscaler validation (pkg/apis/autoscaling/validation),
// of the autoscaling/v2 form kube stores whatever version a write comes
// through: its paths are v2's.

const (
	hpaMaxPeriodSeconds              = 1800
	hpaMaxStabilizationWindowSeconds = 3600
)

// HorizontalPodAutoscaler is ValidateHorizontalPodAutoscaler's spec checks
// (HPAScaleToZero is off in 1.32: minReplicas is at least 1).
func HorizontalPodAutoscaler(hpa object.Object) field.ErrorList {
	return hpaSpec(object.Child(hpa, "spec"), field.NewPath("spec"), 1)
}

// HorizontalPodAutoscalerUpdate is ValidateHorizontalPodAutoscalerUpdate's:
// an autoscaler whose minReplicas was 0 may keep it.
func HorizontalPodAutoscalerUpdate(hpa, old object.Object) field.ErrorList {
	lower := int64(1)
	if m := object.Path(old, "spec", "minReplicas"); m != nil && object.Int(m) == 0 {
		lower = 0
	}
	return hpaSpec(object.Child(hpa, "spec"), field.NewPath("spec"), lower)
}

// HorizontalPodAutoscalerStatus is ValidateHorizontalPodAutoscalerStatusUpdate's:
// replica counts not negative.
func HorizontalPodAutoscalerStatus(hpa object.Object) field.ErrorList {
	status, _ := hpa["status"].(map[string]any)
	p := field.NewPath("status")
	errs := nonNegative(object.Int(status["currentReplicas"]), p.Child("currentReplicas"))
	return append(errs, nonNegative(object.Int(status["desiredReplicas"]), p.Child("desiredReplicas"))...)
}

func hpaSpec(spec map[string]any, p *field.Path, lower int64) field.ErrorList {
	var errs field.ErrorList
	minReplicas, hasMin := spec["minReplicas"]
	hasMin = hasMin && minReplicas != nil
	if hasMin && object.Int(minReplicas) < lower {
		add(&errs, field.Invalid(p.Child("minReplicas"), object.Int(minReplicas), fmt.Sprintf("must be greater than or equal to %d", lower)))
	}
	maxReplicas := object.Int(spec["maxReplicas"])
	if maxReplicas < 1 {
		add(&errs, field.Invalid(p.Child("maxReplicas"), maxReplicas, "must be greater than 0"))
	}
	if hasMin && maxReplicas < object.Int(minReplicas) {
		add(&errs, field.Invalid(p.Child("maxReplicas"), maxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	ref, _ := spec["scaleTargetRef"].(map[string]any)
	add(&errs, crossVersionObjectReference(ref, p.Child("scaleTargetRef"))...)
	add(&errs, hpaMetrics(object.Objects(spec, "metrics"), p.Child("metrics"), hasMin && object.Int(minReplicas) == 0)...)
	if behavior, ok := spec["behavior"].(map[string]any); ok {
		bp := p.Child("behavior")
		for _, dir := range []string{"scaleUp", "scaleDown"} {
			if rules, ok := behavior[dir].(map[string]any); ok {
				add(&errs, scalingRules(rules, bp.Child(dir))...)
			}
		}
	}
	return errs
}

// crossVersionObjectReference is ValidateCrossVersionObjectReference: a
// kind and a name that may be path segments.
func crossVersionObjectReference(ref map[string]any, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, f := range []string{"kind", "name"} {
		v := object.String(ref[f])
		if v == "" {
			add(&errs, field.Required(p.Child(f), ""))
			continue
		}
		addInvalid(&errs, p.Child(f), v, PathSegmentName(v))
	}
	return errs
}

func hpaMetrics(metrics []map[string]any, p *field.Path, scalesToZero bool) field.ErrorList {
	var errs field.ErrorList
	objectOrExternal := false
	for i, m := range metrics {
		add(&errs, metricSpec(m, p.Index(i))...)
		if t := object.String(m["type"]); t == "Object" || t == "External" {
			objectOrExternal = true
		}
	}
	if scalesToZero && !objectOrExternal {
		add(&errs, field.Forbidden(p, "must specify at least one Object or External metric to support scaling to zero replicas"))
	}
	return errs
}

// metricSourceTypes are the metric source types, sorted, with the field
// that holds each one's source.
var metricSourceTypes = []string{"ContainerResource", "External", "Object", "Pods", "Resource"}

// metricSourceFields are the fields of a metric's sources in the order kube
// checks them.
var metricSourceFields = []string{"object", "external", "pods", "resource", "containerResource"}

func metricSpec(m map[string]any, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	typ := object.String(m["type"])
	if typ == "" {
		add(&errs, field.Required(p.Child("type"), "must specify a metric source type"))
	}
	known := false
	for _, t := range metricSourceTypes {
		known = known || t == typ
	}
	if !known {
		add(&errs, field.NotSupported(p.Child("type"), typ, metricSourceTypes))
	}
	var present []string
	for _, f := range metricSourceFields {
		src, ok := m[f].(map[string]any)
		if !ok {
			continue
		}
		present = append(present, f)
		if len(present) == 1 {
			add(&errs, metricSource(f, src, p.Child(f))...)
		}
	}
	expected := ""
	if known {
		expected = string(typ[0]+'a'-'A') + typ[1:]
		if _, ok := m[expected].(map[string]any); !ok {
			add(&errs, field.Required(p.Child(expected), "must populate information for the given metric source"))
		}
	} else {
		add(&errs, field.NotSupported(p.Child("type"), typ, metricSourceTypes))
	}
	if len(present) != 1 {
		sort.Strings(present) // kube ranges over a set
		for _, f := range present {
			if f != expected {
				add(&errs, field.Forbidden(p.Child(f), "must populate the given metric source only"))
			}
		}
	}
	return errs
}

func metricSource(kind string, src map[string]any, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	target, _ := src["target"].(map[string]any)
	tp := p.Child("target")
	_, hasValue := target["value"].(string)
	_, hasAverage := target["averageValue"].(string)
	hasUtilization := target["averageUtilization"] != nil
	switch kind {
	case "object":
		ref, _ := src["describedObject"].(map[string]any)
		add(&errs, crossVersionObjectReference(ref, p.Child("describedObject"))...)
		add(&errs, metricIdentifier(src, p.Child("metric"))...)
		add(&errs, metricTarget(target, tp)...)
		if !hasValue && !hasAverage {
			add(&errs, field.Required(tp.Child("averageValue"), "must set either a target value or averageValue"))
		}
	case "external":
		add(&errs, metricIdentifier(src, p.Child("metric"))...)
		add(&errs, metricTarget(target, tp)...)
		if !hasValue && !hasAverage {
			add(&errs, field.Required(tp.Child("averageValue"), "must set either a target value for metric or a per-pod target"))
		}
		if hasValue && hasAverage {
			add(&errs, field.Forbidden(tp.Child("value"), "may not set both a target value for metric and a per-pod target"))
		}
	case "pods":
		add(&errs, metricIdentifier(src, p.Child("metric"))...)
		add(&errs, metricTarget(target, tp)...)
		if !hasAverage {
			add(&errs, field.Required(tp.Child("averageValue"), "must specify a positive target averageValue"))
		}
	case "resource", "containerResource":
		name := object.String(src["name"])
		if name == "" {
			add(&errs, field.Required(p.Child("name"), "must specify a resource name"))
		} else if kind == "containerResource" {
			add(&errs, resourceName(name, p.Child("name"))...)
		}
		if kind == "containerResource" {
			if c := object.String(src["container"]); c == "" {
				add(&errs, field.Required(p.Child("container"), "must specify a container"))
			} else {
				addInvalid(&errs, p.Child("container"), c, DNS1123Label(c))
			}
		}
		add(&errs, metricTarget(target, tp)...)
		if !hasUtilization && !hasAverage {
			add(&errs, field.Required(tp.Child("averageUtilization"), "must set either a target raw value or a target utilization"))
		}
		if hasUtilization && hasAverage {
			add(&errs, field.Forbidden(tp.Child("averageValue"), "may not set both a target raw value and a target utilization"))
		}
	}
	return errs
}

func metricIdentifier(src map[string]any, p *field.Path) field.ErrorList {
	name := object.String(object.Path(src, "metric", "name"))
	if name == "" {
		return field.ErrorList{field.Required(p.Child("name"), "must specify a metric name")}
	}
	var errs field.ErrorList
	addInvalid(&errs, p.Child("name"), name, PathSegmentName(name))
	return errs
}

func metricTarget(t map[string]any, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	typ := object.String(t["type"])
	if typ == "" {
		add(&errs, field.Required(p.Child("type"), "must specify a metric target type"))
	}
	if typ != "Utilization" && typ != "Value" && typ != "AverageValue" {
		add(&errs, field.Invalid(p.Child("type"), typ, "must be either Utilization, Value, or AverageValue"))
	}
	for _, f := range []string{"value", "averageValue"} {
		if q, ok := t[f].(string); ok && quantity.Compare(q, "0") <= 0 {
			add(&errs, field.Invalid(p.Child(f), field.GoSyntax(quantity.GoSyntax(q)), "must be positive"))
		}
	}
	if u, ok := t["averageUtilization"]; ok && u != nil && object.Int(u) < 1 {
		add(&errs, field.Invalid(p.Child("averageUtilization"), object.Int(u), "must be greater than 0"))
	}
	return errs
}

func scalingRules(rules map[string]any, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if w, ok := rules["stabilizationWindowSeconds"]; ok && w != nil {
		switch n := object.Int(w); {
		case n < 0:
			add(&errs, field.Invalid(p.Child("stabilizationWindowSeconds"), n, "must be greater than or equal to zero"))
		case n > hpaMaxStabilizationWindowSeconds:
			add(&errs, field.Invalid(p.Child("stabilizationWindowSeconds"), n, fmt.Sprintf("must be less than or equal to %v", hpaMaxStabilizationWindowSeconds)))
		}
	}
	if s, ok := rules["selectPolicy"].(string); ok && s != "Max" && s != "Min" && s != "Disabled" {
		add(&errs, field.NotSupported(p.Child("selectPolicy"), s, []string{"Disabled", "Max", "Min"}))
	}
	pp := p.Child("policies")
	policies := object.Objects(rules, "policies")
	if len(policies) == 0 {
		add(&errs, field.Required(pp, "must specify at least one Policy"))
	}
	for i, policy := range policies {
		ip := pp.Index(i)
		if t := object.String(policy["type"]); t != "Pods" && t != "Percent" {
			add(&errs, field.NotSupported(ip.Child("type"), t, []string{"Percent", "Pods"}))
		}
		if v := object.Int(policy["value"]); v <= 0 {
			add(&errs, field.Invalid(ip.Child("value"), v, "must be greater than zero"))
		}
		period := object.Int(policy["periodSeconds"])
		if period <= 0 {
			add(&errs, field.Invalid(ip.Child("periodSeconds"), period, "must be greater than zero"))
		}
		if period > hpaMaxPeriodSeconds {
			add(&errs, field.Invalid(ip.Child("periodSeconds"), period, fmt.Sprintf("must be less than or equal to %v", hpaMaxPeriodSeconds)))
		}
	}
	return errs
}

package validation

import (
	"fmt"

	"kubeplay/core/field"
	"kubeplay/core/object"
)

// The rules of node.k8s.io/v1's RuntimeClass, as k8s.io/kubernetes's
// pkg/apis/node/validation judges them.

// RuntimeClass is ValidateRuntimeClass (the metadata aside): a handler
// that is a DNS label, an overhead that is a valid resource list, and
// scheduling's node selector and tolerations.
func RuntimeClass(rc object.Object) field.ErrorList {
	var errs field.ErrorList
	handler := fields(rc).str("handler")
	addInvalid(&errs, field.NewPath("handler"), handler, DNS1123Label(handler))
	if overhead := fields(rc).obj("overhead"); overhead != nil {
		errs = append(errs, resources(fields{"limits": overhead["podFixed"]}, field.NewPath("overhead"))...)
	}
	if scheduling := fields(rc).obj("scheduling"); scheduling != nil {
		p := field.NewPath("scheduling")
		if scheduling["nodeSelector"] != nil {
			errs = append(errs, Labels(scheduling.strMap("nodeSelector"), p.Child("nodeSelector"))...)
		}
		tp := p.Child("tolerations")
		list := scheduling.list("tolerations")
		// kube names the list's path twice here.
		errs = append(errs, tolerations(list, tp.Child("tolerations"))...)
		seen := map[string]bool{}
		for i, t := range list {
			key := fmt.Sprintf("%q %q %q %q", t.str("key"), t.str("operator"), t.str("value"), t.str("effect"))
			if seen[key] {
				add(&errs, field.Duplicate(tp.Index(i), tolerationGoSyntax(t)))
			}
			seen[key] = true
		}
	}
	return errs
}

// RuntimeClassUpdate is ValidateRuntimeClassUpdate (the metadata aside): the
// handler stays.
func RuntimeClassUpdate(rc, old object.Object) field.ErrorList {
	if h := fields(rc).str("handler"); h != fields(old).str("handler") {
		return field.ErrorList{field.Invalid(field.NewPath("handler"), h, "field is immutable")}
	}
	return nil
}

// tolerations is ValidateTolerations.
func tolerations(list []fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range list {
		ip := p.Index(i)
		key, op, value, effect := t.str("key"), t.str("operator"), t.str("value"), t.str("effect")
		if key != "" {
			addInvalid(&errs, ip.Child("key"), key, QualifiedName(key))
		}
		if key == "" && op != "Exists" {
			add(&errs, field.Invalid(ip.Child("operator"), op, "operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.has("tolerationSeconds") && effect != "NoExecute" {
			add(&errs, field.Invalid(ip.Child("effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch op {
		case "Equal", "":
			if msgs := LabelValue(value); len(msgs) > 0 {
				msg := msgs[0]
				for _, m := range msgs[1:] {
					msg += ";" + m
				}
				add(&errs, field.Invalid(ip.Child("operator"), value, msg))
			}
		case "Exists":
			if value != "" {
				add(&errs, field.Invalid(ip.Child("operator"), value, "value must be empty when `operator` is 'Exists'"))
			}
		default:
			add(&errs, field.NotSupported(ip.Child("operator"), op, []string{"Equal", "Exists"}))
		}
		if effect != "" && effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute" {
			add(&errs, field.NotSupported(ip.Child("effect"), effect, []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}))
		}
	}
	return errs
}

// tolerationGoSyntax is a toleration as kube's messages print its internal
// type.
func tolerationGoSyntax(t fields) field.GoSyntax {
	seconds := "(*int64)(nil)"
	if n, ok := toInt(t["tolerationSeconds"]); ok {
		seconds = fmt.Sprintf("(*int64)(%d)", n)
	}
	return field.GoSyntax(fmt.Sprintf("core.Toleration{Key:%q, Operator:%q, Value:%q, Effect:%q, TolerationSeconds:%s}",
		t.str("key"), t.str("operator"), t.str("value"), t.str("effect"), seconds))
}

// deprecatedNodeLabels are the node labels kube warns of, with its words.
var deprecatedNodeLabels = map[string]string{
	"beta.kubernetes.io/arch":                       `deprecated since v1.14; use "kubernetes.io/arch" instead`,
	"beta.kubernetes.io/os":                         `deprecated since v1.14; use "kubernetes.io/os" instead`,
	"failure-domain.beta.kubernetes.io/region":      `deprecated since v1.17; use "topology.kubernetes.io/region" instead`,
	"failure-domain.beta.kubernetes.io/zone":        `deprecated since v1.17; use "topology.kubernetes.io/zone" instead`,
	"beta.kubernetes.io/instance-type":              `deprecated since v1.17; use "node.kubernetes.io/instance-type" instead`,
	"app.kubernetes.io/created-by":                  "deprecated since v1.9",
	"scheduler.alpha.kubernetes.io/preferAvoidPods": "deprecated since v1.22; use Taints and Tolerations instead",
	"node-role.kubernetes.io/master":                `use "node-role.kubernetes.io/control-plane" instead`,
}

// RuntimeClassWarnings is GetWarningsForRuntimeClass: one for each
// deprecated node label its scheduling selects nodes by (in key order; kube
// ranges over a map).
func RuntimeClassWarnings(rc object.Object) []string {
	var warnings []string
	selector := fields(rc).obj("scheduling").strMap("nodeSelector")
	for _, k := range sortedKeys(selector) {
		if msg, ok := deprecatedNodeLabels[k]; ok {
			warnings = append(warnings, "scheduling.nodeSelector: "+msg)
		}
	}
	return warnings
}

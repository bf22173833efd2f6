package validation

import (
	"fmt"
	"regexp"

	"kubeplay/core/field"
	"kubeplay/core/object"
)

// The rules of PodDisruptionBudgets (pkg/apis/policy/validation): at most one
// of minAvailable and maxUnavailable, each a count or a percentage of at most
// 100%, a valid selector, a known unhealthyPodEvictionPolicy; a status of
// counts not negative and valid conditions.

// PodDisruptionBudget checks a budget's spec (ValidatePodDisruptionBudgetSpec).
func PodDisruptionBudget(pdb object.Object) field.ErrorList {
	spec, p := fields(pdb).obj("spec"), field.NewPath("spec")
	var errs field.ErrorList
	if spec.has("minAvailable") && spec.has("maxUnavailable") {
		add(&errs, field.Invalid(p, budgetSpec(spec), "minAvailable and maxUnavailable cannot be both set"))
	}
	for _, f := range []string{"minAvailable", "maxUnavailable"} {
		if !spec.has(f) {
			continue
		}
		v := intOrString(spec[f])
		add(&errs, v.check(p.Child(f))...)
		if n, ok := v.percent(); ok && n > 100 {
			add(&errs, field.Invalid(p.Child(f), v, "must not be greater than 100%"))
		}
	}
	if spec.has("selector") {
		add(&errs, selectorErrors(spec.obj("selector"), p.Child("selector"))...)
	}
	if policy := spec.str("unhealthyPodEvictionPolicy"); spec.has("unhealthyPodEvictionPolicy") && policy != "AlwaysAllow" && policy != "IfHealthyBudget" {
		add(&errs, field.NotSupported(p.Child("unhealthyPodEvictionPolicy"), policy, []string{"AlwaysAllow", "IfHealthyBudget"}))
	}
	return errs
}

// budgetSpec is a budget's spec shown as kube shows a
// policy.PodDisruptionBudgetSpec: its pointers as made-up addresses.
type budgetSpec fields

func (s budgetSpec) String() string {
	ptr := func(f, typ string) string {
		if fields(s).has(f) {
			return "(" + typ + ")(0xc000010000)"
		}
		return "(" + typ + ")(nil)"
	}
	return fmt.Sprintf("policy.PodDisruptionBudgetSpec{MinAvailable:%s, Selector:%s, MaxUnavailable:%s, UnhealthyPodEvictionPolicy:%s}",
		ptr("minAvailable", "*intstr.IntOrString"), ptr("selector", "*v1.LabelSelector"), ptr("maxUnavailable", "*intstr.IntOrString"),
		ptr("unhealthyPodEvictionPolicy", "*policy.UnhealthyPodEvictionPolicyType"))
}

// PodDisruptionBudgetStatusUpdate checks a write of a budget's status
// (ValidatePodDisruptionBudgetStatusUpdate, policy/v1).
func PodDisruptionBudgetStatusUpdate(pdb object.Object) field.ErrorList {
	status, p := fields(pdb).obj("status"), field.NewPath("status")
	errs := conditions(status.list("conditions"), p.Child("conditions"))
	for _, f := range []string{"disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"} {
		add(&errs, nonNegative(status.num(f), p.Child(f))...)
	}
	return errs
}

// conditionReason is the form of a metav1.Condition's reason.
var conditionReason = regexp.MustCompile("^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")

// conditions is metav1 validation's ValidateConditions.
func conditions(list []fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, c := range list {
		cp := p.Index(i)
		typ := c.str("type")
		if seen[typ] {
			add(&errs, field.Duplicate(cp.Child("type"), typ))
		}
		seen[typ] = true
		addInvalid(&errs, cp.Child("type"), typ, QualifiedName(typ))
		if s := c.str("status"); s != "True" && s != "False" && s != "Unknown" {
			add(&errs, field.NotSupported(cp.Child("status"), s, []string{"False", "True", "Unknown"}))
		}
		if g := c.num("observedGeneration"); g < 0 {
			add(&errs, field.Invalid(cp.Child("observedGeneration"), g, "must be greater than or equal to zero"))
		}
		if c.str("lastTransitionTime") == "" {
			add(&errs, field.Required(cp.Child("lastTransitionTime"), "must be set"))
		}
		switch reason := c.str("reason"); {
		case reason == "":
			add(&errs, field.Required(cp.Child("reason"), "must be set"))
		default:
			if !conditionReason.MatchString(reason) {
				add(&errs, field.Invalid(cp.Child("reason"), reason, regexError("a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
					"[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?", "my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB")))
			}
			if len(reason) > 1024 {
				add(&errs, field.TooLong(cp.Child("reason"), 1024))
			}
		}
		if len(c.str("message")) > 32*1024 {
			add(&errs, field.TooLong(cp.Child("message"), 32*1024))
		}
	}
	return errs
}

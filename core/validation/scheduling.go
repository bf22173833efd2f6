package validation

import (
	"fmt"
	"strings"

	"kubeplay/core/field"
	"kubeplay/core/object"
)

// The rules of scheduling.k8s.io/v1's PriorityClass, as
// k8s.io/kubernetes's pkg/apis/scheduling/validation judges them.

// SystemPriorityClass is one of the PriorityClasses kube-apiserver creates
// when it starts, the only ones whose names may start with "system-".
type SystemPriorityClass struct {
	Name, Description string
	Value             int64
}

// SystemPriorityClasses are kube's, in the order it creates them.
var SystemPriorityClasses = []SystemPriorityClass{
	{"system-node-critical", "Used for system critical pods that must not be moved from their current node.", 2000001000},
	{"system-cluster-critical", "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.", 2000000000},
}

// highestUserPriority is the highest value a PriorityClass of a user's may
// have.
const highestUserPriority = 1000000000

// PriorityClass is ValidatePriorityClass (the metadata aside): a "system-"
// name is one of kube's, as kube made it; any other's value is at most a
// billion.
func PriorityClass(pc object.Object) field.ErrorList {
	var errs field.ErrorList
	name := object.MetaString(pc, "name")
	value := fields(pc).num("value")
	if strings.HasPrefix(name, "system-") {
		if msg := systemPriorityClassError(name, value, pc["globalDefault"] == true); msg != "" {
			add(&errs, field.Forbidden(field.NewPath("metadata", "name"), "priority class names with 'system-' prefix are reserved for system use only. error: "+msg))
		}
	} else if value > highestUserPriority {
		add(&errs, field.Forbidden(field.NewPath("value"), fmt.Sprintf("maximum allowed value of a user defined priority is %d", highestUserPriority)))
	}
	if policy, ok := pc["preemptionPolicy"].(string); ok {
		switch policy {
		case "PreemptLowerPriority", "Never":
		case "":
			add(&errs, field.Required(field.NewPath("preemptionPolicy"), ""))
		default:
			add(&errs, field.NotSupported(field.NewPath("preemptionPolicy"), policy, []string{"PreemptLowerPriority", "Never"}))
		}
	}
	return errs
}

// systemPriorityClassError is why name, value and globalDefault are not one
// of kube's system PriorityClasses ("" when they are).
func systemPriorityClassError(name string, value int64, globalDefault bool) string {
	for _, c := range SystemPriorityClasses {
		switch {
		case c.Name != name:
		case c.Value != value:
			return fmt.Sprintf("value of %s PriorityClass must be %d", name, c.Value)
		case globalDefault:
			return fmt.Sprintf("globalDefault of %s PriorityClass must be false", name)
		default:
			return ""
		}
	}
	return name + " is not a known system priority class"
}

// PriorityClassUpdate is ValidatePriorityClassUpdate (the metadata aside):
// the value and the preemption policy stay.
func PriorityClassUpdate(pc, old object.Object) field.ErrorList {
	var errs field.ErrorList
	if fields(pc).num("value") != fields(old).num("value") {
		add(&errs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
	}
	if policy := fields(pc).str("preemptionPolicy"); policy != fields(old).str("preemptionPolicy") {
		add(&errs, field.Invalid(field.NewPath("preemptionPolicy"), policy, "field is immutable"))
	}
	return errs
}

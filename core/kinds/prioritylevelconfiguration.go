package kinds

import (
	"fmt"
	"math"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/defaults"
	"kubeplay/core/encoding/table"
	"kubeplay/core/field"
	"kubeplay/core/flowcontrol/bootstrap"
	"kubeplay/core/object"
)

// priorityLevelConfiguration is flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration.
func priorityLevelConfiguration() *api.Resource {
	return &api.Resource{
		Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Kind: "PriorityLevelConfiguration",
		Plural: "prioritylevelconfigurations", Singular: "prioritylevelconfiguration", Verbs: allVerbs, Generation: true,
		Subs:     []api.Subresource{{Name: "status", Kind: "PriorityLevelConfiguration", Group: "flowcontrol.apiserver.k8s.io", Verbs: statusVerbs}},
		Defaults: defaultPriorityLevel,
		Hooks: api.Hooks{
			StatusOnly:          true, // its status strategy resets all the metadata
			LabelChecksOnUpdate: 3,
			AsWritten:           true,
			PrepareForCreate:    func(obj object.Object, _ time.Time) { obj["status"] = map[string]any{} },
			Validate:            validatePriorityLevel,
			// An update is checked whole, as kube's ValidatePriorityLevelConfigurationUpdate does; a
			// status write is the status subresource's.
			ValidateUpdate: notForStatus(validatePriorityLevel),
		},
		Printer: table.PriorityLevelConfiguration,
	}
}

// A PriorityLevelConfiguration's rules, as k8s.io/kubernetes's
// pkg/apis/flowcontrol/{v1,validation} define them: v1's defaults, and kube's
// validation with its messages, in its order; the mandatory objects' specs are
// fixed (core/flowcontrol/bootstrap).

// defaultPriorityLevel applies v1's defaults: 30 nominal shares and 0 lendable percent
// for a limited level, 0 and 0 for the exempt one, and queuing's 64 queues,
// hand size 8 and 50 requests per queue.
func defaultPriorityLevel(obj map[string]any) {
	spec, _ := obj["spec"].(map[string]any)
	if limited, ok := spec["limited"].(map[string]any); ok {
		defaults.SetUnset(limited, "nominalConcurrencyShares", 30)
		defaults.SetUnset(limited, "lendablePercent", 0)
		if q, ok := object.Path(limited, "limitResponse", "queuing").(map[string]any); ok {
			setZero(q, "handSize", 8)
			setZero(q, "queues", 64)
			setZero(q, "queueLengthLimit", 50)
		}
	}
	if exempt, ok := spec["exempt"].(map[string]any); ok {
		defaults.SetUnset(exempt, "nominalConcurrencyShares", 0)
		defaults.SetUnset(exempt, "lendablePercent", 0)
	}
}

// setZero defaults a value field: absent or zero.
func setZero(m map[string]any, key string, v any) {
	if object.Int(m[key]) == 0 {
		m[key] = v
	}
}

// maxQueues is kube's bound on a level's queues (10^7); maxHashBits is shuffle
// sharding's (the entropy a hand may need of a 64-bit hash).
const (
	maxQueues   = 10_000_000
	maxHashBits = 60
)

// validatePriorityLevel is kube's ValidatePriorityLevelConfiguration.
func validatePriorityLevel(obj object.Object) field.ErrorList {
	name := object.MetaString(obj, "name")
	spec, _ := obj["spec"].(map[string]any)
	p := field.NewPath("spec")
	var errs field.ErrorList
	if _, ok := object.StringMap(object.Meta(obj), "annotations")["flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares"]; ok {
		errs = append(errs, field.Forbidden(field.NewPath("metadata", "annotations"),
			"annotation 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares' is forbidden"))
	}
	typ, _ := spec["type"].(string)
	if (name == bootstrap.Exempt) != (typ == "Exempt") {
		errs = append(errs, field.Invalid(p.Child("type"), typ, "type must be 'Exempt' if and only if name is 'exempt'"))
	}
	limited, hasLimited := spec["limited"].(map[string]any)
	exempt, hasExempt := spec["exempt"].(map[string]any)
	switch typ {
	case "Exempt":
		if hasLimited {
			errs = append(errs, field.Forbidden(p.Child("limited"), "must be nil if the type is not Limited"))
		}
		if hasExempt {
			errs = append(errs, nonNegative(exempt, "nominalConcurrencyShares", p.Child("exempt"), "must be a non-negative integer")...)
			errs = append(errs, percent(exempt, p.Child("exempt"))...)
		}
	case "Limited":
		if hasExempt {
			errs = append(errs, field.Forbidden(p.Child("exempt"), "must be nil if the type is Limited"))
		}
		if !hasLimited {
			errs = append(errs, field.Required(p.Child("limited"), "must not be empty when type is Limited"))
			break
		}
		lp := p.Child("limited")
		errs = append(errs, nonNegative(limited, "nominalConcurrencyShares", lp, "must be a non-negative integer")...)
		lr, _ := limited["limitResponse"].(map[string]any)
		errs = append(errs, validateLimitResponse(lr, lp.Child("limitResponse"))...)
		errs = append(errs, percent(limited, lp)...)
		errs = append(errs, nonNegative(limited, "borrowingLimitPercent", lp, "if specified, must be a non-negative integer")...)
	default:
		errs = append(errs, field.NotSupported(p.Child("type"), typ, []string{"Exempt", "Limited"}))
	}
	if fixed := bootstrap.MandatorySpec(bootstrap.PriorityLevelConfiguration, name); fixed != nil {
		if name == bootstrap.Exempt {
			have := object.DeepCopy(spec)
			if e, ok := fixed["exempt"]; ok {
				have["exempt"] = e
			}
			if !object.Equal(fixed, have) {
				errs = append(errs, field.Invalid(p, priorityLevelSpecSyntax(spec), "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value"))
			}
		} else if !object.Equal(fixed, spec) {
			errs = append(errs, field.Invalid(p, priorityLevelSpecSyntax(spec), fmt.Sprintf("spec of '%s' must equal the fixed value", name)))
		}
	}
	return errs
}

func percent(m map[string]any, p *field.Path) field.ErrorList {
	if v, ok := m["lendablePercent"]; ok && v != nil && (object.Int(v) < 0 || object.Int(v) > 100) {
		return field.ErrorList{field.Invalid(p.Child("lendablePercent"), object.Int(v), "must be between 0 and 100, inclusive")}
	}
	return nil
}

func validateLimitResponse(lr map[string]any, p *field.Path) field.ErrorList {
	typ, _ := lr["type"].(string)
	q, hasQueuing := lr["queuing"].(map[string]any)
	switch typ {
	case "Reject":
		if hasQueuing {
			return field.ErrorList{field.Forbidden(p.Child("queuing"), "must be nil if limited.limitResponse.type is not Limited")}
		}
	case "Queue":
		if !hasQueuing {
			return field.ErrorList{field.Required(p.Child("queuing"), "must not be empty if limited.limitResponse.type is Limited")}
		}
		return validateQueuing(q, p.Child("queuing"))
	default:
		return field.ErrorList{field.NotSupported(p.Child("type"), typ, []string{"Queue", "Reject"})}
	}
	return nil
}

func validateQueuing(q map[string]any, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	qll, queues, hand := object.Int(q["queueLengthLimit"]), object.Int(q["queues"]), object.Int(q["handSize"])
	if qll <= 0 {
		errs = append(errs, field.Invalid(p.Child("queueLengthLimit"), qll, "must be positive"))
	}
	if queues <= 0 {
		errs = append(errs, field.Invalid(p.Child("queues"), queues, "must be positive"))
	} else if queues > maxQueues {
		errs = append(errs, field.Invalid(p.Child("queues"), queues, fmt.Sprintf("must not be greater than %d", maxQueues)))
	}
	switch {
	case hand <= 0:
		errs = append(errs, field.Invalid(p.Child("handSize"), hand, "must be positive"))
	case hand > queues:
		errs = append(errs, field.Invalid(p.Child("handSize"), hand, fmt.Sprintf("should not be greater than queues (%d)", queues)))
	case int(math.Ceil(math.Log2(float64(queues))*float64(hand))) > maxHashBits:
		errs = append(errs, field.Invalid(p.Child("handSize"), hand,
			fmt.Sprintf("required entropy bits of deckSize %d and handSize %d should not be greater than %d", queues, hand, maxHashBits)))
	}
	return errs
}

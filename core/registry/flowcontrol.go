package registry

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"kubeplay/core/field"
	"kubeplay/core/flowcontrol/bootstrap"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// The strategies of API Priority and Fairness's configuration kinds
// (flowcontrol.apiserver.k8s.io/v1), as k8s.io/kubernetes's
// pkg/registry/flowcontrol and pkg/apis/flowcontrol/{v1,validation} define them:
// v1's defaults, a status that only the status subresource writes (cleared on
// create), and kube's validation with its messages, in its order. The mandatory
// objects' specs are fixed (core/flowcontrol/bootstrap).

// flowSchemaStrategy is FlowSchema's.
type flowSchemaStrategy struct{ resourceStrategy }

// Canonicalize applies v1's default: matchingPrecedence 1000, to a spec
// kube's Go type always has.
func (flowSchemaStrategy) Canonicalize(obj object.Object) {
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		obj["spec"] = spec
	}
	if object.Int(spec["matchingPrecedence"]) == 0 {
		spec["matchingPrecedence"] = 1000
	}
}

func (s flowSchemaStrategy) PrepareForCreate(obj object.Object) {
	obj["status"] = map[string]any{}
	s.resourceStrategy.PrepareForCreate(obj)
}

// Validate is kube's ValidateFlowSchema (the metadata is checked for every kind).
func (flowSchemaStrategy) Validate(obj object.Object) field.ErrorList {
	name := object.MetaString(obj, "name")
	spec, _ := obj["spec"].(map[string]any)
	p := field.NewPath("spec")
	var errs field.ErrorList
	prec := object.Int(spec["matchingPrecedence"])
	if prec <= 0 {
		errs = append(errs, field.Invalid(p.Child("matchingPrecedence"), prec, "must be a positive value"))
	}
	if prec > 10000 {
		errs = append(errs, field.Invalid(p.Child("matchingPrecedence"), prec, "must not be greater than 10000"))
	}
	if prec == 1 && name != bootstrap.Exempt {
		errs = append(errs, field.Invalid(p.Child("matchingPrecedence"), prec, "only the schema named 'exempt' may have matchingPrecedence 1"))
	}
	if dm, ok := spec["distinguisherMethod"].(map[string]any); ok {
		if t, _ := dm["type"].(string); t != "ByNamespace" && t != "ByUser" {
			errs = append(errs, field.NotSupported(p.Child("distinguisherMethod").Child("type"),
				field.GoSyntax(fmt.Sprintf("flowcontrol.FlowDistinguisherMethod{Type:%q}", t)), []string{"ByNamespace", "ByUser"}))
		}
	}
	plPath := p.Child("priorityLevelConfiguration").Child("name")
	if pl, _ := object.Path(spec, "priorityLevelConfiguration", "name").(string); pl == "" {
		errs = append(errs, field.Required(plPath, "must reference a priority level"))
	} else {
		for _, msg := range validation.DNS1123Subdomain(pl) {
			errs = append(errs, field.Invalid(plPath, pl, msg))
		}
	}
	rules, _ := spec["rules"].([]any)
	for i, r := range rules {
		rule, _ := r.(map[string]any)
		errs = append(errs, validatePolicyRules(rule, p.Child("rules").Index(i))...)
	}
	if fixed := bootstrap.MandatorySpec(bootstrap.FlowSchema, name); fixed != nil && !object.Equal(fixed, spec) {
		errs = append(errs, field.Invalid(p, flowSchemaSpecSyntax(spec), fmt.Sprintf("spec of '%s' must equal the fixed value", name)))
	}
	return errs
}

// supportedVerbs are the verbs a rule may name besides "*".
var supportedVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"}

func validatePolicyRules(rule map[string]any, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	subjects, _ := rule["subjects"].([]any)
	if len(subjects) == 0 {
		errs = append(errs, field.Required(p.Child("subjects"), "subjects must contain at least one value"))
	}
	for i, s := range subjects {
		subject, _ := s.(map[string]any)
		errs = append(errs, validateSubject(subject, p.Child("subjects").Index(i))...)
	}
	resRules, _ := rule["resourceRules"].([]any)
	nonResRules, _ := rule["nonResourceRules"].([]any)
	if len(resRules) == 0 && len(nonResRules) == 0 {
		errs = append(errs, field.Required(p, "at least one of resourceRules and nonResourceRules has to be non-empty"))
	}
	for i, r := range resRules {
		rr, _ := r.(map[string]any)
		errs = append(errs, validateResourceRule(rr, p.Child("resourceRules").Index(i))...)
	}
	for i, r := range nonResRules {
		nr, _ := r.(map[string]any)
		errs = append(errs, validateNonResourceRule(nr, p.Child("nonResourceRules").Index(i))...)
	}
	return errs
}

func validateSubject(s map[string]any, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	kind, _ := s["kind"].(string)
	others := func(own string) {
		for _, k := range []string{"serviceAccount", "user", "group"} {
			if k == own || s[k] == nil {
				continue
			}
			want := map[string]string{"serviceAccount": "ServiceAccount", "user": "User", "group": "Group"}[k]
			errs = append(errs, field.Forbidden(p.Child(k), fmt.Sprintf("%s is forbidden when subject kind is not '%s'", k, want)))
		}
	}
	switch kind {
	case "ServiceAccount":
		sa, ok := s["serviceAccount"].(map[string]any)
		sp := p.Child("serviceAccount")
		if !ok {
			errs = append(errs, field.Required(sp, "serviceAccount is required when subject kind is 'ServiceAccount'"))
		} else {
			name, _ := sa["name"].(string)
			if name == "" {
				errs = append(errs, field.Required(sp.Child("name"), ""))
			} else if name != "*" {
				for _, msg := range validation.DNS1123Subdomain(name) {
					errs = append(errs, field.Invalid(sp.Child("name"), name, msg))
				}
			}
			if ns, _ := sa["namespace"].(string); ns == "" {
				errs = append(errs, field.Required(sp.Child("namespace"), "must specify namespace for service account"))
			} else {
				for _, msg := range validation.DNS1123Label(ns) {
					errs = append(errs, field.Invalid(sp.Child("namespace"), ns, msg))
				}
			}
		}
		others("serviceAccount")
	case "User", "Group":
		key := strings.ToLower(kind)
		sub, ok := s[key].(map[string]any)
		if !ok {
			errs = append(errs, field.Required(p.Child(key), fmt.Sprintf("%s is required when subject kind is '%s'", key, kind)))
		} else if name, _ := sub["name"].(string); name == "" {
			errs = append(errs, field.Required(p.Child(key).Child("name"), ""))
		}
		others(key)
	default:
		errs = append(errs, field.NotSupported(p.Child("kind"), kind, []string{"Group", "ServiceAccount", "User"}))
	}
	return errs
}

// validateVerbs checks a rule's verbs: at least one, "*" alone, or kube's verbs.
func validateVerbs(verbs []string, p *field.Path) field.ErrorList {
	switch {
	case len(verbs) == 0:
		return field.ErrorList{field.Required(p, "verbs must contain at least one value")}
	case slices.Contains(verbs, "*"):
		if len(verbs) > 1 {
			return field.ErrorList{field.Invalid(p, verbs, "if '*' is present, must not specify other verbs")}
		}
	default:
		for _, v := range verbs {
			if !slices.Contains(supportedVerbs, v) {
				return field.ErrorList{field.NotSupported(p, verbs, supportedVerbs)}
			}
		}
	}
	return nil
}

func validateResourceRule(r map[string]any, p *field.Path) field.ErrorList {
	errs := validateVerbs(object.Strings(r, "verbs"), p.Child("verbs"))
	groups, resources, namespaces := object.Strings(r, "apiGroups"), object.Strings(r, "resources"), object.Strings(r, "namespaces")
	if len(groups) == 0 {
		errs = append(errs, field.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
	} else if len(groups) > 1 && slices.Contains(groups, "*") {
		errs = append(errs, field.Invalid(p.Child("apiGroups"), groups, "if '*' is present, must not specify other api groups"))
	}
	if len(resources) == 0 {
		errs = append(errs, field.Required(p.Child("resources"), "resource rules must supply at least one resource"))
	} else if len(resources) > 1 && slices.Contains(resources, "*") {
		errs = append(errs, field.Invalid(p.Child("resources"), resources, "if '*' is present, must not specify other resources"))
	}
	clusterScope, _ := r["clusterScope"].(bool)
	switch {
	case len(namespaces) == 0 && !clusterScope:
		errs = append(errs, field.Required(p.Child("namespaces"), "resource rules that are not cluster scoped must supply at least one namespace"))
	case slices.Contains(namespaces, "*"):
		if len(namespaces) > 1 {
			errs = append(errs, field.Invalid(p.Child("namespaces"), namespaces, "if '*' is present, must not specify other namespaces"))
		}
	default:
		for i, ns := range namespaces {
			for _, msg := range validation.DNS1123Label(ns) {
				errs = append(errs, field.Invalid(p.Child("namespaces").Index(i), ns, "each member of this list must be '*' or a DNS-1123 label; "+msg))
			}
		}
	}
	return errs
}

func validateNonResourceRule(r map[string]any, p *field.Path) field.ErrorList {
	errs := validateVerbs(object.Strings(r, "verbs"), p.Child("verbs"))
	urls := object.Strings(r, "nonResourceURLs")
	switch {
	case len(urls) == 0:
		errs = append(errs, field.Required(p.Child("nonResourceURLs"), "nonResourceURLs must contain at least one value"))
	case slices.Contains(urls, "*"):
		if len(urls) > 1 {
			errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), urls, "if '*' is present, must not specify other non-resource URLs"))
		}
	default:
		for i, u := range urls {
			if msg := nonResourceURLProblem(u); msg != "" {
				errs = append(errs, field.Invalid(p.Child("nonResourceURLs").Index(i), u, msg))
			}
		}
	}
	return errs
}

// nonResourceURLProblem is kube's ValidateNonResourceURLPath: what is wrong with
// path, or "".
func nonResourceURLProblem(path string) string {
	switch {
	case path == "":
		return "must not be empty"
	case path == "/":
		return ""
	case !strings.HasPrefix(path, "/"):
		return "must start with slash"
	case strings.Contains(path, " "):
		return "must not contain white-space"
	case strings.Contains(path, "//"):
		return "must not contain double slash"
	}
	if n := strings.Count(path, "*"); n > 1 || n == 1 && !strings.HasSuffix(path, "/*") {
		return "wildcard can only do suffix matching"
	}
	return ""
}

// priorityLevelStrategy is PriorityLevelConfiguration's.
type priorityLevelStrategy struct{ resourceStrategy }

// Canonicalize applies v1's defaults: 30 nominal shares and 0 lendable percent
// for a limited level, 0 and 0 for the exempt one, and queuing's 64 queues,
// hand size 8 and 50 requests per queue.
func (priorityLevelStrategy) Canonicalize(obj object.Object) {
	spec, _ := obj["spec"].(map[string]any)
	if limited, ok := spec["limited"].(map[string]any); ok {
		setUnset(limited, "nominalConcurrencyShares", 30)
		setUnset(limited, "lendablePercent", 0)
		if q, ok := object.Path(limited, "limitResponse", "queuing").(map[string]any); ok {
			setZero(q, "handSize", 8)
			setZero(q, "queues", 64)
			setZero(q, "queueLengthLimit", 50)
		}
	}
	if exempt, ok := spec["exempt"].(map[string]any); ok {
		setUnset(exempt, "nominalConcurrencyShares", 0)
		setUnset(exempt, "lendablePercent", 0)
	}
}

// setUnset defaults a pointer field: absent or null.
func setUnset(m map[string]any, key string, v any) {
	if m[key] == nil {
		m[key] = v
	}
}

// setZero defaults a value field: absent or zero.
func setZero(m map[string]any, key string, v any) {
	if object.Int(m[key]) == 0 {
		m[key] = v
	}
}

func (s priorityLevelStrategy) PrepareForCreate(obj object.Object) {
	obj["status"] = map[string]any{}
	s.resourceStrategy.PrepareForCreate(obj)
}

// maxQueues is kube's bound on a level's queues (10^7); maxHashBits is shuffle
// sharding's (the entropy a hand may need of a 64-bit hash).
const (
	maxQueues   = 10_000_000
	maxHashBits = 60
)

// Validate is kube's ValidatePriorityLevelConfiguration.
func (priorityLevelStrategy) Validate(obj object.Object) field.ErrorList {
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

func nonNegative(m map[string]any, key string, p *field.Path, msg string) field.ErrorList {
	if v, ok := m[key]; ok && v != nil && object.Int(v) < 0 {
		return field.ErrorList{field.Invalid(p.Child(key), object.Int(v), msg)}
	}
	return nil
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

// ValidateUpdate checks an updated FlowSchema whole, as kube's
// ValidateFlowSchemaUpdate does; a status write is the status subresource's.
func (s flowSchemaStrategy) ValidateUpdate(obj, _ object.Object, sub string) field.ErrorList {
	if sub == "status" {
		return nil
	}
	return s.Validate(obj)
}

// ValidateUpdate checks an updated PriorityLevelConfiguration whole, as kube's
// ValidatePriorityLevelConfigurationUpdate does.
func (s priorityLevelStrategy) ValidateUpdate(obj, _ object.Object, sub string) field.ErrorList {
	if sub == "status" {
		return nil
	}
	return s.Validate(obj)
}

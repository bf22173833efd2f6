package validation

import (
	"fmt"
	"slices"
	"strings"

	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/quantity"
)

// The rules of ResourceQuotas (ValidateResourceQuota, its update and its
// status update) and LimitRanges (ValidateLimitRange), as kube words them.
// Where kube prints a quantity's Go value as parsed from what the client
// sent, kubeplay prints it as parsed from its canonical form (the same but
// for quantities not sent in that form: "1.5" shows as "1500m" does).

// The messages of kube's quota and limit range checks.
const (
	invalidQuotaResource = "must be a standard resource for quota"
	notIntegerMsg        = "must be an integer"
)

// quotaResources are the resources a quota limits by their own names
// (IsStandardQuotaResourceName, beside huge pages).
var quotaResources = []string{
	"cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage", "requests.ephemeral-storage",
	"limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas", "services", "replicationcontrollers",
	"secrets", "persistentvolumeclaims", "configmaps", "services.nodeports", "services.loadbalancers",
}

// integerResources are counted in whole numbers (IsIntegerResourceName,
// beside extended resources).
var integerResources = []string{"pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
	"persistentvolumeclaims", "services.nodeports", "services.loadbalancers"}

// quotaScopes are the scopes a quota may have; the first five apply to pod
// counts and compute resources only (BestEffort to pod counts only).
var quotaScopes = []string{"Terminating", "NotTerminating", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity", "BestEffort"}

// hugePages says whether a resource is huge pages, or a quota of them.
func hugePages(name string) bool {
	return strings.HasPrefix(name, "hugepages-") || strings.HasPrefix(name, "requests.hugepages-")
}

// isQuotaResource is IsStandardQuotaResourceName.
func isQuotaResource(name string) bool {
	return slices.Contains(quotaResources, name) || hugePages(name)
}

// standardResourceName is validateResourceName: a qualified name, and one
// of kube's own unless prefixed.
func standardResourceName(name string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	addInvalid(&errs, p, rawName(name), QualifiedName(name))
	if len(errs) == 0 && !strings.Contains(name, "/") && !slices.Contains(standardResources, name) && !hugePages(name) {
		add(&errs, field.Invalid(p, rawName(name), "must be a standard resource type or fully qualified"))
	}
	return errs
}

// quotaResourceName is ValidateResourceQuotaResourceName.
func quotaResourceName(name string, p *field.Path) field.ErrorList {
	errs := standardResourceName(name, p)
	if !strings.Contains(name, "/") && !isQuotaResource(name) {
		add(&errs, field.Invalid(p, rawName(name), invalidQuotaResource))
	}
	return errs
}

// extendedResource is IsExtendedResourceName: outside kubernetes.io, not a
// quota's "requests." name, and one once prefixed so.
func extendedResource(name string) bool {
	return strings.Contains(name, "/") && !strings.Contains(name, "kubernetes.io/") && !strings.HasPrefix(name, "requests.") &&
		len(QualifiedName("requests."+name)) == 0
}

// quotaQuantity is ValidateResourceQuantityValue: not negative, and whole
// for the resources counted in whole numbers.
func quotaQuantity(name, q string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if quantity.Compare(q, "0") < 0 {
		add(&errs, field.Invalid(p, q, isNegativeErrorMsg))
	}
	if (slices.Contains(integerResources, name) || extendedResource(name)) && quantity.MilliValue(q)%1000 != 0 {
		add(&errs, field.Invalid(p, quantityValue(q), notIntegerMsg))
	}
	return errs
}

// quantityValue is a quantity as kube's messages print a resource.Quantity
// value: its Go syntax (quantity.GoSyntax).
type quantityValue string

func (q quantityValue) String() string { return quantity.GoSyntax(string(q)) }

// resourceList checks a ResourceList's names and quantities, in the order
// of its names.
func resourceList(list map[string]string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range sortedKeys(list) {
		kp := p.Key(k)
		add(&errs, quotaResourceName(k, kp)...)
		add(&errs, quotaQuantity(k, list[k], kp)...)
	}
	return errs
}

// ResourceQuota checks a new ResourceQuota: its limits, scopes and scope
// selector (its status is cleared before).
func ResourceQuota(q object.Object) field.ErrorList {
	return quotaSpec(fields(q).obj("spec"), field.NewPath("spec"))
}

// ResourceQuotaUpdate checks an update of a ResourceQuota: its spec again,
// with scopes that may not change.
func ResourceQuotaUpdate(q, old object.Object) field.ErrorList {
	spec := fields(q).obj("spec")
	errs := quotaSpec(spec, field.NewPath("spec"))
	scopes, oldScopes := spec.strs("scopes"), fields(old).obj("spec").strs("scopes")
	if !sameSet(scopes, oldScopes) {
		add(&errs, field.Invalid(field.NewPath("spec", "scopes"), scopesValue(spec), fieldImmutable))
	}
	return errs
}

// ResourceQuotaStatusUpdate checks a write to a ResourceQuota's status: its
// limits and usage. (kube also requires a resourceVersion, which its update
// has given a write without one by then.)
func ResourceQuotaStatusUpdate(q object.Object) field.ErrorList {
	status := fields(q).obj("status")
	errs := resourceList(status.strMap("hard"), field.NewPath("status", "hard"))
	return append(errs, resourceList(status.strMap("used"), field.NewPath("status", "used"))...)
}

// sameSet says whether two lists hold the same strings.
func sameSet(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	for _, s := range b {
		if !slices.Contains(a, s) {
			return false
		}
	}
	return true
}

// quotaSpec is ValidateResourceQuotaSpec.
func quotaSpec(spec fields, p *field.Path) field.ErrorList {
	hard := spec.strMap("hard")
	errs := resourceList(hard, p.Child("hard"))
	if scopes := spec.strs("scopes"); len(scopes) > 0 {
		sp := p.Child("scopes")
		for _, s := range scopes {
			if !slices.Contains(quotaScopes, s) {
				add(&errs, field.Invalid(sp, scopesValue(spec), "unsupported scope"))
			}
			add(&errs, scopeResources(s, hard, sp, scopesValue(spec))...)
		}
		add(&errs, conflictingScopes(scopes, sp, scopesValue(spec))...)
	}
	sel := spec.obj("scopeSelector")
	if sel == nil {
		return errs
	}
	mp := p.Child("scopeSelector").Child("matchExpressions")
	var scopes []string
	for _, r := range sel.list("matchExpressions") {
		scope, op := r.str("scopeName"), r.str("operator")
		if !slices.Contains(quotaScopes, scope) {
			add(&errs, field.Invalid(mp.Child("scopeName"), scope, "unsupported scope"))
		}
		add(&errs, scopeResources(scope, hard, mp, selectorValue(sel))...)
		if scope != "PriorityClass" && slices.Contains(quotaScopes, scope) && op != "Exists" {
			add(&errs, field.Invalid(mp.Child("operator"), op,
				"must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"))
		}
		switch op {
		case "In", "NotIn":
			if len(r.strs("values")) == 0 {
				add(&errs, field.Required(mp.Child("values"), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"))
			}
		case "Exists", "DoesNotExist":
			if vs := r.strs("values"); len(vs) != 0 {
				add(&errs, field.Invalid(mp.Child("values"), goStrings(vs), "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"))
			}
		default:
			add(&errs, field.Invalid(mp.Child("operator"), op, "not a valid selector operator"))
		}
		scopes = append(scopes, scope)
	}
	// kube names the conflict by spec.scopes.
	return append(errs, conflictingScopes(scopes, mp, scopesValue(spec))...)
}

// scopeResources refuses, once per resource, the standard quota resources
// of hard that scope does not apply to.
func scopeResources(scope string, hard map[string]string, p *field.Path, value any) field.ErrorList {
	var errs field.ErrorList
	limited := 0 // the scopes before BestEffort limit pods and compute resources
	switch i := slices.Index(quotaScopes, scope); {
	case i < 0:
		return nil
	case i == len(quotaScopes)-1:
		limited = 1 // BestEffort: pods only
	default:
		limited = 7
	}
	for _, k := range sortedKeys(hard) {
		if isQuotaResource(k) && !slices.Contains([]string{"pods", "cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"}[:limited], k) {
			add(&errs, field.Invalid(p, value, "unsupported scope applied to resource"))
		}
	}
	return errs
}

// conflictingScopes refuses BestEffort with NotBestEffort, and Terminating
// with NotTerminating.
func conflictingScopes(scopes []string, p *field.Path, value any) field.ErrorList {
	var errs field.ErrorList
	for _, pair := range [][2]string{{"BestEffort", "NotBestEffort"}, {"Terminating", "NotTerminating"}} {
		if slices.Contains(scopes, pair[0]) && slices.Contains(scopes, pair[1]) {
			add(&errs, field.Invalid(p, value, "conflicting scopes"))
		}
	}
	return errs
}

// goStrings is a []string as %#v prints it.
type goStrings []string

func (s goStrings) String() string {
	if s == nil {
		return "[]string(nil)"
	}
	return fmt.Sprintf("%#v", []string(s))
}

// scopesValue is a quota's spec.scopes as kube's messages print them.
func scopesValue(spec fields) rawName {
	scopes := spec.strs("scopes")
	if scopes == nil {
		return "[]core.ResourceQuotaScope(nil)"
	}
	return rawName(strings.Replace(fmt.Sprintf("%#v", scopes), "[]string", "[]core.ResourceQuotaScope", 1))
}

// selectorValue is a quota's scopeSelector as kube's messages print it.
func selectorValue(sel fields) rawName {
	var b strings.Builder
	b.WriteString("core.ScopeSelector{MatchExpressions:")
	if !sel.has("matchExpressions") {
		b.WriteString("[]core.ScopedResourceSelectorRequirement(nil)}")
		return rawName(b.String())
	}
	b.WriteString("[]core.ScopedResourceSelectorRequirement{")
	for i, r := range sel.list("matchExpressions") {
		if i > 0 {
			b.WriteString(", ")
		}
		values := goStrings(r.strs("values"))
		fmt.Fprintf(&b, "core.ScopedResourceSelectorRequirement{ScopeName:%q, Operator:%q, Values:%s}", r.str("scopeName"), r.str("operator"), values)
	}
	b.WriteString("}}")
	return rawName(b.String())
}

// limitTypes are the kinds of limit a LimitRange sets.
var limitTypes = []string{"Pod", "Container", "PersistentVolumeClaim"}

// LimitRange checks a LimitRange's limits (ValidateLimitRange): known types,
// each once; resource names; Pod limits without defaults, claim limits
// with a storage bound; and, per resource, min ≤ default request ≤ default
// ≤ max, and a ratio of at least one that min and max allow.
func LimitRange(lr object.Object) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, limit := range fields(lr).obj("spec").list("limits") {
		p := field.NewPath("spec", "limits").Index(i)
		typ := limit.str("type")
		tp := p.Child("type")
		addInvalid(&errs, tp, typ, QualifiedName(typ))
		if len(QualifiedName(typ)) == 0 && !strings.Contains(typ, "/") && !slices.Contains(limitTypes, typ) {
			add(&errs, field.Invalid(tp, typ, "must be a standard limit type or fully qualified"))
		}
		if seen[typ] {
			add(&errs, field.Duplicate(tp, typ))
		}
		seen[typ] = true
		name := standardResourceName
		if typ == "Pod" || typ == "Container" {
			name = resourceName
		}
		lists := map[string]map[string]string{}
		for _, f := range []string{"max", "min", "default", "defaultRequest", "maxLimitRequestRatio"} {
			lists[f] = limit.strMap(f)
			switch {
			case (f == "default" || f == "defaultRequest") && typ == "Pod":
				if len(lists[f]) > 0 {
					add(&errs, field.Forbidden(p.Child(f), "may not be specified when `type` is 'Pod'"))
				}
				lists[f] = nil
				continue
			case f == "maxLimitRequestRatio" && typ == "PersistentVolumeClaim":
				if _, ok := lists["min"]["storage"]; !ok {
					if _, ok := lists["max"]["storage"]; !ok {
						add(&errs, field.Required(p.Child("limits"), "either minimum or maximum storage value is required, but neither was provided"))
					}
				}
			}
			for _, k := range sortedKeys(lists[f]) {
				add(&errs, name(k, p.Child(f).Key(k))...)
			}
		}
		add(&errs, limitBounds(lists, p)...)
	}
	return errs
}

// limitBounds checks how one limit's quantities of each resource compare.
func limitBounds(lists map[string]map[string]string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	keys := map[string]bool{}
	for _, l := range lists {
		for k := range l {
			keys[k] = true
		}
	}
	for _, k := range sortedKeys(keys) {
		min, hasMin := lists["min"][k]
		max, hasMax := lists["max"][k]
		def, hasDef := lists["default"][k]
		req, hasReq := lists["defaultRequest"][k]
		ratio, hasRatio := lists["maxLimitRequestRatio"][k]
		over := func(a, b string) bool { return quantity.Compare(a, b) > 0 }
		invalid := func(f, value, msg string) {
			add(&errs, field.Invalid(p.Child(f).Key(k), quantityValue(value), msg))
		}
		if hasMin && hasMax && over(min, max) {
			invalid("min", min, "min value "+min+" is greater than max value "+max)
		}
		if hasReq && hasMin && over(min, req) {
			invalid("defaultRequest", req, "min value "+min+" is greater than default request value "+req)
		}
		if hasReq && hasMax && over(req, max) {
			invalid("defaultRequest", req, "default request value "+req+" is greater than max value "+max)
		}
		if hasReq && hasDef && over(req, def) {
			invalid("defaultRequest", req, "default request value "+req+" is greater than default limit value "+def)
		}
		if hasDef && hasMin && over(min, def) {
			invalid("default", min, "min value "+min+" is greater than default value "+def)
		}
		if hasDef && hasMax && over(def, max) {
			invalid("default", max, "default value "+def+" is greater than max value "+max) // kube shows max
		}
		if hasRatio && over("1", ratio) {
			invalid("maxLimitRequestRatio", ratio, "ratio "+ratio+" is less than 1")
		}
		if hasRatio && hasMin && hasMax {
			r, lo, hi := float64(quantity.MilliValue(ratio))/1000, float64(quantity.MilliValue(min)), float64(quantity.MilliValue(max))
			if limit := hi / lo; r > limit {
				invalid("maxLimitRequestRatio", ratio, fmt.Sprintf("ratio %s is greater than max/min = %f", ratio, limit))
			}
		}
		if overcommit := native(k) && !strings.HasPrefix(k, "hugepages-"); !overcommit && hasDef && hasReq && quantity.Compare(def, req) != 0 {
			invalid("defaultRequest", req, "default value "+def+" must equal to defaultRequest value "+req+" in "+k)
		}
	}
	return errs
}

// native: a resource of kubernetes.io (unqualified, or in its domain).
func native(name string) bool {
	return !strings.Contains(name, "/") || strings.Contains(name, "kubernetes.io/")
}

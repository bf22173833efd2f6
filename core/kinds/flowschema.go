package kinds

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/field"
	"kubeplay/core/flowcontrol/bootstrap"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// flowSchema is flowcontrol.apiserver.k8s.io/v1 FlowSchema.
func flowSchema() *api.Resource {
	return &api.Resource{
		Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Kind: "FlowSchema",
		Plural: "flowschemas", Singular: "flowschema", Verbs: allVerbs, Generation: true,
		Subs:     []api.Subresource{{Name: "status", Kind: "FlowSchema", Group: "flowcontrol.apiserver.k8s.io", Verbs: statusVerbs}},
		Defaults: defaultFlowSchema,
		Hooks: api.Hooks{
			StatusOnly:          true, // its status strategy resets all the metadata
			LabelChecksOnUpdate: 3,
			AsWritten:           true,
			PrepareForCreate:    func(obj object.Object, _ time.Time) { obj["status"] = map[string]any{} },
			Validate:            validateFlowSchema,
			// An update is checked whole, as kube's ValidateFlowSchemaUpdate does; a
			// status write is the status subresource's.
			ValidateUpdate: notForStatus(validateFlowSchema),
		},
		Printer: table.FlowSchema,
	}
}

// A FlowSchema's rules, as k8s.io/kubernetes's pkg/apis/flowcontrol/{v1,validation}
// define them: v1's default, and kube's validation with its messages, in its
// order; the mandatory objects' specs are fixed (core/flowcontrol/bootstrap).

// defaultFlowSchema applies v1's default: matchingPrecedence 1000, to a spec
// kube's Go type always has.
func defaultFlowSchema(obj map[string]any) {
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		obj["spec"] = spec
	}
	if object.Int(spec["matchingPrecedence"]) == 0 {
		spec["matchingPrecedence"] = 1000
	}
}

// validateFlowSchema is kube's ValidateFlowSchema (the metadata is checked for every kind).
func validateFlowSchema(obj object.Object) field.ErrorList {
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

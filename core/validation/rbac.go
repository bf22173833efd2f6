package validation

import (
	"fmt"

	"kubeplay/core/field"
	"kubeplay/core/object"
)

// The rules of rbac.authorization.k8s.io/v1's Roles, ClusterRoles and their
// bindings, as k8s.io/kubernetes's pkg/apis/rbac/validation judges them (the
// metadata aside; their names need only be path segments).

const rbacGroup = "rbac.authorization.k8s.io"

// Role is ValidateRole's rules: namespaced ones.
func Role(role object.Object) field.ErrorList { return policyRules(role, true) }

// ClusterRole is ValidateClusterRole's rules and aggregation rule.
func ClusterRole(role object.Object) field.ErrorList {
	errs := policyRules(role, false)
	agg, ok := role["aggregationRule"].(map[string]any)
	if !ok {
		return errs
	}
	p := field.NewPath("aggregationRule", "clusterRoleSelectors")
	selectors := fields(agg).list("clusterRoleSelectors")
	if len(selectors) == 0 {
		add(&errs, field.Required(p, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
	}
	for i, sel := range selectors {
		errs = append(errs, selectorErrors(sel, p.Index(i))...)
	}
	return errs
}

func policyRules(role object.Object, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	for i, rule := range fields(role).list("rules") {
		p := field.NewPath("rules").Index(i)
		if len(rule.strs("verbs")) == 0 {
			add(&errs, field.Required(p.Child("verbs"), "verbs must contain at least one value"))
		}
		if urls := rule.strs("nonResourceURLs"); len(urls) > 0 {
			value := field.GoSyntax(fmt.Sprintf("%#v", urls))
			if namespaced {
				add(&errs, field.Invalid(p.Child("nonResourceURLs"), value, "namespaced rules cannot apply to non-resource URLs"))
			}
			if len(rule.strs("apiGroups")) > 0 || len(rule.strs("resources")) > 0 || len(rule.strs("resourceNames")) > 0 {
				add(&errs, field.Invalid(p.Child("nonResourceURLs"), value, "rules cannot apply to both regular resources and non-resource URLs"))
			}
			continue
		}
		if len(rule.strs("apiGroups")) == 0 {
			add(&errs, field.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
		}
		if len(rule.strs("resources")) == 0 {
			add(&errs, field.Required(p.Child("resources"), "resource rules must supply at least one resource"))
		}
	}
	return errs
}

// RoleBinding is ValidateRoleBinding's role reference and subjects.
func RoleBinding(b object.Object) field.ErrorList { return roleBinding(b, true) }

// ClusterRoleBinding is ValidateClusterRoleBinding's.
func ClusterRoleBinding(b object.Object) field.ErrorList { return roleBinding(b, false) }

// RoleBindingUpdate is a binding's rules on update: its role reference
// never changes.
func RoleBindingUpdate(b, old object.Object) field.ErrorList {
	errs := roleBinding(b, object.MetaString(b, "namespace") != "")
	ref, oldRef := fields(b).obj("roleRef"), fields(old).obj("roleRef")
	if ref.str("apiGroup") != oldRef.str("apiGroup") || ref.str("kind") != oldRef.str("kind") || ref.str("name") != oldRef.str("name") {
		add(&errs, field.Invalid(field.NewPath("roleRef"), field.GoSyntax(fmt.Sprintf("rbac.RoleRef{APIGroup:%q, Kind:%q, Name:%q}", ref.str("apiGroup"), ref.str("kind"), ref.str("name"))), "cannot change roleRef"))
	}
	return errs
}

func roleBinding(b object.Object, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	ref := fields(b).obj("roleRef")
	p := field.NewPath("roleRef")
	if g := ref.str("apiGroup"); g != rbacGroup {
		add(&errs, field.NotSupported(p.Child("apiGroup"), g, []string{rbacGroup}))
	}
	kinds := []string{"ClusterRole"}
	if namespaced {
		kinds = []string{"Role", "ClusterRole"}
	}
	if k := ref.str("kind"); k != "ClusterRole" && (!namespaced || k != "Role") {
		add(&errs, field.NotSupported(p.Child("kind"), k, kinds))
	}
	if name := ref.str("name"); name == "" {
		add(&errs, field.Required(p.Child("name"), ""))
	} else {
		addInvalid(&errs, p.Child("name"), name, PathSegmentName(name))
	}
	for i, s := range fields(b).list("subjects") {
		sp := field.NewPath("subjects").Index(i)
		name, group := s.str("name"), s.str("apiGroup")
		if name == "" {
			add(&errs, field.Required(sp.Child("name"), ""))
		}
		switch kind := s.str("kind"); kind {
		case "ServiceAccount":
			if name != "" {
				addInvalid(&errs, sp.Child("name"), name, DNS1123Subdomain(name))
			}
			if group != "" {
				add(&errs, field.NotSupported(sp.Child("apiGroup"), group, []string{""}))
			}
			if !namespaced && s.str("namespace") == "" {
				add(&errs, field.Required(sp.Child("namespace"), ""))
			}
		case "User", "Group":
			if group != rbacGroup {
				add(&errs, field.NotSupported(sp.Child("apiGroup"), group, []string{rbacGroup}))
			}
		default:
			add(&errs, field.NotSupported(sp.Child("kind"), kind, []string{"ServiceAccount", "User", "Group"}))
		}
	}
	return errs
}

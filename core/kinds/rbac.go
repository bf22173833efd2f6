package kinds

import (
	"strings"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// rbac.authorization.k8s.io/v1: Roles and ClusterRoles (rules), and the
// bindings that grant them to users, groups and service accounts. Who may
// do what is core/rbac's, from these objects; writing one that grants more
// than the writer holds is refused by core/registry (kube's escalation
// check). All four may be created by an update, as kube's strategies allow
// (`kubectl auth reconcile` relies on it), and their names need only be
// path segments.

const rbacGroup = "rbac.authorization.k8s.io"

func role() *api.Resource {
	return &api.Resource{
		Group: rbacGroup, Version: "v1", Kind: "Role", Plural: "roles", Singular: "role",
		Namespaced: true, Verbs: allVerbs, CreateOnUpdate: true, Names: api.PathSegment,
		Hooks: api.Hooks{Validate: validation.Role},
	}
}

func clusterRole() *api.Resource {
	return &api.Resource{
		Group: rbacGroup, Version: "v1", Kind: "ClusterRole", Plural: "clusterroles", Singular: "clusterrole",
		Verbs: allVerbs, CreateOnUpdate: true, Names: api.PathSegment,
		Hooks: api.Hooks{Validate: validation.ClusterRole},
	}
}

func roleBinding() *api.Resource {
	return &api.Resource{
		Group: rbacGroup, Version: "v1", Kind: "RoleBinding", Plural: "rolebindings", Singular: "rolebinding",
		Namespaced: true, Verbs: allVerbs, CreateOnUpdate: true, Names: api.PathSegment,
		Defaults: bindingDefaults,
		Hooks:    api.Hooks{Validate: validation.RoleBinding, ValidateUpdate: anySubresource(validation.RoleBindingUpdate)},
		Printer:  bindingPrinter,
	}
}

func clusterRoleBinding() *api.Resource {
	return &api.Resource{
		Group: rbacGroup, Version: "v1", Kind: "ClusterRoleBinding", Plural: "clusterrolebindings", Singular: "clusterrolebinding",
		Verbs: allVerbs, CreateOnUpdate: true, Names: api.PathSegment,
		Defaults: bindingDefaults,
		Hooks:    api.Hooks{Validate: validation.ClusterRoleBinding, ValidateUpdate: anySubresource(validation.RoleBindingUpdate)},
		Printer:  bindingPrinter,
	}
}

// bindingDefaults are SetDefaults_RoleBinding (and _ClusterRoleBinding) and
// SetDefaults_Subject: the role is RBAC's, and so are a user's and a group's
// API group.
func bindingDefaults(m map[string]any) {
	if ref, ok := m["roleRef"].(map[string]any); ok && object.String(ref["apiGroup"]) == "" {
		ref["apiGroup"] = rbacGroup
	}
	for _, s := range object.Objects(m, "subjects") {
		if object.String(s["apiGroup"]) != "" {
			continue
		}
		switch s["kind"] {
		case "User", "Group":
			s["apiGroup"] = rbacGroup
		case "ServiceAccount":
			s["apiGroup"] = ""
		}
	}
}

var bindingPrinter = table.NewPrinter([]table.Column{
	table.NameColumn,
	{Name: "Role", Type: "string", Description: "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error."},
	table.AgeColumn,
	{Name: "Users", Type: "string", Priority: 1, Description: "Users in the roleBinding"},
	{Name: "Groups", Type: "string", Priority: 1, Description: "Groups in the roleBinding"},
	{Name: "ServiceAccounts", Type: "string", Priority: 1, Description: "ServiceAccounts in the roleBinding"},
}, func(b object.Object, now time.Time) []any {
	ref, _ := b["roleRef"].(map[string]any)
	var users, groups, sas []string
	for _, s := range object.Objects(b, "subjects") {
		name := object.String(s["name"])
		switch s["kind"] {
		case "User":
			users = append(users, name)
		case "Group":
			groups = append(groups, name)
		case "ServiceAccount":
			sas = append(sas, object.String(s["namespace"])+"/"+name)
		}
	}
	return []any{table.Name(b), object.String(ref["kind"]) + "/" + object.String(ref["name"]), table.Age(b, now),
		strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(sas, ", ")}
})

// The reviews that ask the authorizer (core/auth answers them): may a
// user, in a namespace or anywhere, and which rules do I hold.
func subjectAccessReview() *api.Resource {
	return &api.Resource{
		Group: "authorization.k8s.io", Version: "v1", Kind: "SubjectAccessReview",
		Plural: "subjectaccessreviews", Singular: "subjectaccessreview", Verbs: createOnly, Virtual: true,
	}
}

func localSubjectAccessReview() *api.Resource {
	return &api.Resource{
		Group: "authorization.k8s.io", Version: "v1", Kind: "LocalSubjectAccessReview",
		Plural: "localsubjectaccessreviews", Singular: "localsubjectaccessreview", Namespaced: true, Verbs: createOnly, Virtual: true,
	}
}

func selfSubjectRulesReview() *api.Resource {
	return &api.Resource{
		Group: "authorization.k8s.io", Version: "v1", Kind: "SelfSubjectRulesReview",
		Plural: "selfsubjectrulesreviews", Singular: "selfsubjectrulesreview", Verbs: createOnly, Virtual: true,
	}
}

package rbac

import (
	"reflect"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	kubevalidation "k8s.io/component-helpers/auth/rbac/validation"

	"kubeplay/core/auth"
)

// TestCONF_1_RuleAllows: a rule matches verbs, groups, resources (a
// subresource as resource/sub or */sub, never by its resource alone), names
// and non-resource paths (a trailing * a prefix) as kube's RuleAllows does.
func TestCONF_1_RuleAllows(t *testing.T) {
	res := func(verb, group, resource, sub, name string) *auth.Attributes {
		return &auth.Attributes{Verb: verb, ResourceRequest: true, APIGroup: group, Resource: resource, Subresource: sub, Name: name}
	}
	path := func(verb, p string) *auth.Attributes { return &auth.Attributes{Verb: verb, Path: p} }
	for _, c := range []struct {
		rule Rule
		a    *auth.Attributes
		want bool
	}{
		{Rule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}, res("get", "", "pods", "", "x"), true},
		{Rule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}, res("list", "", "pods", "", ""), false},
		{Rule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}, res("get", "apps", "pods", "", ""), false},
		{Rule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}, res("get", "", "pods", "log", ""), false},
		{Rule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/log"}}, res("get", "", "pods", "log", ""), true},
		{Rule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/log"}}, res("get", "", "pods", "", ""), false},
		{Rule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"*/scale"}}, res("get", "apps", "deployments", "scale", ""), true},
		{Rule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"*/scale"}}, res("get", "apps", "deployments", "status", ""), false},
		{Rule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}, res("escalate", "rbac.authorization.k8s.io", "roles", "", ""), true},
		{Rule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}}, res("get", "", "configmaps", "", "a"), true},
		{Rule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}}, res("get", "", "configmaps", "", "b"), false},
		{Rule{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}}, res("list", "", "configmaps", "", ""), false},
		{Rule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz/*"}}, path("get", "/healthz/etcd"), true},
		{Rule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz/*"}}, path("get", "/healthz"), false},
		{Rule{Verbs: []string{"get"}, NonResourceURLs: []string{"*"}}, path("get", "/anything"), true},
		{Rule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"*"}}, path("get", "/api"), false},
	} {
		if got := c.rule.Allows(c.a); got != c.want {
			t.Errorf("%v allows %+v: %v, kube %v", c.rule, *c.a, got, c.want)
		}
	}
}

// FuzzCONF_1_CoversAsKube: whether rules cover others, and which broken-down
// rules they leave uncovered, are what k8s.io/component-helpers' Covers
// (kube's escalation check) says, for any rules.
func FuzzCONF_1_CoversAsKube(f *testing.F) {
	f.Add("get,list|,apps|pods,pods/log||", "get|||pods/log||")
	f.Add("*|*|*||", "delete|rbac.authorization.k8s.io|roles|x|")
	f.Add("get||*/scale||", "get|apps|deployments/scale||")
	f.Add("get||||/healthz/*", "get||||/healthz/etcd")
	f.Add("get|||a,b|", "get||configmaps|a|")
	f.Fuzz(func(t *testing.T, owner, servant string) {
		o, s := parseRules(owner), parseRules(servant)
		ok, missing := Covers(o, s)
		kok, kmissing := kubevalidation.Covers(toKube(o), toKube(s))
		if ok != kok || len(missing) != len(kmissing) {
			t.Fatalf("Covers(%v, %v) = %v %v, kube %v %v", o, s, ok, missing, kok, kmissing)
		}
		if got := toKube(missing); len(got) > 0 && !reflect.DeepEqual(got, kmissing) {
			t.Errorf("missing %v, kube %v", got, kmissing)
		}
	})
}

// parseRules reads rules written verbs|groups|resources|names|urls, each a
// comma list, rules separated by ';'.
func parseRules(s string) []Rule {
	var out []Rule
	for _, r := range strings.Split(s, ";") {
		f := strings.Split(r, "|")
		for len(f) < 5 {
			f = append(f, "")
		}
		list := func(v string) []string {
			if v == "" {
				return nil
			}
			return strings.Split(v, ",")
		}
		out = append(out, Rule{Verbs: list(f[0]), APIGroups: list(f[1]), Resources: list(f[2]), ResourceNames: list(f[3]), NonResourceURLs: list(f[4])})
	}
	return out
}

func toKube(rules []Rule) []rbacv1.PolicyRule {
	out := make([]rbacv1.PolicyRule, len(rules))
	for i, r := range rules {
		out[i] = rbacv1.PolicyRule{Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames, NonResourceURLs: r.NonResourceURLs}
	}
	return out
}

package rbac

import (
	"fmt"
	"sort"
	"strings"

	"kubeplay/core/auth"
	"kubeplay/core/object"
)

// Rule is a PolicyRule: verbs on resources of API groups (optionally only
// the named ones), or verbs on non-resource paths.
type Rule struct {
	Verbs, APIGroups, Resources, ResourceNames, NonResourceURLs []string
}

// RuleFrom reads a PolicyRule.
func RuleFrom(m map[string]any) Rule {
	return Rule{Verbs: object.Strings(m, "verbs"), APIGroups: object.Strings(m, "apiGroups"), Resources: object.Strings(m, "resources"),
		ResourceNames: object.Strings(m, "resourceNames"), NonResourceURLs: object.Strings(m, "nonResourceURLs")}
}

// RulesOf reads the rules of a Role or ClusterRole.
func RulesOf(role object.Object) []Rule {
	ms := object.Objects(role, "rules")
	rules := make([]Rule, len(ms))
	for i, m := range ms {
		rules[i] = RuleFrom(m)
	}
	return rules
}

// Object is r as a PolicyRule.
func (r Rule) Object() map[string]any {
	m := map[string]any{}
	for _, f := range []struct {
		name string
		v    []string
	}{{"verbs", r.Verbs}, {"apiGroups", r.APIGroups}, {"resources", r.Resources}, {"resourceNames", r.ResourceNames}, {"nonResourceURLs", r.NonResourceURLs}} {
		if f.v != nil {
			object.SetStrings(m, f.name, f.v)
		}
	}
	return m
}

// Allows says whether r allows the request a, as kube's RuleAllows: a
// resource rule matches the verb, the group, the resource (resource/sub for
// a subresource, or */sub) and the name; a non-resource rule the verb and
// the path (a trailing * matching any rest).
func (r *Rule) Allows(a *auth.Attributes) bool {
	if !matches(r.Verbs, "*", a.Verb) {
		return false
	}
	if !a.ResourceRequest {
		for _, u := range r.NonResourceURLs {
			if u == "*" || u == a.Path || (strings.HasSuffix(u, "*") && strings.HasPrefix(a.Path, strings.TrimRight(u, "*"))) {
				return true
			}
		}
		return false
	}
	if !matches(r.APIGroups, "*", a.APIGroup) || !r.matchesResource(a.Resource, a.Subresource) {
		return false
	}
	return len(r.ResourceNames) == 0 || matches(r.ResourceNames, "", a.Name)
}

func (r *Rule) matchesResource(resource, sub string) bool {
	for _, rr := range r.Resources {
		switch {
		case rr == "*":
			return true
		case sub == "":
			if rr == resource {
				return true
			}
		case len(rr) == len(resource)+1+len(sub) && strings.HasPrefix(rr, resource) && rr[len(resource)] == '/' && strings.HasSuffix(rr, sub):
			return true
		case rr == "*/"+sub:
			return true
		}
	}
	return false
}

// matches says whether set holds v, or all (when all is not empty).
func matches(set []string, all, v string) bool {
	for _, s := range set {
		if s == v || (all != "" && s == all) {
			return true
		}
	}
	return false
}

// String is the rule as kube's CompactString prints it in an escalation
// refusal: the fields set, in kube's order, each %q of its list.
func (r Rule) String() string {
	var parts []string
	for _, f := range []struct {
		name string
		v    []string
	}{{"APIGroups", r.APIGroups}, {"Resources", r.Resources}, {"NonResourceURLs", r.NonResourceURLs}, {"ResourceNames", r.ResourceNames}, {"Verbs", r.Verbs}} {
		if len(f.v) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", f.name, f.v))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// Covers says whether the owner's rules cover every one of rules, and which
// single rules they do not (kube's Covers): each rule broken down into one
// verb on one resource of one group (and one name), or one verb on one path.
func Covers(owner, rules []Rule) (bool, []Rule) {
	var missing []Rule
	for _, r := range rules {
		for _, sub := range breakdown(r) {
			covered := false
			for i := range owner {
				if owner[i].covers(sub) {
					covered = true
					break
				}
			}
			if !covered {
				missing = append(missing, sub)
			}
		}
	}
	return len(missing) == 0, missing
}

func breakdown(r Rule) []Rule {
	var out []Rule
	for _, g := range r.APIGroups {
		for _, res := range r.Resources {
			for _, v := range r.Verbs {
				if len(r.ResourceNames) == 0 {
					out = append(out, Rule{APIGroups: []string{g}, Resources: []string{res}, Verbs: []string{v}})
				}
				for _, n := range r.ResourceNames {
					out = append(out, Rule{APIGroups: []string{g}, Resources: []string{res}, Verbs: []string{v}, ResourceNames: []string{n}})
				}
			}
		}
	}
	for _, u := range r.NonResourceURLs {
		for _, v := range r.Verbs {
			out = append(out, Rule{NonResourceURLs: []string{u}, Verbs: []string{v}})
		}
	}
	return out
}

// covers is kube's ruleCovers of a broken-down rule.
func (r *Rule) covers(sub Rule) bool {
	if !(matches(r.Verbs, "*", "*") || hasAll(r.Verbs, sub.Verbs)) || !(matches(r.APIGroups, "*", "*") || hasAll(r.APIGroups, sub.APIGroups)) {
		return false
	}
	if !r.coversResources(sub.Resources) {
		return false
	}
	for _, p := range sub.NonResourceURLs {
		covered := false
		for _, u := range r.NonResourceURLs {
			if u == p || (strings.HasSuffix(u, "*") && strings.HasPrefix(p, strings.TrimRight(u, "*"))) {
				covered = true
				break
			}
		}
		if !covered {
			return false
		}
	}
	if len(sub.ResourceNames) == 0 {
		return len(r.ResourceNames) == 0
	}
	return len(r.ResourceNames) == 0 || hasAll(r.ResourceNames, sub.ResourceNames)
}

func (r *Rule) coversResources(want []string) bool {
	if matches(r.Resources, "*", "*") || hasAll(r.Resources, want) {
		return true
	}
	for _, p := range want {
		if matches(r.Resources, "", p) {
			continue
		}
		_, sub, ok := strings.Cut(p, "/")
		if !ok || !matches(r.Resources, "", "*/"+sub) {
			return false
		}
	}
	return true
}

func hasAll(set, want []string) bool {
	for _, w := range want {
		if !matches(set, "", w) {
			return false
		}
	}
	return true
}

// compact merges the verbs of single-resource rules (one group, one
// resource, at most one name), as kube's CompactRules does before it lists
// what an escalation lacks.
func compact(rules []Rule) []Rule {
	type simple struct {
		group, resource, name string
		named                 bool
	}
	var out []Rule
	merged := map[simple]int{}
	for _, r := range rules {
		if len(r.ResourceNames) > 1 || len(r.NonResourceURLs) > 0 || len(r.APIGroups) != 1 || len(r.Resources) != 1 {
			out = append(out, r)
			continue
		}
		k := simple{group: r.APIGroups[0], resource: r.Resources[0]}
		if len(r.ResourceNames) == 1 {
			k.name, k.named = r.ResourceNames[0], true
		}
		if i, ok := merged[k]; ok {
			out[i].Verbs = append(out[i].Verbs, r.Verbs...)
			continue
		}
		merged[k] = len(out)
		c := r
		c.Verbs = append([]string(nil), r.Verbs...)
		out = append(out, c)
	}
	return out
}

// describeMissing lists rules as an escalation refusal does: compacted,
// printed, sorted and without repeats.
func describeMissing(rules []Rule) string {
	seen := map[string]bool{}
	var lines []string
	for _, r := range compact(rules) {
		s := r.String()
		if !seen[s] {
			seen[s] = true
			lines = append(lines, s)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

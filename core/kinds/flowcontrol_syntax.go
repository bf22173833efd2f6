package kinds

import (
	"fmt"
	"strconv"
	"strings"

	"kubeplay/core/field"
	"kubeplay/core/object"
)

// A mandatory APF object whose spec differs from the fixed one is refused with
// the spec shown as Go prints kube's internal struct (%#v): the top level in
// full, pointers as addresses. kube's addresses are wherever its heap put them;
// these are made up, one per pointer, in order.

// goSyntax writes the internal types' %#v.
type goSyntax struct {
	b    strings.Builder
	next uint64 // the next made-up address
}

func (g *goSyntax) pointer(typ string, set bool) {
	if !set {
		fmt.Fprintf(&g.b, "(*%s)(nil)", typ)
		return
	}
	g.next += 0x10
	fmt.Fprintf(&g.b, "(*%s)(0x%x)", typ, g.next)
}

func (g *goSyntax) strings(list []string, set bool) {
	if !set {
		g.b.WriteString("[]string(nil)")
		return
	}
	g.b.WriteString(fmt.Sprintf("%#v", list))
}

// fields writes `typ{A:…, B:…}` with each value written by its function.
func (g *goSyntax) fields(typ string, names []string, write func(i int)) {
	g.b.WriteString(typ + "{")
	for i, n := range names {
		if i > 0 {
			g.b.WriteString(", ")
		}
		g.b.WriteString(n + ":")
		write(i)
	}
	g.b.WriteString("}")
}

func (g *goSyntax) list(elemType string, items []any, set bool, write func(map[string]any)) {
	if !set {
		fmt.Fprintf(&g.b, "[]%s(nil)", elemType)
		return
	}
	g.b.WriteString("[]" + elemType + "{")
	for i, it := range items {
		if i > 0 {
			g.b.WriteString(", ")
		}
		m, _ := it.(map[string]any)
		write(m)
	}
	g.b.WriteString("}")
}

func (g *goSyntax) str(m map[string]any, key string) {
	s, _ := m[key].(string)
	g.b.WriteString(strconv.Quote(s))
}

func (g *goSyntax) stringList(m map[string]any, key string) {
	_, set := m[key]
	g.strings(object.Strings(m, key), set)
}

// flowSchemaSpecSyntax is %#v of kube's flowcontrol.FlowSchemaSpec.
func flowSchemaSpecSyntax(spec map[string]any) field.GoSyntax {
	g := &goSyntax{next: 0xc000a1e000}
	g.fields("flowcontrol.FlowSchemaSpec", []string{"PriorityLevelConfiguration", "MatchingPrecedence", "DistinguisherMethod", "Rules"}, func(i int) {
		switch i {
		case 0:
			pl, _ := spec["priorityLevelConfiguration"].(map[string]any)
			g.fields("flowcontrol.PriorityLevelConfigurationReference", []string{"Name"}, func(int) { g.str(pl, "name") })
		case 1:
			g.b.WriteString(strconv.FormatInt(object.Int(spec["matchingPrecedence"]), 10))
		case 2:
			g.pointer("flowcontrol.FlowDistinguisherMethod", spec["distinguisherMethod"] != nil)
		case 3:
			rules, set := spec["rules"].([]any)
			g.list("flowcontrol.PolicyRulesWithSubjects", rules, set, g.policyRules)
		}
	})
	return field.GoSyntax(g.b.String())
}

func (g *goSyntax) policyRules(r map[string]any) {
	g.fields("flowcontrol.PolicyRulesWithSubjects", []string{"Subjects", "ResourceRules", "NonResourceRules"}, func(i int) {
		switch i {
		case 0:
			subjects, set := r["subjects"].([]any)
			g.list("flowcontrol.Subject", subjects, set, func(s map[string]any) {
				g.fields("flowcontrol.Subject", []string{"Kind", "User", "Group", "ServiceAccount"}, func(j int) {
					switch j {
					case 0:
						g.str(s, "kind")
					case 1:
						g.pointer("flowcontrol.UserSubject", s["user"] != nil)
					case 2:
						g.pointer("flowcontrol.GroupSubject", s["group"] != nil)
					case 3:
						g.pointer("flowcontrol.ServiceAccountSubject", s["serviceAccount"] != nil)
					}
				})
			})
		case 1:
			rules, set := r["resourceRules"].([]any)
			g.list("flowcontrol.ResourcePolicyRule", rules, set, func(rr map[string]any) {
				g.fields("flowcontrol.ResourcePolicyRule", []string{"Verbs", "APIGroups", "Resources", "ClusterScope", "Namespaces"}, func(j int) {
					switch j {
					case 3:
						cs, _ := rr["clusterScope"].(bool)
						g.b.WriteString(strconv.FormatBool(cs))
					default:
						g.stringList(rr, []string{"verbs", "apiGroups", "resources", "", "namespaces"}[j])
					}
				})
			})
		case 2:
			rules, set := r["nonResourceRules"].([]any)
			g.list("flowcontrol.NonResourcePolicyRule", rules, set, func(nr map[string]any) {
				g.fields("flowcontrol.NonResourcePolicyRule", []string{"Verbs", "NonResourceURLs"}, func(j int) {
					g.stringList(nr, []string{"verbs", "nonResourceURLs"}[j])
				})
			})
		}
	})
}

// priorityLevelSpecSyntax is %#v of kube's flowcontrol.PriorityLevelConfigurationSpec.
func priorityLevelSpecSyntax(spec map[string]any) field.GoSyntax {
	g := &goSyntax{next: 0xc000a1e000}
	g.fields("flowcontrol.PriorityLevelConfigurationSpec", []string{"Type", "Limited", "Exempt"}, func(i int) {
		switch i {
		case 0:
			g.str(spec, "type")
		case 1:
			g.pointer("flowcontrol.LimitedPriorityLevelConfiguration", spec["limited"] != nil)
		case 2:
			g.pointer("flowcontrol.ExemptPriorityLevelConfiguration", spec["exempt"] != nil)
		}
	})
	return field.GoSyntax(g.b.String())
}

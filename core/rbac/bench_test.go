package rbac

import (
	"testing"
	"time"

	"kubeplay/core/auth"
	"kubeplay/core/object"
	"kubeplay/core/user"
)

// BenchmarkCONF_1_PolicyAuthorize: one decision over the bootstrap policy
// and a RoleBinding of alice's, against a floor measured in the same run:
// matching the one rule that allows it (x-rule-floor).
func BenchmarkCONF_1_PolicyAuthorize(b *testing.B) {
	var crs, crbs, rs, rbs []object.Object
	for _, o := range Bootstrap() {
		switch o["kind"] {
		case "ClusterRole":
			crs = append(crs, o)
		case "ClusterRoleBinding":
			crbs = append(crbs, o)
		case "Role":
			rs = append(rs, o)
		case "RoleBinding":
			rbs = append(rbs, o)
		}
	}
	rs = append(rs, object.Object{"metadata": map[string]any{"name": "cm", "namespace": "default"},
		"rules": []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps"}, "verbs": []any{"get", "create"}}}})
	rbs = append(rbs, object.Object{"metadata": map[string]any{"name": "alice-cm", "namespace": "default"},
		"roleRef": map[string]any{"kind": "Role", "name": "cm"}, "subjects": []any{map[string]any{"kind": "User", "name": "alice"}}})
	p := NewPolicy(crs, rs, crbs, rbs)
	a := &auth.Attributes{User: user.User{Name: "alice", Groups: []string{"devs", user.AllAuthenticated}}, Verb: "get", ResourceRequest: true,
		APIVersion: "v1", Namespace: "default", Resource: "configmaps", Name: "x"}
	rule := RulesOf(rs[len(rs)-1])[0]
	// Each half is timed over all b.N calls at once: a clock read costs as
	// much as the floor itself.
	start := time.Now()
	for range b.N {
		if !rule.Allows(a) {
			b.Fatal("the rule does not allow")
		}
	}
	floor := time.Since(start)
	start = time.Now()
	for range b.N {
		if ok, _ := p.Authorize(a); !ok {
			b.Fatal("not allowed")
		}
	}
	full := time.Since(start)
	b.ReportMetric(float64(full.Nanoseconds())/float64(b.N), "authorize-ns")
	b.ReportMetric(float64(full)/float64(max(floor, 1)), "x-rule-floor")
}

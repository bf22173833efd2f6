package rbac

import (
	"testing"

	"kubeplay/core/object"
)

// TestCONF_1_AggregationSettles: the bootstrap policy's aggregated roles
// settle in one pass, each written once: view gathers
// system:aggregate-to-view's rules, edit view's and its own, admin edit's and
// its own, each rule once.
func TestCONF_1_AggregationSettles(t *testing.T) {
	var roles []object.Object
	byName := map[string]object.Object{}
	for _, o := range Bootstrap() {
		if o["kind"] == "ClusterRole" {
			roles = append(roles, o)
			byName[object.MetaString(o, "name")] = o
		}
	}
	changed := map[string][]any{}
	for _, r := range settle(roles) {
		changed[object.MetaString(r, "name")] = r["rules"].([]any)
	}
	if len(changed) != 3 || changed["view"] == nil || changed["edit"] == nil || changed["admin"] == nil {
		t.Fatalf("changed %v", keys(changed))
	}
	if n, want := len(changed["view"]), len(object.Objects(byName["system:aggregate-to-view"], "rules")); n != want {
		t.Errorf("view has %d rules, system:aggregate-to-view %d", n, want)
	}
	for _, pair := range [][2]string{{"view", "edit"}, {"edit", "admin"}} {
		for _, r := range changed[pair[0]] {
			if !containsRule(changed[pair[1]], r.(map[string]any)) {
				t.Errorf("%s lacks %s's rule %v", pair[1], pair[0], r)
			}
		}
	}
	// The informer's objects are not changed.
	if byName["admin"]["rules"] != nil {
		t.Errorf("settle wrote into its input")
	}
	// Settled, nothing changes again.
	for _, r := range roles {
		if rules, ok := changed[object.MetaString(r, "name")]; ok {
			r["rules"] = rules
		}
	}
	if again := settle(roles); len(again) != 0 {
		t.Errorf("settled roles change again: %d", len(again))
	}
}

func keys(m map[string][]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

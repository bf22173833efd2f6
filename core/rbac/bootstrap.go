package rbac

import (
	_ "embed"
	"encoding/json"
	"sort"

	"kubeplay/core/object"
	"kubeplay/core/selector"
)

// bootstrapJSON is the policy kube-apiserver 1.32.13 creates when it starts
// (its ClusterRoles, ClusterRoleBindings, and the Roles and RoleBindings of
// kube-system and kube-public), recorded from it by TestRecordKubeBootstrap:
// each object's kind, name, namespace, labels, annotations, rules,
// aggregation rule, role reference and subjects.
//
//go:embed bootstrap.json
var bootstrapJSON []byte

// ClusterAdminsGroup is kubeadm's group of cluster administrators: the
// sandbox's own user, kubernetes-admin, is in it, and kubeadm's binding of
// it to cluster-admin is part of the bootstrap policy, as on a kubeadm or
// kind cluster.
const ClusterAdminsGroup = "kubeadm:cluster-admins"

// Bootstrap is the bootstrap policy, each object fresh (kind set, apiVersion
// rbac.authorization.k8s.io/v1), with kubeadm's binding of its cluster
// administrators.
func Bootstrap() []object.Object {
	var objs []object.Object
	if err := json.Unmarshal(bootstrapJSON, &objs); err != nil {
		panic("rbac: bootstrap.json: " + err.Error())
	}
	objs = append(objs, object.Object{"kind": "ClusterRoleBinding", "metadata": map[string]any{"name": ClusterAdminsGroup},
		"roleRef":  map[string]any{"apiGroup": Group, "kind": "ClusterRole", "name": "cluster-admin"},
		"subjects": []any{map[string]any{"apiGroup": Group, "kind": "Group", "name": ClusterAdminsGroup}}})
	for _, o := range objs {
		o["apiVersion"] = Group + "/v1"
	}
	return objs
}

// Group is RBAC's API group.
const Group = "rbac.authorization.k8s.io"

// Aggregate is the rules an aggregated ClusterRole gathers, as kube's
// clusterrole aggregation controller computes them: for each of its
// selectors in order, the rules of the other ClusterRoles it selects, by
// name, each rule once. ok is false when role aggregates nothing.
func Aggregate(role object.Object, clusterRoles []object.Object) (rules []any, ok bool) {
	agg, _ := role["aggregationRule"].(map[string]any)
	if agg == nil {
		return nil, false
	}
	byName := append([]object.Object(nil), clusterRoles...)
	sort.Slice(byName, func(i, j int) bool {
		return object.MetaString(byName[i], "name") < object.MetaString(byName[j], "name")
	})
	name := object.MetaString(role, "name")
	rules = []any{}
	for _, sel := range object.Objects(agg, "clusterRoleSelectors") {
		s, ok := selector.FormatLabelSelector(sel)
		if !ok {
			continue
		}
		labels, err := selector.ParseLabels(s)
		if err != nil {
			continue
		}
		for _, cr := range byName {
			if object.MetaString(cr, "name") == name || !labels.Matches(object.Labels(cr)) {
				continue
			}
			for _, r := range object.Objects(cr, "rules") {
				if !containsRule(rules, r) {
					rules = append(rules, r)
				}
			}
		}
	}
	return rules, true
}

func containsRule(rules []any, r map[string]any) bool {
	for _, have := range rules {
		if object.Equal(have, r) {
			return true
		}
	}
	return false
}

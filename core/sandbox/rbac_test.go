package sandbox

import (
	"testing"

	"kubeplay/core/auth"
	"kubeplay/core/object"
)

// TestCONF_1_TokenlessIsTheSandboxUser: where the host says so (the native
// command's loopback listener, the browser), a request without a token is
// kubernetes-admin, a cluster-admin by kubeadm's binding; elsewhere it is
// system:anonymous, whom kube's bootstrap policy lets read only its public
// paths.
func TestCONF_1_TokenlessIsTheSandboxUser(t *testing.T) {
	admin := auth.Admin()
	owned := newEnv(t, Config{Tokenless: &admin})
	r := owned.do("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}, anonymous)
	if r.Code != 201 || object.Path(r.Obj, "status", "userInfo", "username") != "kubernetes-admin" {
		t.Fatalf("whoami without a token: %d %s", r.Code, r.Body)
	}
	if r := owned.do("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", map[string]any{"metadata": map[string]any{"name": "all-admins"},
		"roleRef": map[string]any{"kind": "ClusterRole", "name": "cluster-admin"}, "subjects": []any{map[string]any{"kind": "Group", "name": "admins"}}}, anonymous); r.Code != 201 {
		t.Errorf("kubernetes-admin binds cluster-admin: %d %s", r.Code, r.Body)
	}

	public := newEnv(t, Config{})
	if r := public.do("GET", "/api", nil, anonymous); r.Code != 403 || r.Obj["message"] != `forbidden: User "system:anonymous" cannot get path "/api"` {
		t.Errorf("anonymous /api: %d %s", r.Code, r.Body)
	}
	for _, p := range []string{"/healthz", "/livez", "/readyz", "/version"} {
		if r := public.do("GET", p, nil, anonymous); r.Code != 200 {
			t.Errorf("anonymous %s: %d %s", p, r.Code, r.Body)
		}
	}
}

// TestCONF_1_AggregatedClusterRoles: admin, edit and view gather the rules
// of the ClusterRoles labelled to aggregate into them (view's into edit's,
// edit's into admin's), and follow a labelled role as it comes and goes, as
// kube's clusterrole aggregation controller keeps them. (API-only: the
// simulated cluster's metrics-server adds its readers' role to view.)
func TestCONF_1_AggregatedClusterRoles(t *testing.T) {
	e := newEnv(t, Config{APIOnly: true})
	const roles = "/apis/rbac.authorization.k8s.io/v1/clusterroles/"
	rules := func(name string) []any {
		r := e.do("GET", roles+name, nil, admin)
		l, _ := r.Obj["rules"].([]any)
		return l
	}
	e.eventually("view, edit and admin aggregated", func() bool {
		return len(rules("view")) > 0 && len(rules("edit")) > len(rules("view")) && len(rules("admin")) > len(rules("edit"))
	})
	own := func(name string) int { return len(rules(name)) }
	if got, want := own("view"), len(rules("system:aggregate-to-view")); got != want {
		t.Errorf("view has %d rules, system:aggregate-to-view %d", got, want)
	}
	applied := false
	for _, f := range object.Objects(object.Meta(e.do("GET", roles+"view", nil, admin).Obj), "managedFields") {
		applied = applied || f["manager"] == "clusterrole-aggregation-controller" && f["operation"] == "Apply"
	}
	if !applied {
		t.Error("view's rules were not applied by clusterrole-aggregation-controller")
	}
	crontabs := map[string]any{"metadata": map[string]any{"name": "crontab-reader", "labels": map[string]any{"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
		"rules": []any{map[string]any{"apiGroups": []any{"stable.example.com"}, "resources": []any{"crontabs"}, "verbs": []any{"get", "list"}}}}
	before := own("view")
	if r := e.do("POST", roles, crontabs, admin); r.Code != 201 {
		t.Fatalf("create: %d %s", r.Code, r.Body)
	}
	e.eventually("view has the crontab rule", func() bool { return own("view") == before+1 && own("admin") > 0 })
	// Alice, bound to view in a namespace, now reads crontabs there.
	if r := e.do("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", map[string]any{"metadata": map[string]any{"name": "alice-views"},
		"roleRef": map[string]any{"kind": "ClusterRole", "name": "view"}, "subjects": []any{map[string]any{"kind": "User", "name": "alice"}}}, admin); r.Code != 201 {
		t.Fatalf("bind: %d %s", r.Code, r.Body)
	}
	canI := func(verb, resource, group string) bool {
		r := e.doH("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", map[string]any{"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
			"spec": map[string]any{"resourceAttributes": map[string]any{"namespace": "default", "verb": verb, "resource": resource, "group": group}}}, impersonating("alice"))
		return object.Path(r.Obj, "status", "allowed") == true
	}
	if !canI("list", "crontabs", "stable.example.com") || !canI("get", "pods", "") || canI("delete", "pods", "") || canI("get", "secrets", "") {
		t.Errorf("view: crontabs %v, pods %v, delete pods %v, secrets %v", canI("list", "crontabs", "stable.example.com"), canI("get", "pods", ""), canI("delete", "pods", ""), canI("get", "secrets", ""))
	}
	cur := e.do("GET", roles+"crontab-reader", nil, admin).Obj
	delete(object.Meta(cur), "labels")
	if r := e.do("PUT", roles+"crontab-reader", cur, admin); r.Code != 200 {
		t.Fatalf("unlabel: %d %s", r.Code, r.Body)
	}
	e.eventually("view without the crontab rule", func() bool { return own("view") == before })
}

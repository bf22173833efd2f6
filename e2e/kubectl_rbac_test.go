package e2e

import (
	"net/http/httptest"
	"strings"
	"testing"

	"kubeplay/core/auth"
	"kubeplay/core/sandbox"
)

// newRBACKubectl is kubectl against an API-only sandbox under RBAC, over
// plain HTTP as the native command's loopback listener serves it: kubectl
// sends no token, so it is kubernetes-admin (a cluster-admin), and --as
// impersonates others.
func newRBACKubectl(t *testing.T) *kcEnv {
	t.Helper()
	admin := auth.Admin()
	sb, err := sandbox.New(sandbox.Config{APIOnly: true, Tokenless: &admin})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sb)
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		sb.Close()
	})
	return &kcEnv{t: t, bin: kcBinary(t), kubeconfig: writeKubeconfig(t, hs.URL), home: t.TempDir(), rec: &kcRecorder{}}
}

// TestCONF_1_KubectlRBAC is an RBAC lesson with kubectl 1.32: whoami, a
// Role and a RoleBinding made by `kubectl create`, `auth can-i` as alice
// before and after (yes/no and kube's 403 on a real request), `can-i
// --list`, the bootstrap ClusterRoles, a binding's wide columns, `auth
// reconcile` of a manifest, and the escalation kube refuses.
func TestCONF_1_KubectlRBAC(t *testing.T) {
	k := newRBACKubectl(t)
	if out := k.must("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"); out != "kubernetes-admin" {
		t.Errorf("whoami: %q", out)
	}
	k.must("create", "namespace", "team")
	canI := func(args ...string) string {
		out, _, _ := k.run("", append([]string{"auth", "can-i"}, args...)...)
		return strings.TrimSpace(out)
	}
	if got := canI("list", "pods", "-n", "team", "--as", "alice"); got != "no" {
		t.Errorf("can-i before: %q", got)
	}
	errOut := k.fails("get", "pods", "-n", "team", "--as", "alice")
	if !strings.Contains(errOut, `Error from server (Forbidden): pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "team"`) {
		t.Errorf("forbidden: %s", errOut)
	}
	k.must("create", "role", "pod-reader", "-n", "team", "--verb=get,list,watch", "--resource=pods,pods/log")
	k.must("create", "rolebinding", "read-pods", "-n", "team", "--role=pod-reader", "--user=alice", "--group=devs", "--serviceaccount=team:builder")
	if got := canI("list", "pods", "-n", "team", "--as", "alice"); got != "yes" {
		t.Errorf("can-i after: %q", got)
	}
	if got := canI("get", "pods", "--subresource=log", "-n", "team", "--as", "bob", "--as-group", "devs"); got != "yes" {
		t.Errorf("can-i logs as a member of devs: %q", got)
	}
	if got := canI("list", "pods", "-n", "team", "--as", "system:serviceaccount:team:builder"); got != "yes" {
		t.Errorf("can-i as the service account: %q", got)
	}
	if got := canI("delete", "pods", "-n", "team", "--as", "alice"); got != "no" {
		t.Errorf("can-i delete: %q", got)
	}
	k.must("get", "pods", "-n", "team", "--as", "alice")
	list := k.must("auth", "can-i", "--list", "-n", "team", "--as", "alice")
	if !strings.Contains(list, "pods/log") || !strings.Contains(list, "selfsubjectaccessreviews.authorization.k8s.io") {
		t.Errorf("can-i --list:\n%s", list)
	}
	wantRows(t, "get rolebinding -o wide", kcTable(k.must("get", "rolebinding", "read-pods", "-n", "team", "-o", "wide")), [][]string{
		{"NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"},
		{"read-pods", "Role/pod-reader", `\d+s`, "alice", "devs", "team/builder"},
	})
	roles := k.must("get", "clusterroles", "-o", "name")
	for _, r := range []string{"clusterrole.rbac.authorization.k8s.io/cluster-admin", "clusterrole.rbac.authorization.k8s.io/view", "clusterrole.rbac.authorization.k8s.io/system:controller:deployment-controller"} {
		if !strings.Contains(roles, r+"\n") {
			t.Errorf("get clusterroles lacks %s", r)
		}
	}
	manifest := k.file("rbac.yaml", `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: config-reader, namespace: team}
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [get, list]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: read-config, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: config-reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: carol}
`)
	out := k.must("auth", "reconcile", "-f", manifest)
	if !strings.Contains(out, "role.rbac.authorization.k8s.io/config-reader reconciled") || !strings.Contains(out, "rolebinding.rbac.authorization.k8s.io/read-config reconciled") {
		t.Errorf("reconcile: %s", out)
	}
	if got := canI("list", "configmaps", "-n", "team", "--as", "carol"); got != "yes" {
		t.Errorf("can-i after reconcile: %q", got)
	}
	// Alice may create roles in team now, but not grant what she lacks.
	k.must("create", "role", "role-maker", "-n", "team", "--verb=create", "--resource=roles.rbac.authorization.k8s.io")
	k.must("create", "rolebinding", "alice-makes-roles", "-n", "team", "--role=role-maker", "--user=alice")
	errOut = k.fails("create", "role", "secret-reader", "-n", "team", "--verb=get", "--resource=secrets", "--as", "alice")
	if !strings.Contains(errOut, `is attempting to grant RBAC permissions not currently held:`) || !strings.Contains(errOut, `{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`) {
		t.Errorf("escalation: %s", errOut)
	}
	k.must("create", "role", "pod-getter", "-n", "team", "--verb=get", "--resource=pods", "--as", "alice")

	// A service account's token, and who it is from.
	k.must("create", "serviceaccount", "builder", "-n", "team")
	token := strings.TrimSpace(k.must("create", "token", "builder", "-n", "team", "--duration=20m"))
	if strings.Count(token, ".") != 2 {
		t.Fatalf("create token: %q", token)
	}
	review := k.file("review.yaml", "apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec:\n  token: "+token+"\n")
	if who := k.must("create", "-f", review, "-o", "jsonpath={.status.authenticated} {.status.user.username}"); who != "true system:serviceaccount:team:builder" {
		t.Errorf("token review: %q", who)
	}
	if errOut := k.fails("create", "token", "builder", "-n", "team", "--duration=1m"); !strings.Contains(errOut, "may not specify a duration less than 10 minutes") {
		t.Errorf("a one-minute token: %s", errOut)
	}
}

package sandbox

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"kubeplay/core/auth"
	"kubeplay/core/object"
)

// TestAPF_12_Identities: bearer tokens from the table, system:anonymous without
// one, kube's 401 for a token it does not know, impersonation of users, groups
// and service accounts (with their groups), and kube's plain-text answer to
// impersonation without a user, each as kube-apiserver 1.32.13 answered it
// (recorded under kube's AlwaysAllow authorizer, which allows every
// impersonation and every user's request); whoami tells (APF-12).
func TestAPF_12_Identities(t *testing.T) {
	tokens, err := auth.ParseTokens("tokens.csv", strings.NewReader(auth.DefaultTokens+"t-alice,alice,uid-1,\"devs,qa\"\n,empty,x\nt-bob,bob,uid-2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := auth.ParseTokens("bad.csv", strings.NewReader("only,two\n")); err == nil ||
		err.Error() != "token file 'bad.csv' must have at least 3 columns (token, user name, user uid), found 2" {
		t.Errorf("short line: %v", err)
	}
	e := newEnv(t, Config{Tokens: tokens, Authorization: auth.ModeAlwaysAllow})
	whoami := func(h http.Header) map[string]any {
		t.Helper()
		r := e.doH("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}, h)
		if r.Code != 201 || r.Obj["kind"] != "SelfSubjectReview" || object.MetaString(r.Obj, "creationTimestamp") == "" {
			t.Fatalf("whoami: %d %s", r.Code, r.Body)
		}
		info, _ := object.Path(r.Obj, "status", "userInfo").(map[string]any)
		return info
	}
	check := func(what string, got map[string]any, name, uid string, groups ...string) {
		t.Helper()
		if got["username"] != name || str(got["uid"]) != uid || !slices.Equal(object.Strings(got, "groups"), groups) {
			t.Errorf("%s: %v", what, got)
		}
	}
	check("token", whoami(http.Header{"Authorization": {"Bearer t-alice"}}), "alice", "uid-1", "devs", "qa", "system:authenticated")
	check("scheme in any case", whoami(http.Header{"Authorization": {"bEaReR t-bob"}}), "bob", "uid-2", "system:authenticated")
	check("no token", whoami(http.Header{}), "system:anonymous", "", "system:unauthenticated")
	check("not a bearer token", whoami(http.Header{"Authorization": {"Basic YTpi"}}), "system:anonymous", "", "system:unauthenticated")
	check("impersonated user", whoami(http.Header{"Authorization": {"Bearer t-bob"}, "Impersonate-User": {"carol"}, "Impersonate-Group": {"ops", "devs"}}),
		"carol", "", "ops", "devs", "system:authenticated")
	check("impersonated service account", whoami(http.Header{"Impersonate-User": {"system:serviceaccount:team-a:builder"}}),
		"system:serviceaccount:team-a:builder", "", "system:serviceaccounts", "system:serviceaccounts:team-a", "system:authenticated")
	check("impersonated anonymous", whoami(http.Header{"Impersonate-User": {"system:anonymous"}}), "system:anonymous", "", "system:unauthenticated")
	check("uid", whoami(http.Header{"Impersonate-User": {"dave"}, "Impersonate-Uid": {"u-9"}, "Impersonate-Group": {"system:unauthenticated"}}),
		"dave", "u-9", "system:unauthenticated")
	extra := whoami(http.Header{"Impersonate-User": {"erin"}, "Impersonate-Extra-Scopes": {"view", "edit"}})
	if ex, _ := extra["extra"].(map[string]any); !slices.Equal(object.Strings(ex, "scopes"), []string{"view", "edit"}) {
		t.Errorf("extra: %v", extra)
	}

	// Recorded from kube-apiserver 1.32.13.
	r := e.do("GET", "/api/v1/namespaces", nil, as{"Authorization": "Bearer wrong"})
	if r.Code != 401 || string(r.Body) != `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`+"\n" {
		t.Errorf("unknown token: %d %s", r.Code, r.Body)
	}
	for _, c := range []struct {
		h    http.Header
		want string
	}{
		{http.Header{"Impersonate-Group": {"devs"}}, `Internal Server Error: "/api/v1/namespaces": requested [{Group  devs    }] without impersonating a user`},
		{http.Header{"Impersonate-Uid": {"123"}}, `Internal Server Error: "/api/v1/namespaces": requested [{UID  123  authentication.k8s.io/v1  }] without impersonating a user`},
	} {
		r := e.doH("GET", "/api/v1/namespaces", nil, c.h)
		if r.Code != 500 || string(r.Body) != c.want+"\n" || r.Header.Get("Content-Type") != "text/plain; charset=utf-8" || r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%v: %d %q", c.h, r.Code, r.Body)
		}
	}
	// The token is the server's to read: no handler after authentication sees it.
	if r := e.do("GET", "/api/v1/namespaces", nil, as{"Authorization": "Bearer t-alice"}); r.Code != 200 {
		t.Errorf("alice: %d", r.Code)
	}
}

// TestAPF_12_AccessReview: can-i answers by the sandbox's authorizer: under
// RBAC alice, bound to nothing, may not list pods and kubernetes-admin may
// (by kubeadm's binding); under AlwaysAllow everyone may. An empty review is
// refused with kube's message (recorded).
func TestAPF_12_AccessReview(t *testing.T) {
	e := newEnv(t, Config{})
	listPods := map[string]any{"resourceAttributes": map[string]any{"verb": "list", "resource": "pods", "namespace": "default"}}
	reviewAs := func(e *env, h http.Header, spec map[string]any) resp {
		return e.doH("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
			map[string]any{"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "spec": spec}, h)
	}
	review := func(spec map[string]any) resp { return reviewAs(e, impersonating("alice"), spec) }
	r := review(listPods)
	if r.Code != 201 || object.Path(r.Obj, "status", "allowed") != false || object.Path(r.Obj, "metadata", "creationTimestamp") != nil {
		t.Errorf("alice's review: %d %s", r.Code, r.Body)
	}
	r = reviewAs(e, http.Header{"Authorization": {"Bearer kubeplay"}}, listPods)
	if r.Code != 201 || object.Path(r.Obj, "status", "allowed") != true ||
		object.Path(r.Obj, "status", "reason") != `RBAC: allowed by ClusterRoleBinding "kubeadm:cluster-admins" of ClusterRole "cluster-admin" to Group "kubeadm:cluster-admins"` {
		t.Errorf("kubernetes-admin's review: %d %s", r.Code, r.Body)
	}
	open := newEnv(t, Config{Authorization: auth.ModeAlwaysAllow})
	if r := reviewAs(open, impersonating("alice"), listPods); r.Code != 201 || object.Path(r.Obj, "status", "allowed") != true {
		t.Errorf("alice's review under AlwaysAllow: %d %s", r.Code, r.Body)
	}
	r = review(map[string]any{})
	if r.Code != 422 || r.Obj["message"] != `.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified` {
		t.Errorf("empty review: %d %s", r.Code, r.Body)
	}
	if r := e.do("GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", nil, admin); r.Code != 405 {
		t.Errorf("list reviews: %d", r.Code)
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"kubeplay/core/object"
)

// TestCONF_1_ServiceAccountTokens: `kubectl create token` (a TokenRequest)
// gives a JWT the sandbox signs, naming the account as kube's do; the token
// authenticates its requests as the service account (which RBAC then
// judges), until the account (or the Pod it is bound to) is gone, and only
// for its audiences; a TokenReview says who it is from; kube's refusals
// (recorded from kube-apiserver 1.32.13) for a short lifetime, a missing
// account and a review without a token.
func TestCONF_1_ServiceAccountTokens(t *testing.T) {
	e := newEnv(t, Config{})
	const sas = "/api/v1/namespaces/default/serviceaccounts"
	sa := e.do("POST", sas, map[string]any{"metadata": map[string]any{"name": "builder"}}, superAdmin)
	if sa.Code != 201 {
		t.Fatalf("create sa: %d %s", sa.Code, sa.Body)
	}
	request := func(name string, spec map[string]any) resp {
		return e.do("POST", sas+"/"+name+"/token", map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec}, superAdmin)
	}
	r := request("builder", map[string]any{})
	if r.Code != 201 || r.Obj["kind"] != "TokenRequest" || object.Path(r.Obj, "spec", "expirationSeconds") != json.Number("3600") ||
		!slices.Equal(object.Strings(object.Child(r.Obj, "spec"), "audiences"), []string{"https://kubernetes.default.svc.cluster.local"}) ||
		object.MetaString(r.Obj, "name") != "builder" || object.Path(r.Obj, "status", "expirationTimestamp") == nil {
		t.Fatalf("token request: %d %s", r.Code, r.Body)
	}
	token := object.String(object.Path(r.Obj, "status", "token"))
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q", token)
	}
	part := func(i int) map[string]any {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		m, err := object.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if h := part(0); h["alg"] != "ES256" || object.String(h["kid"]) == "" {
		t.Errorf("header %v", h)
	}
	claims := part(1)
	if claims["iss"] != "https://kubernetes.default.svc.cluster.local" || claims["sub"] != "system:serviceaccount:default:builder" ||
		object.Path(claims, "kubernetes.io", "serviceaccount", "uid") != object.MetaString(sa.Obj, "uid") ||
		object.Int(claims["exp"])-object.Int(claims["iat"]) != 3600 || object.String(claims["jti"]) == "" {
		t.Errorf("claims %v", claims)
	}
	bearer := as{"Authorization": "Bearer " + token}
	r = e.do("GET", "/api/v1/namespaces/default/pods", nil, bearer)
	if r.Code != 403 || r.Obj["message"] != `pods is forbidden: User "system:serviceaccount:default:builder" cannot list resource "pods" in API group "" in the namespace "default"` {
		t.Errorf("the account, bound to nothing: %d %s", r.Code, r.Body)
	}
	if r := e.do("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", map[string]any{"metadata": map[string]any{"name": "builder-edits"},
		"roleRef": map[string]any{"kind": "ClusterRole", "name": "edit"}, "subjects": []any{map[string]any{"kind": "ServiceAccount", "name": "builder"}}}, superAdmin); r.Code != 201 {
		t.Fatalf("bind: %d %s", r.Code, r.Body)
	}
	e.eventually("edit aggregated, the account lists pods", func() bool { return e.do("GET", "/api/v1/namespaces/default/pods", nil, bearer).Code == 200 })

	review := func(token string, audiences ...string) resp {
		spec := map[string]any{"token": token}
		if audiences != nil {
			spec["audiences"] = audiences
		}
		return e.do("POST", "/apis/authentication.k8s.io/v1/tokenreviews", map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": spec}, superAdmin)
	}
	r = review(token)
	if r.Code != 201 || object.Path(r.Obj, "status", "authenticated") != true ||
		object.Path(r.Obj, "status", "user", "username") != "system:serviceaccount:default:builder" ||
		object.Path(r.Obj, "status", "user", "uid") != object.MetaString(sa.Obj, "uid") ||
		!slices.Equal(object.Strings(object.Child(object.Child(r.Obj, "status"), "user"), "groups"), []string{"system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"}) ||
		!slices.Equal(object.Strings(object.Child(object.Child(object.Child(r.Obj, "status"), "user"), "extra"), "authentication.kubernetes.io/credential-id"), []string{"JTI=" + object.String(claims["jti"])}) {
		t.Errorf("review: %d %s", r.Code, r.Body)
	}
	if r := review(token, "foo"); object.Path(r.Obj, "status", "error") != `[invalid bearer token, token audiences ["https://kubernetes.default.svc.cluster.local"] is invalid for the target audiences ["foo"]]` {
		t.Errorf("review for another audience: %d %s", r.Code, r.Body)
	}
	if r := review("garbage"); r.Code != 201 || object.Path(r.Obj, "status", "error") != "invalid bearer token" || object.Path(r.Obj, "status", "authenticated") != nil {
		t.Errorf("garbage: %d %s", r.Code, r.Body)
	}
	if r := e.do("POST", "/apis/authentication.k8s.io/v1/tokenreviews", map[string]any{"spec": map[string]any{}}, superAdmin); r.Code != 400 || r.Obj["message"] != "token is required for TokenReview in authentication" {
		t.Errorf("no token: %d %s", r.Code, r.Body)
	}
	// A token for another audience is no credential for the API.
	r = request("builder", map[string]any{"audiences": []any{"vault"}})
	if r := e.do("GET", "/api/v1/namespaces/default/pods", nil, as{"Authorization": "Bearer " + object.String(object.Path(r.Obj, "status", "token"))}); r.Code != 401 {
		t.Errorf("a vault token: %d %s", r.Code, r.Body)
	}
	if r := request("builder", map[string]any{"expirationSeconds": 60}); r.Code != 422 ||
		r.Obj["message"] != `TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes` {
		t.Errorf("a minute: %d %s", r.Code, r.Body)
	}
	if r := request("nope", map[string]any{}); r.Code != 404 || r.Obj["message"] != `serviceaccounts "nope" not found` {
		t.Errorf("no account: %d %s", r.Code, r.Body)
	}
	// Bound to a Pod, a token lives as long as the Pod.
	if r := e.do("POST", "/api/v1/namespaces/default/pods", map[string]any{"metadata": map[string]any{"name": "p"},
		"spec": map[string]any{"serviceAccountName": "builder", "containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}, superAdmin); r.Code != 201 {
		t.Fatalf("pod: %d %s", r.Code, r.Body)
	}
	r = request("builder", map[string]any{"boundObjectRef": map[string]any{"kind": "Pod", "apiVersion": "v1", "name": "p"}})
	podToken := object.String(object.Path(r.Obj, "status", "token"))
	if r := review(podToken); object.Path(r.Obj, "status", "user", "extra", "authentication.kubernetes.io/pod-name") == nil {
		t.Errorf("pod-bound review: %s", r.Body)
	}
	e.do("DELETE", "/api/v1/namespaces/default/pods/p?gracePeriodSeconds=0", nil, superAdmin)
	e.eventually("the pod gone", func() bool { return e.do("GET", "/api/v1/namespaces/default/pods/p", nil, superAdmin).Code == 404 })
	if r := e.do("GET", "/api/v1/namespaces/default/pods", nil, as{"Authorization": "Bearer " + podToken}); r.Code != 401 {
		t.Errorf("the pod's token after the pod: %d", r.Code)
	}
	// The account deleted, its tokens are no more.
	e.do("DELETE", sas+"/builder", nil, superAdmin)
	if r := e.do("GET", "/api/v1/namespaces/default/pods", nil, bearer); r.Code != 401 {
		t.Errorf("after the account: %d %s", r.Code, r.Body)
	}
	if r := review(token); object.Path(r.Obj, "status", "error") != `[invalid bearer token, serviceaccounts "builder" not found]` {
		t.Errorf("review after the account: %s", r.Body)
	}
}

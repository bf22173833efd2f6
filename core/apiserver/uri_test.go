package apiserver

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"kubeplay/core/object"
)

func TestK8S_URI_1_Paths(t *testing.T) {
	s := newTestServer(t, testConfig{})
	s.createCM("default", "a", nil)
	s.do("POST", "/apis/apps/v1/namespaces/default/deployments", map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "w"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "w"}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}},
	}).must(t, 201)

	// Core group under /api/v1, named groups under /apis/G/V.
	s.do("GET", "/api/v1/namespaces/default/configmaps/a", nil).must(t, 200)
	s.do("GET", "/apis/apps/v1/namespaces/default/deployments/web", nil).must(t, 200)
	// The core group is not served under /apis (no group is named v1: the
	// mux's plain 404), nor named groups under /api.
	s.do("GET", "/apis/v1/namespaces/default/configmaps/a", nil).wantPageNotFound(t)
	s.do("GET", "/api/apps/v1/namespaces/default/deployments", nil).wantStatus(t, 404, "NotFound", "")
	// Cluster-scoped collection, namespaced collection, all-namespaces list.
	if names := s.do("GET", "/api/v1/namespaces", nil).must(t, 200).names(); !slices.Contains(names, "kube-system") {
		t.Fatalf("namespaces %v", names)
	}
	all := s.do("GET", "/api/v1/configmaps", nil).must(t, 200)
	if all.str("kind") != "ConfigMapList" || !slices.Contains(all.names(), "a") {
		t.Fatalf("all-namespaces list: %s", all.Body)
	}
	// A cluster-scoped resource under a namespace does not exist.
	s.do("GET", "/api/v1/namespaces/default/nodes", nil).wantStatus(t, 404, "NotFound", "")
	// Subresource status of a single object.
	st := s.do("GET", "/apis/apps/v1/namespaces/default/deployments/web/status", nil).must(t, 200)
	if st.str("kind") != "Deployment" {
		t.Fatalf("status subresource: %s", st.Body)
	}
	s.do("GET", "/api/v1/namespaces/default/configmaps/a/nope", nil).wantStatus(t, 404, "NotFound", "")
	// Unknown resource.
	s.do("GET", "/api/v1/namespaces/default/widgets", nil).wantStatus(t, 404, "NotFound", "")
}

func TestK8S_URI_2_Discovery(t *testing.T) {
	s := newTestServer(t, testConfig{})
	api := s.do("GET", "/api", nil).must(t, 200)
	if api.str("kind") != "APIVersions" || !slices.Contains(anyStrings(api.Obj["versions"]), "v1") {
		t.Fatalf("/api: %s", api.Body)
	}
	groups := s.do("GET", "/apis", nil).must(t, 200)
	if groups.str("kind") != "APIGroupList" {
		t.Fatalf("/apis: %s", groups.Body)
	}
	var names []string
	for _, g := range groups.Obj["groups"].([]any) {
		names = append(names, object.Path(g, "name").(string))
		if object.Path(g, "preferredVersion", "groupVersion") == nil {
			t.Fatalf("group without preferredVersion: %v", g)
		}
	}
	if !slices.Equal(names, []string{"apiregistration.k8s.io", "apps", "events.k8s.io", "authentication.k8s.io", "authorization.k8s.io", "autoscaling", "batch", "certificates.k8s.io", "networking.k8s.io", "policy", "rbac.authorization.k8s.io", "storage.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io", "scheduling.k8s.io", "coordination.k8s.io", "node.k8s.io", "discovery.k8s.io", "flowcontrol.apiserver.k8s.io"}) {
		t.Fatalf("groups %v", names)
	}

	v1 := s.do("GET", "/api/v1", nil).must(t, 200)
	if v1.str("kind") != "APIResourceList" || v1.str("groupVersion") != "v1" {
		t.Fatalf("/api/v1: %s", v1.Body)
	}
	byName := map[string]map[string]any{}
	for _, r := range v1.Obj["resources"].([]any) {
		m := r.(map[string]any)
		byName[m["name"].(string)] = m
	}
	pods := byName["pods"]
	if pods == nil || pods["kind"] != "Pod" || pods["namespaced"] != true || !slices.Equal(anyStrings(pods["shortNames"]), []string{"po"}) ||
		!slices.Equal(anyStrings(pods["verbs"]), []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}) {
		t.Fatalf("pods resource: %v", pods)
	}
	if ns := byName["namespaces"]; ns == nil || ns["namespaced"] != false {
		t.Fatalf("namespaces: %v", ns)
	}
	if byName["pods/status"] == nil || byName["namespaces/status"] == nil {
		t.Fatalf("status subresources missing: %v", keys(byName))
	}
	apps := s.do("GET", "/apis/apps/v1", nil).must(t, 200)
	if apps.str("groupVersion") != "apps/v1" {
		t.Fatalf("/apis/apps/v1: %s", apps.Body)
	}
	s.do("GET", "/apis/apps", nil).must(t, 200)
	s.do("GET", "/apis/nope/v1", nil).wantPageNotFound(t)

	// Aggregated discovery, v2 and v2beta1.
	for _, v := range []string{"v2", "v2beta1"} {
		accept := "application/json;g=apidiscovery.k8s.io;v=" + v + ";as=APIGroupDiscoveryList,application/json"
		for _, path := range []string{"/api", "/apis"} {
			agg := s.do("GET", path, nil, "Accept", accept).must(t, 200)
			if agg.str("kind") != "APIGroupDiscoveryList" || agg.str("apiVersion") != "apidiscovery.k8s.io/"+v {
				t.Fatalf("aggregated %s %s: %s", v, path, agg.Body)
			}
			if ct := agg.Header.Get("Content-Type"); !strings.Contains(ct, "as=APIGroupDiscoveryList") || !strings.Contains(ct, "v="+v) {
				t.Fatalf("aggregated Content-Type %q", ct)
			}
		}
	}

	ver := s.do("GET", "/version", nil).must(t, 200)
	if ver.str("major") != "1" || !strings.HasPrefix(ver.str("gitVersion"), "v1.32") {
		t.Fatalf("/version: %s", ver.Body)
	}
	for _, p := range []string{"/healthz", "/livez", "/readyz"} {
		r := s.do("GET", p, nil).must(t, 200)
		if string(r.Body) != "ok" {
			t.Fatalf("%s: %q", p, r.Body)
		}
		v := s.do("GET", p+"?verbose", nil).must(t, 200)
		if !strings.Contains(string(v.Body), "[+]ping ok") || !strings.Contains(string(v.Body), "passed") {
			t.Fatalf("%s?verbose: %q", p, v.Body)
		}
	}

	// OpenAPI v3: an index and one document per group version, whose PATCH
	// operations advertise fieldValidation (kubectl's server-side validation check).
	idx := s.do("GET", "/openapi/v3", nil).must(t, 200)
	url, _ := object.Path(idx.Obj, "paths", "apis/apps/v1", "serverRelativeURL").(string)
	if !strings.HasPrefix(url, "/openapi/v3/apis/apps/v1?hash=") {
		t.Fatalf("openapi index: %s", idx.Body)
	}
	doc := s.do("GET", url, nil).must(t, 200)
	patch := object.Path(doc.Obj, "paths", "/apis/apps/v1/namespaces/{namespace}/deployments/{name}", "patch")
	if object.Path(patch, "x-kubernetes-group-version-kind", "kind") != "Deployment" || !strings.Contains(string(doc.Body), `"fieldValidation"`) {
		t.Fatalf("openapi document: %.300s", doc.Body)
	}
}

func TestK8S_URI_3_BuiltinKinds(t *testing.T) {
	s := newTestServer(t, testConfig{})
	want := map[string]string{ // path → list kind
		"/api/v1/namespaces": "NamespaceList", "/api/v1/pods": "PodList", "/api/v1/configmaps": "ConfigMapList",
		"/api/v1/secrets": "SecretList", "/api/v1/services": "ServiceList", "/api/v1/endpoints": "EndpointsList",
		"/api/v1/nodes": "NodeList", "/api/v1/events": "EventList", "/api/v1/serviceaccounts": "ServiceAccountList",
		"/apis/coordination.k8s.io/v1/leases": "LeaseList", "/apis/apps/v1/deployments": "DeploymentList",
		"/apis/apps/v1/replicasets": "ReplicaSetList",
	}
	for path, kind := range want {
		r := s.do("GET", path, nil).must(t, 200)
		if r.str("kind") != kind {
			t.Errorf("%s: kind %q, want %q", path, r.str("kind"), kind)
		}
	}
}

// K8S-ENC-7: collections are <Kind>List, never List.
func TestK8S_ENC_7_ListKinds(t *testing.T) {
	s := newTestServer(t, testConfig{})
	s.createCM("default", "a", nil)
	for _, p := range []string{"/api/v1/namespaces/default/configmaps", "/api/v1/configmaps", "/api/v1/configmaps?limit=1", "/apis/apps/v1/deployments"} {
		r := s.do("GET", p, nil).must(t, 200)
		if k := r.str("kind"); k == "List" || !strings.HasSuffix(k, "List") || r.str("apiVersion") == "" {
			t.Fatalf("%s: kind %q apiVersion %q", p, k, r.str("apiVersion"))
		}
		for _, it := range r.items() {
			if it["kind"] != nil {
				// kube-apiserver leaves kind/apiVersion off list items.
				t.Fatalf("%s: item carries kind: %v", p, it["kind"])
			}
		}
	}
}

func anyStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestPLAY_DebugCompact(t *testing.T) {
	s := newTestServer(t, testConfig{})
	rv := s.createCM("default", "a", nil).str("metadata", "resourceVersion")
	s.createCM("default", "b", nil)
	s.do("GET", "/debug/kubeplay/compact", nil).wantStatus(t, 405, "MethodNotAllowed", "")
	r := s.do("POST", "/debug/kubeplay/compact", nil).must(t, 200)
	if r.str("compactedRevision") != s.listRV("/api/v1/namespaces/default/configmaps") {
		t.Fatalf("compact: %s", r.Body)
	}
	e := s.watch(cmWatch + "&resourceVersion=" + rv).next()
	if e.Type != "ERROR" || e.Object["code"] != float64(410) {
		t.Fatalf("watch after compaction: %s %v", e.Type, e.Object)
	}
}

// TestK8S_URI_4_GroupDiscoveryAsKube: the groups of networking, scheduling
// and node kinds are discovered as kube-apiserver 1.32.13 answers (its
// answers, from the refapi kit).
func TestK8S_URI_4_GroupDiscoveryAsKube(t *testing.T) {
	s := newTestServer(t, testConfig{})
	for _, g := range []string{"networking.k8s.io", "scheduling.k8s.io", "node.k8s.io"} {
		kube := `{"kind":"APIGroup","apiVersion":"v1","name":"` + g + `","versions":[{"groupVersion":"` + g + `/v1","version":"v1"}],"preferredVersion":{"groupVersion":"` + g + `/v1","version":"v1"}}`
		var want map[string]any
		if err := json.Unmarshal([]byte(kube), &want); err != nil {
			t.Fatal(err)
		}
		if got := s.do("GET", "/apis/"+g, nil).must(t, 200).Obj; !reflect.DeepEqual(got, want) {
			t.Errorf("/apis/%s differs from kube's at %v", g, jsonDiff("", got, want))
		}
	}
}

// kubeNewGroupsDiscovery is kube-apiserver 1.32.13's aggregated discovery
// (apidiscovery.k8s.io/v2) of the networking, scheduling and node groups,
// from the refapi kit, without the storageVersionHash kubeplay gives no
// kind.
const kubeNewGroupsDiscovery = `[
{"metadata":{"creationTimestamp":null,"name":"networking.k8s.io"},"versions":[{"freshness":"Current","resources":[{"resource":"ingressclasses","responseKind":{"group":"","kind":"IngressClass","version":""},"scope":"Cluster","singularResource":"ingressclass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},{"resource":"ingresses","responseKind":{"group":"","kind":"Ingress","version":""},"scope":"Namespaced","shortNames":["ing"],"singularResource":"ingress","subresources":[{"responseKind":{"group":"","kind":"Ingress","version":""},"subresource":"status","verbs":["get","patch","update"]}],"verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},{"resource":"networkpolicies","responseKind":{"group":"","kind":"NetworkPolicy","version":""},"scope":"Namespaced","shortNames":["netpol"],"singularResource":"networkpolicy","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]}],"version":"v1"}]},
{"metadata":{"creationTimestamp":null,"name":"scheduling.k8s.io"},"versions":[{"freshness":"Current","resources":[{"resource":"priorityclasses","responseKind":{"group":"","kind":"PriorityClass","version":""},"scope":"Cluster","shortNames":["pc"],"singularResource":"priorityclass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]}],"version":"v1"}]},
{"metadata":{"creationTimestamp":null,"name":"node.k8s.io"},"versions":[{"freshness":"Current","resources":[{"resource":"runtimeclasses","responseKind":{"group":"","kind":"RuntimeClass","version":""},"scope":"Cluster","singularResource":"runtimeclass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]}],"version":"v1"}]}]`

// TestK8S_URI_4_AggregatedDiscoveryAsKube: aggregated discovery lists the
// networking, scheduling and node groups as kube does, a built-in kind's
// group and version left unsaid.
func TestK8S_URI_4_AggregatedDiscoveryAsKube(t *testing.T) {
	var want []any
	if err := json.Unmarshal([]byte(kubeNewGroupsDiscovery), &want); err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t, testConfig{})
	var got []any
	for _, g := range s.do("GET", "/apis", nil, "Accept", aggregatedV2).must(t, 200).Obj["items"].([]any) {
		switch object.Path(g, "metadata", "name") {
		case "networking.k8s.io", "scheduling.k8s.io", "node.k8s.io":
			got = append(got, g)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("aggregated discovery differs from kube's at %v", jsonDiff("", got, want))
	}
}

// TestK8S_URI_4_CoreResourcesInKubesOrder: /api/v1 lists its resources by
// name, as kube-apiserver 1.32.13 does (its list, from the refapi kit).
func TestK8S_URI_4_CoreResourcesInKubesOrder(t *testing.T) {
	kube := []string{"bindings", "componentstatuses", "configmaps", "endpoints", "events", "limitranges", "namespaces", "nodes", "persistentvolumeclaims", "persistentvolumes",
		"pods", "podtemplates", "replicationcontrollers", "resourcequotas", "secrets", "serviceaccounts", "services"}
	s := newTestServer(t, testConfig{})
	var got []string
	for _, r := range s.do("GET", "/api/v1", nil).must(t, 200).Obj["resources"].([]any) {
		if name := object.Path(r, "name").(string); !strings.Contains(name, "/") {
			got = append(got, name)
		}
	}
	if !slices.Equal(got, kube) {
		t.Errorf("/api/v1 lists %v, kube %v", got, kube)
	}
	got = nil
	for _, g := range s.do("GET", "/api", nil, "Accept", aggregatedV2).must(t, 200).Obj["items"].([]any) {
		for _, r := range object.Path(g, "versions").([]any)[0].(map[string]any)["resources"].([]any) {
			got = append(got, object.Path(r, "resource").(string))
		}
	}
	if !slices.Equal(got, kube) {
		t.Errorf("aggregated /api lists %v, kube %v", got, kube)
	}
}

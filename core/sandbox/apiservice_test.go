package sandbox

import (
	"slices"
	"testing"

	"kubeplay/core/object"
)

// TestCONF_1_LocalAPIServices: the aggregator registers an APIService for
// every built-in group version, with kube's priorities, available as
// local ones are; a CustomResourceDefinition's served versions get theirs
// while it exists; one served by a Service that does not exist is not
// available, in kube's words. (API-only: no simulated cluster registers
// its own metrics-server.)
func TestCONF_1_LocalAPIServices(t *testing.T) {
	e := newEnv(t, Config{APIOnly: true})
	const path = "/apis/apiregistration.k8s.io/v1/apiservices"
	names := func() []string {
		var out []string
		for _, it := range e.do("GET", path, nil, admin).Obj["items"].([]any) {
			out = append(out, object.MetaString(it.(map[string]any), "name"))
		}
		return out
	}
	// The aggregator registers them one by one: wait for every one checked.
	builtin := []string{"v1.", "v1.apps", "v1.flowcontrol.apiserver.k8s.io", "v1.rbac.authorization.k8s.io", "v1.apiextensions.k8s.io"}
	e.eventually("the built-in group versions registered", func() bool {
		have := names()
		for _, n := range builtin {
			if !slices.Contains(have, n) {
				return false
			}
		}
		return true
	})
	apps := e.do("GET", path+"/v1.apps", nil, admin).Obj
	if object.Int(object.Path(apps, "spec", "groupPriorityMinimum")) != 17800 || object.Int(object.Path(apps, "spec", "versionPriority")) != 15 ||
		object.Labels(apps)["kube-aggregator.kubernetes.io/automanaged"] != "onstart" {
		t.Errorf("v1.apps: %v", apps)
	}
	if c := object.Objects(object.Child(apps, "status"), "conditions"); len(c) != 1 || c[0]["reason"] != "Local" || c[0]["status"] != "True" {
		t.Errorf("v1.apps status: %v", apps["status"])
	}
	crd := map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": map[string]any{"name": "crontabs.stable.example.com"},
		"spec": map[string]any{"group": "stable.example.com", "scope": "Namespaced", "names": map[string]any{"plural": "crontabs", "singular": "crontab", "kind": "CronTab"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object"}}}}}}
	if r := e.do("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd, admin); r.Code != 201 {
		t.Fatalf("crd: %d %s", r.Code, r.Body)
	}
	e.eventually("the custom group version registered", func() bool { return slices.Contains(names(), "v1.stable.example.com") })
	custom := e.do("GET", path+"/v1.stable.example.com", nil, admin).Obj
	if object.Labels(custom)["kube-aggregator.kubernetes.io/automanaged"] != "true" || object.Int(object.Path(custom, "spec", "groupPriorityMinimum")) != 1000 ||
		object.Int(object.Path(custom, "spec", "versionPriority")) != 100 {
		t.Errorf("custom: %v", custom)
	}
	e.do("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com", nil, admin)
	e.eventually("the custom group version gone", func() bool { return !slices.Contains(names(), "v1.stable.example.com") })

	remote := map[string]any{"metadata": map[string]any{"name": "v1beta1.metrics.k8s.io"}, "spec": map[string]any{"group": "metrics.k8s.io", "version": "v1beta1",
		"groupPriorityMinimum": 100, "versionPriority": 100, "insecureSkipTLSVerify": true, "service": map[string]any{"namespace": "kube-system", "name": "metrics-server"}}}
	if r := e.do("POST", path, remote, admin); r.Code != 201 {
		t.Fatalf("remote: %d %s", r.Code, r.Body)
	}
	judged := func(reason, message string) {
		t.Helper()
		e.eventually("the remote one judged "+reason, func() bool {
			c := object.Objects(object.Child(e.do("GET", path+"/v1beta1.metrics.k8s.io", nil, admin).Obj, "status"), "conditions")
			return len(c) == 1 && c[0]["status"] == "False" && c[0]["reason"] == reason && c[0]["message"] == message
		})
	}
	judged("ServiceNotFound", `service/metrics-server in "kube-system" is not present`)
	// A Service without a selector: its Endpoints are whatever is written.
	svc := e.do("POST", "/api/v1/namespaces/kube-system/services", map[string]any{"metadata": map[string]any{"name": "metrics-server"},
		"spec": map[string]any{"ports": []any{map[string]any{"name": "https", "port": 8443}}}}, admin)
	if svc.Code != 201 {
		t.Fatalf("service: %d %s", svc.Code, svc.Body)
	}
	judged("ServicePortError", `service/metrics-server in "kube-system" is not listening on port 443`)
	ports := []any{map[string]any{"name": "https", "port": 443, "targetPort": 4443}}
	cur := e.do("GET", "/api/v1/namespaces/kube-system/services/metrics-server", nil, admin).Obj
	object.Child(cur, "spec")["ports"] = ports
	if r := e.do("PUT", "/api/v1/namespaces/kube-system/services/metrics-server", cur, admin); r.Code != 200 {
		t.Fatalf("service port: %d %s", r.Code, r.Body)
	}
	judged("EndpointsNotFound", `cannot find endpoints for service/metrics-server in "kube-system"`)
	ep := map[string]any{"metadata": map[string]any{"name": "metrics-server"}, "subsets": []any{map[string]any{
		"addresses": []any{map[string]any{"ip": "10.244.1.7"}}, "ports": []any{map[string]any{"name": "metrics", "port": 4443}}}}}
	if r := e.do("POST", "/api/v1/namespaces/kube-system/endpoints", ep, admin); r.Code != 201 {
		t.Fatalf("endpoints: %d %s", r.Code, r.Body)
	}
	judged("MissingEndpoints", `endpoints for service/metrics-server in "kube-system" have no addresses with port name "https"`)
	cur = e.do("GET", "/api/v1/namespaces/kube-system/endpoints/metrics-server", nil, admin).Obj
	object.Objects(object.Objects(cur, "subsets")[0], "ports")[0]["name"] = "https"
	if r := e.do("PUT", "/api/v1/namespaces/kube-system/endpoints/metrics-server", cur, admin); r.Code != 200 {
		t.Fatalf("endpoints port: %d %s", r.Code, r.Body)
	}
	ip := object.String(object.Path(svc.Obj, "spec", "clusterIP"))
	u := "https://" + ip + ":443/apis/metrics.k8s.io/v1beta1"
	judged("FailedDiscoveryCheck", `failing or missing response from `+u+`: Get "`+u+`": dial tcp `+ip+`:443: connect: connection refused`)
}

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
// available, in kube's words.
func TestCONF_1_LocalAPIServices(t *testing.T) {
	e := newEnv(t, Config{})
	const path = "/apis/apiregistration.k8s.io/v1/apiservices"
	names := func() []string {
		var out []string
		for _, it := range e.do("GET", path, nil, admin).Obj["items"].([]any) {
			out = append(out, object.MetaString(it.(map[string]any), "name"))
		}
		return out
	}
	e.eventually("the built-in group versions registered", func() bool { return slices.Contains(names(), "v1.flowcontrol.apiserver.k8s.io") })
	for _, n := range []string{"v1.", "v1.apps", "v1.rbac.authorization.k8s.io", "v1.apiextensions.k8s.io"} {
		if !slices.Contains(names(), n) {
			t.Errorf("no APIService %s in %v", n, names())
		}
	}
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
	e.eventually("the remote one judged", func() bool {
		c := object.Objects(object.Child(e.do("GET", path+"/v1beta1.metrics.k8s.io", nil, admin).Obj, "status"), "conditions")
		return len(c) == 1 && c[0]["status"] == "False" && c[0]["reason"] == "ServiceNotFound" && c[0]["message"] == `service/metrics-server in "kube-system" is not present`
	})
}

package sim

import (
	"context"
	"encoding/json"

	"kubeplay/core/client"
	"kubeplay/core/metricsserver"
	"kubeplay/core/object"
	"kubeplay/core/user"
	"kubeplay/core/web"
)

// metricsServerObjects are what metrics-server v0.7's manifest
// (components.yaml) registers and the simulated one needs: its service
// account, its roles (its own, which also reads the Services the usage model
// spreads load over, and the readers' one aggregated into view, edit and
// admin) and binding, and the APIService that makes kube-apiserver proxy
// metrics.k8s.io/v1beta1 to it. No Pod of it runs: the core serves it
// in-process (core/metricsserver).
var metricsServerObjects = []struct{ path, doc string }{
	{"/api/v1/namespaces/kube-system/serviceaccounts", `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"metrics-server","namespace":"kube-system","labels":{"k8s-app":"metrics-server"}}}`},
	{"/apis/rbac.authorization.k8s.io/v1/clusterroles", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"system:aggregated-metrics-reader","labels":{"k8s-app":"metrics-server","rbac.authorization.k8s.io/aggregate-to-admin":"true","rbac.authorization.k8s.io/aggregate-to-edit":"true","rbac.authorization.k8s.io/aggregate-to-view":"true"}},"rules":[{"apiGroups":["metrics.k8s.io"],"resources":["pods","nodes"],"verbs":["get","list","watch"]}]}`},
	{"/apis/rbac.authorization.k8s.io/v1/clusterroles", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"system:metrics-server","labels":{"k8s-app":"metrics-server"}},"rules":[{"apiGroups":[""],"resources":["nodes/metrics"],"verbs":["get"]},{"apiGroups":[""],"resources":["pods","nodes","services"],"verbs":["get","list","watch"]}]}`},
	{"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"system:metrics-server","labels":{"k8s-app":"metrics-server"}},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"system:metrics-server"},"subjects":[{"kind":"ServiceAccount","name":"metrics-server","namespace":"kube-system"}]}`},
	{"/apis/apiregistration.k8s.io/v1/apiservices", `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"` + metricsserver.APIService + `","labels":{"k8s-app":"metrics-server"}},"spec":{"group":"` + metricsserver.Group + `","version":"` + metricsserver.Version + `","groupPriorityMinimum":100,"versionPriority":100,"insecureSkipTLSVerify":true,"service":{"name":"metrics-server","namespace":"kube-system","port":443}}}`},
}

// installMetricsServer creates what metricsServerObjects lists and is
// missing, as an admin applying the manifest would.
func installMetricsServer(ctx context.Context, h web.Handler) error {
	c := client.New(h, user.User{Name: "kubernetes-admin", Groups: []string{"kubeadm:cluster-admins", user.AllAuthenticated}},
		"kubectl/v1.32.2 (linux/amd64) kubernetes/67a30c0")
	for _, o := range metricsServerObjects {
		obj, err := object.Decode([]byte(o.doc))
		if err != nil {
			return err
		}
		last, _ := json.Marshal(obj)
		object.Meta(obj)["annotations"] = map[string]any{"kubectl.kubernetes.io/last-applied-configuration": string(last) + "\n"}
		if _, err := c.Create(ctx, o.path+"?fieldManager=kubectl-client-side-apply", obj); err != nil && !client.IsConflict(err) {
			return err
		}
	}
	return nil
}

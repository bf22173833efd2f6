package validation

import (
	"testing"

	"kubeplay/core/defaults"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/types"
)

// kindRules are the built-in kinds' rules, as the fuzz target picks them.
var kindRules = []struct {
	apiVersion, kind string
	create           func(object.Object) field.ErrorList
	update           func(obj, old object.Object) field.ErrorList
}{
	{"v1", "Pod", Pod, PodUpdate},
	{"apps/v1", "Deployment", Deployment, DeploymentUpdate},
	{"apps/v1", "ReplicaSet", ReplicaSet, ReplicaSetUpdate},
	{"v1", "Service", Service, ServiceUpdate},
	{"v1", "ConfigMap", ConfigMap, ConfigMapUpdate},
	{"v1", "Secret", Secret, SecretUpdate},
	{"v1", "ResourceQuota", ResourceQuota, func(obj, old object.Object) field.ErrorList {
		return append(ResourceQuotaUpdate(obj, old), ResourceQuotaStatusUpdate(obj)...)
	}},
	{"v1", "LimitRange", LimitRange, func(obj, _ object.Object) field.ErrorList { return LimitRange(obj) }},
	{"policy/v1", "PodDisruptionBudget", PodDisruptionBudget, func(obj, _ object.Object) field.ErrorList {
		return append(PodDisruptionBudget(obj), PodDisruptionBudgetStatusUpdate(obj)...)
	}},
}

// FuzzK8S_WRITE_5_KindRulesNeverPanic: the kinds' rules judge every body
// kube would decode into the kind, defaulted as kube does, created or
// updated from another, without panicking; every error names a field and
// says what is wrong.
func FuzzK8S_WRITE_5_KindRulesNeverPanic(f *testing.F) {
	for _, s := range []struct {
		kind     int
		obj, old string
	}{
		{0, `{"spec":{"containers":[{"name":"c","image":"x","ports":[{"containerPort":80,"name":"http"}],"resources":{"limits":{"cpu":"1"}}}]}}`, `{"spec":{"containers":[{"name":"c","image":"y"}]}}`},
		{0, `{"spec":{"volumes":[{"name":"v","secret":{},"hostPath":{"path":"/a/../b"}}],"initContainers":[{"restartPolicy":"Never","livenessProbe":{}}],"hostNetwork":true,"containers":[{"ports":[{"containerPort":1,"hostPort":2}]}]}}`, `{}`},
		{0, `{"spec":{"activeDeadlineSeconds":5,"tolerations":[{"key":"a"}],"containers":[{"name":"c","image":"x"}]}}`, `{"spec":{"activeDeadlineSeconds":3,"tolerations":[{"key":"b"}],"containers":[{"name":"c","image":"x"}]}}`},
		{1, `{"spec":{"selector":{"matchExpressions":[{"key":"a","operator":"In"}]},"strategy":{"rollingUpdate":{"maxSurge":"x%","maxUnavailable":0}}}}`, `{"spec":{"selector":{}}}`},
		{2, `{"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"c"}}}}}`, `{}`},
		{3, `{"spec":{"type":"LoadBalancer","clusterIPs":["None","1.2.3.4","::1"],"ports":[{"port":10250,"nodePort":1},{"port":10250,"nodePort":1}],"sessionAffinity":"ClientIP"}}`, `{"spec":{"clusterIPs":["10.0.0.1"]}}`},
		{4, `{"data":{"a":"b","..":"c"},"binaryData":{"a":"eA=="},"immutable":true}`, `{"data":{"a":"x"},"immutable":true}`},
		{5, `{"type":"kubernetes.io/dockercfg","data":{".dockercfg":"e30="}}`, `{"type":"kubernetes.io/tls","immutable":true}`},
		{6, `{"spec":{"hard":{"pods":"1500m","foo":"-1","bad key":"1"},"scopes":["BestEffort","Weird"],"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass","operator":"In"}]}},"status":{"used":{"x":"1"}}}`, `{"spec":{"scopes":["Terminating"]}}`},
		{7, `{"spec":{"limits":[{"type":"Container","min":{"cpu":"2"},"max":{"cpu":"1"},"maxLimitRequestRatio":{"cpu":"0"}},{"type":"Pod","default":{"x":"1"}},{"type":"PersistentVolumeClaim"},{"type":"Container"}]}}`, `{}`},
	} {
		f.Add(uint8(s.kind), s.obj, s.old)
	}
	f.Fuzz(func(t *testing.T, k uint8, body, oldBody string) {
		r := kindRules[int(k)%len(kindRules)]
		obj, err := types.DecodeJSON(r.apiVersion, r.kind, []byte(body))
		if err != nil {
			return
		}
		old, err := types.DecodeJSON(r.apiVersion, r.kind, []byte(oldBody))
		if err != nil {
			return
		}
		defaults.Apply(r.apiVersion, r.kind, obj)
		defaults.Apply(r.apiVersion, r.kind, old)
		for _, errs := range []field.ErrorList{r.create(obj), r.update(obj, old), r.update(obj, obj)} {
			for _, e := range errs {
				if e.Field == "" && r.kind != "ConfigMap" || e.ErrorBody() == "" {
					t.Fatalf("%s %s: an error without a field or message: %#v", r.kind, body, e)
				}
			}
		}
	})
}

package quota

import (
	"testing"
	"time"

	"kubeplay/core/object"
)

var now = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func decode(t testing.TB, s string) object.Object {
	t.Helper()
	obj, err := object.Decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// TestROB_2_Usage: what kube's evaluators charge the objects the recorded
// answers do not reach: sidecars and overhead, a finished Pod, a Pod past its
// grace period, a LoadBalancer without node ports, a claim whose allocation
// grew, a class named by the beta annotation, an object count with its
// legacy name.
func TestROB_2_Usage(t *testing.T) {
	for _, c := range []struct {
		name, group, resource, obj string
		want                       string
	}{
		{"sidecar and overhead", "", "pods", `{"spec":{"overhead":{"cpu":"10m"},` +
			`"containers":[{"name":"a","resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"memory":"128Mi"}}}],` +
			`"initContainers":[{"name":"s","restartPolicy":"Always","resources":{"requests":{"cpu":"50m"}}},{"name":"i","resources":{"requests":{"cpu":"500m","example.com/gpu":"1"},"limits":{"cpu":"1"}}}]}}`,
			"count/pods=1,cpu=560m,limits.cpu=1010m,limits.memory=128Mi,memory=64Mi,pods=1,requests.cpu=560m,requests.example.com/gpu=1,requests.memory=64Mi"},
		{"finished", "", "pods", `{"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"1"}}}]},"status":{"phase":"Succeeded"}}`, "count/pods=1"},
		{"past its grace period", "", "pods", `{"metadata":{"deletionTimestamp":"2026-03-01T08:59:00Z","deletionGracePeriodSeconds":30},"spec":{"containers":[{"name":"a"}]}}`, "count/pods=1"},
		{"within its grace period", "", "pods", `{"metadata":{"deletionTimestamp":"2026-03-01T08:59:50Z","deletionGracePeriodSeconds":30},"spec":{"containers":[{"name":"a"}]}}`, "count/pods=1,pods=1"},
		{"load balancer without node ports", "", "services", `{"spec":{"type":"LoadBalancer","allocateLoadBalancerNodePorts":false,"ports":[{"port":80},{"port":81,"nodePort":30001}]}}`,
			"count/services=1,services=1,services.loadbalancers=1,services.nodeports=1"},
		{"external name", "", "services", `{"spec":{"type":"ExternalName","externalName":"x"}}`, "count/services=1,services=1,services.loadbalancers=0,services.nodeports=0"},
		{"claim allocated more", "", "persistentvolumeclaims", `{"metadata":{"annotations":{"volume.beta.kubernetes.io/storage-class":"gold"}},"spec":{"storageClassName":"silver","resources":{"requests":{"storage":"1500m"}}},"status":{"allocatedResources":{"storage":"2Gi"}}}`,
			"count/persistentvolumeclaims=1,gold.storageclass.storage.k8s.io/persistentvolumeclaims=1,gold.storageclass.storage.k8s.io/requests.storage=2Gi,persistentvolumeclaims=1,requests.storage=2Gi"},
		{"claim rounded up", "", "persistentvolumeclaims", `{"spec":{"resources":{"requests":{"storage":"1500m"}}}}`, "count/persistentvolumeclaims=1,persistentvolumeclaims=1,requests.storage=2"},
		{"legacy count", "", "secrets", `{}`, "count/secrets=1,secrets=1"},
		{"group count", "apps", "deployments", `{}`, "count/deployments.apps=1"},
	} {
		e, ok := For(c.group, c.resource)
		if !ok {
			t.Fatalf("%s: no evaluator", c.name)
		}
		if got := e.Usage(decode(t, c.obj), now).String(); got != c.want {
			t.Errorf("%s: usage %s, want %s", c.name, got, c.want)
		}
	}
	if _, ok := For("", "events"); ok {
		t.Error("events are counted")
	}
}

// TestROB_2_Scopes: which Pods are in which scopes.
func TestROB_2_Scopes(t *testing.T) {
	e, _ := For("", "pods")
	bestEffort := decode(t, `{"spec":{"containers":[{"name":"a","resources":{"requests":{"example.com/gpu":"1"}}}]}}`)
	burstable := decode(t, `{"spec":{"activeDeadlineSeconds":0,"priorityClassName":"high","containers":[{"name":"a","resources":{"limits":{"memory":"1Gi"}}}],`+
		`"affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":{"namespaceSelector":{},"topologyKey":"x"}}]}}}}`)
	for _, c := range []struct {
		r        Requirement
		pod      object.Object
		inScope  bool
		scopeFor string
	}{
		{Requirement{Scope: "BestEffort"}, bestEffort, true, "best effort"},
		{Requirement{Scope: "NotBestEffort"}, burstable, true, "burstable"},
		{Requirement{Scope: "Terminating"}, burstable, true, "a deadline of 0"},
		{Requirement{Scope: "NotTerminating"}, bestEffort, true, "no deadline"},
		{Requirement{Scope: "PriorityClass", Operator: "In", Values: []string{"high"}}, burstable, true, "class in"},
		{Requirement{Scope: "PriorityClass", Operator: "NotIn", Values: []string{"high"}}, bestEffort, true, "no class, not in"},
		{Requirement{Scope: "PriorityClass", Operator: "DoesNotExist"}, burstable, false, "a class"},
		{Requirement{Scope: "CrossNamespacePodAffinity", Operator: "Exists"}, burstable, true, "a namespace selector"},
		{Requirement{Scope: "CrossNamespacePodAffinity", Operator: "Exists"}, bestEffort, false, "no affinity"},
	} {
		if got := e.InScope(c.r, c.pod); got != c.inScope {
			t.Errorf("%s (%s %s): in scope %v", c.scopeFor, c.r.Scope, c.r.Operator, got)
		}
	}
}

// FuzzROB_2_CheckNeverPanics: the admission's judgement of any object a
// kind decodes into, against any quota, never panics, and a refusal is a
// Status.
func FuzzROB_2_CheckNeverPanics(f *testing.F) {
	for _, s := range []struct{ resource, obj, old, quota string }{
		{"pods", `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"1"}}}]}}`, ``,
			`{"metadata":{"name":"q"},"spec":{"hard":{"pods":"1"},"scopes":["NotBestEffort"]},"status":{"hard":{"pods":"1","requests.cpu":"1"},"used":{"pods":"1"}}}`},
		{"services", `{"spec":{"type":"NodePort","ports":[{"port":1}]}}`, `{"metadata":{"resourceVersion":"1"},"spec":{"type":"ClusterIP"}}`,
			`{"metadata":{"name":"q"},"status":{"hard":{"services.nodeports":"0"},"used":{"services.nodeports":"0"}}}`},
		{"persistentvolumeclaims", `{"spec":{"resources":{"requests":{"storage":[1]}}}}`, ``,
			`{"spec":{"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass","operator":"In","values":["x"]}]}},"status":{"hard":{"requests.storage":"1"}}}`},
		{"configmaps", `[]`, `{}`, `{"status":{"hard":{"configmaps":"x"},"used":{"configmaps":"-1"}}}`},
	} {
		f.Add(s.resource, s.obj, s.old, s.quota)
	}
	f.Fuzz(func(t *testing.T, resource, body, oldBody, quotaBody string) {
		obj, err := object.Decode([]byte(body))
		if err != nil {
			return
		}
		old, _ := object.Decode([]byte(oldBody))
		q, err := object.Decode([]byte(quotaBody))
		if err != nil {
			return
		}
		for _, op := range []string{"CREATE", "UPDATE"} {
			_, err := Check(Object{Resource: resource, Name: "x"}, op, "", func() []Quota { return []Quota{Read(q)} }, obj, old, now)
			if err != nil && err.Error() == "" {
				t.Fatalf("a refusal without words")
			}
		}
	})
}

package main

import (
	"fmt"
	"math/rand/v2"
)

// kindSpec is what the generator knows of a kind: where it is served, a valid
// object of it, what may change in it, and the field selectors it supports.
type kindSpec struct {
	Kind, Group, Version, Resource string
	Namespaced                     bool
	// weight is how often sessions pick the kind.
	weight int
	// spec adds the kind's content to a new object (metadata aside).
	spec func(r *rand.Rand, obj map[string]any)
	// change returns a merge patch that changes the object's content (not only
	// its labels), applicable to an object spec made.
	change func(r *rand.Rand) map[string]any
	// fields are field selectors the kind supports (besides metadata.name and
	// metadata.namespace), with a value to match.
	fields [][2]string
}

func (k *kindSpec) apiVersion() string {
	if k.Group == "" {
		return k.Version
	}
	return k.Group + "/" + k.Version
}

// collection is the kind's collection path in the session's namespace.
func (k *kindSpec) collection() string {
	p := "/api/" + k.Version
	if k.Group != "" {
		p = "/apis/" + k.Group + "/" + k.Version
	}
	if k.Namespaced {
		p += "/namespaces/{{ns}}"
	}
	return p + "/" + k.Resource
}

// allNamespaces is the kind's collection across namespaces.
func (k *kindSpec) allNamespaces() string {
	p := "/api/" + k.Version
	if k.Group != "" {
		p = "/apis/" + k.Group + "/" + k.Version
	}
	return p + "/" + k.Resource
}

// objectName is the name an object of the session is known by: namespaced
// ones by their own, cluster-scoped ones prefixed by the session's namespace.
func (k *kindSpec) objectName(short string) string {
	if k.Namespaced {
		return short
	}
	return "{{ns}}-" + short
}

var images = []string{"nginx:1.27", "busybox", "registry.k8s.io/pause:3.10"}

func podSpec(r *rand.Rand) map[string]any {
	c := map[string]any{"name": "c", "image": images[r.IntN(len(images))]}
	if r.IntN(3) == 0 {
		c["ports"] = []any{map[string]any{"containerPort": 80, "name": "http"}}
	}
	if r.IntN(4) == 0 {
		c["resources"] = map[string]any{"limits": map[string]any{"cpu": "100m", "memory": "64Mi"}}
	}
	spec := map[string]any{"containers": []any{c}}
	// Most name their account; ServiceAccount admission names it for the rest.
	if r.IntN(8) != 0 {
		spec["serviceAccountName"] = "default"
	}
	return spec
}

func workload(r *rand.Rand, obj map[string]any, extra map[string]any) {
	app := fmt.Sprintf("w%d", r.IntN(3))
	spec := map[string]any{
		"replicas": r.IntN(3) + 1,
		"selector": map[string]any{"matchLabels": map[string]any{"app": app}},
		"template": map[string]any{
			"metadata": map[string]any{"labels": map[string]any{"app": app}},
			"spec":     podSpec(r),
		},
	}
	for k, v := range extra {
		spec[k] = v
	}
	obj["spec"] = spec
}

var kinds = []*kindSpec{
	{
		Kind: "ConfigMap", Version: "v1", Resource: "configmaps", Namespaced: true, weight: 6,
		spec: func(r *rand.Rand, obj map[string]any) {
			obj["data"] = map[string]any{"k1": fmt.Sprintf("v%d", r.IntN(100))}
			if r.IntN(4) == 0 {
				obj["immutable"] = false
			}
		},
		change: func(r *rand.Rand) map[string]any {
			return map[string]any{"data": map[string]any{"k2": fmt.Sprintf("x%d", r.IntN(100))}}
		},
	},
	{
		Kind: "Secret", Version: "v1", Resource: "secrets", Namespaced: true, weight: 3,
		spec: func(r *rand.Rand, obj map[string]any) {
			obj["type"] = "Opaque"
			if r.IntN(2) == 0 {
				obj["stringData"] = map[string]any{"password": "hunter2"}
			} else {
				obj["data"] = map[string]any{"token": "c2VjcmV0"}
			}
		},
		change: func(r *rand.Rand) map[string]any {
			return map[string]any{"data": map[string]any{"extra": "eA=="}}
		},
		fields: [][2]string{{"type", "Opaque"}},
	},
	{
		Kind: "ServiceAccount", Version: "v1", Resource: "serviceaccounts", Namespaced: true, weight: 2,
		spec: func(r *rand.Rand, obj map[string]any) {
			if r.IntN(2) == 0 {
				obj["automountServiceAccountToken"] = false
			}
		},
		change: func(r *rand.Rand) map[string]any {
			return map[string]any{"automountServiceAccountToken": r.IntN(2) == 0}
		},
	},
	{
		Kind: "Endpoints", Version: "v1", Resource: "endpoints", Namespaced: true, weight: 2,
		spec: func(r *rand.Rand, obj map[string]any) {
			obj["subsets"] = []any{map[string]any{
				"addresses": []any{map[string]any{"ip": fmt.Sprintf("10.1.0.%d", r.IntN(200)+1)}},
				"ports":     []any{map[string]any{"port": 80, "name": "http"}},
			}}
		},
		change: func(r *rand.Rand) map[string]any {
			return map[string]any{"subsets": []any{map[string]any{
				"addresses": []any{map[string]any{"ip": fmt.Sprintf("10.2.0.%d", r.IntN(200)+1)}},
				"ports":     []any{map[string]any{"port": 8080}},
			}}}
		},
	},
	{
		Kind: "Event", Version: "v1", Resource: "events", Namespaced: true, weight: 2,
		spec: func(r *rand.Rand, obj map[string]any) {
			obj["involvedObject"] = map[string]any{"kind": "ConfigMap", "name": "a", "namespace": "{{ns}}", "apiVersion": "v1"}
			obj["reason"] = []string{"Created", "Updated", "Tested"}[r.IntN(3)]
			obj["message"] = "something happened"
			obj["type"] = []string{"Normal", "Warning"}[r.IntN(2)]
			obj["source"] = map[string]any{"component": "fidelity"}
			obj["count"] = 1
		},
		change: func(r *rand.Rand) map[string]any {
			return map[string]any{"count": r.IntN(5) + 2, "message": "it happened again"}
		},
		fields: [][2]string{{"reason", "Created"}, {"type", "Normal"}, {"involvedObject.name", "a"}, {"source", "fidelity"}},
	},
	{
		// The same stored Events, through events.k8s.io/v1 (its validation is
		// stricter, and its updates may change only the series).
		Kind: "Event", Group: "events.k8s.io", Version: "v1", Resource: "events", Namespaced: true, weight: 2,
		spec: func(r *rand.Rand, obj map[string]any) {
			obj["eventTime"] = "2026-01-02T03:04:05.000000Z"
			obj["reportingController"] = "example.com/fidelity"
			obj["reportingInstance"] = "fidelity-1"
			obj["action"] = []string{"Create", "Update"}[r.IntN(2)]
			obj["reason"] = []string{"Created", "Updated", "Tested"}[r.IntN(3)]
			obj["regarding"] = map[string]any{"kind": "ConfigMap", "name": "a", "namespace": "{{ns}}", "apiVersion": "v1"}
			obj["note"] = "something happened"
			obj["type"] = []string{"Normal", "Warning"}[r.IntN(2)]
		},
		change: func(r *rand.Rand) map[string]any {
			return map[string]any{"series": map[string]any{"count": r.IntN(5) + 2, "lastObservedTime": "2026-01-02T03:05:00.000000Z"}}
		},
		fields: [][2]string{{"reason", "Created"}, {"type", "Normal"}, {"regarding.name", "a"}, {"reportingController", "example.com/fidelity"}},
	},
	{
		Kind: "Lease", Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Namespaced: true, weight: 2,
		spec: func(r *rand.Rand, obj map[string]any) {
			obj["spec"] = map[string]any{"holderIdentity": fmt.Sprintf("holder-%d", r.IntN(3)), "leaseDurationSeconds": 15}
		},
		change: func(r *rand.Rand) map[string]any {
			return map[string]any{"spec": map[string]any{"holderIdentity": fmt.Sprintf("holder-%d", r.IntN(9)), "leaseTransitions": r.IntN(4)}}
		},
	},
	{
		Kind: "Pod", Version: "v1", Resource: "pods", Namespaced: true, weight: 4,
		spec: func(r *rand.Rand, obj map[string]any) { obj["spec"] = podSpec(r) },
		change: func(r *rand.Rand) map[string]any {
			return map[string]any{"spec": map[string]any{"activeDeadlineSeconds": r.IntN(100) + 30}}
		},
		fields: [][2]string{{"spec.restartPolicy", "Always"}, {"status.phase", "Pending"}, {"spec.serviceAccountName", "default"}, {"spec.nodeName", ""}},
	},
	{
		Kind: "Service", Version: "v1", Resource: "services", Namespaced: true, weight: 3,
		spec: func(r *rand.Rand, obj map[string]any) {
			if r.IntN(3) == 0 {
				obj["spec"] = map[string]any{"type": "ExternalName", "externalName": "example.com"}
				return
			}
			obj["spec"] = map[string]any{
				"clusterIP": "None",
				"selector":  map[string]any{"app": "w0"},
				"ports":     []any{map[string]any{"port": 80, "name": "http"}},
			}
		},
		change: func(r *rand.Rand) map[string]any {
			return map[string]any{"spec": map[string]any{"sessionAffinity": []string{"None", "ClientIP"}[r.IntN(2)]}}
		},
		fields: [][2]string{{"spec.clusterIP", "None"}, {"spec.type", "ClusterIP"}},
	},
	{
		Kind: "Deployment", Group: "apps", Version: "v1", Resource: "deployments", Namespaced: true, weight: 3,
		spec: func(r *rand.Rand, obj map[string]any) { workload(r, obj, nil) },
		change: func(r *rand.Rand) map[string]any {
			return map[string]any{"spec": map[string]any{"replicas": r.IntN(5), "minReadySeconds": r.IntN(10)}}
		},
	},
	{
		Kind: "ReplicaSet", Group: "apps", Version: "v1", Resource: "replicasets", Namespaced: true, weight: 2,
		spec: func(r *rand.Rand, obj map[string]any) { workload(r, obj, nil) },
		change: func(r *rand.Rand) map[string]any {
			return map[string]any{"spec": map[string]any{"replicas": r.IntN(5)}}
		},
	},
	{
		Kind: "StatefulSet", Group: "apps", Version: "v1", Resource: "statefulsets", Namespaced: true, weight: 2,
		spec: func(r *rand.Rand, obj map[string]any) { workload(r, obj, map[string]any{"serviceName": "svc"}) },
		change: func(r *rand.Rand) map[string]any {
			return map[string]any{"spec": map[string]any{"replicas": r.IntN(5)}}
		},
	},
	{
		Kind: "Node", Version: "v1", Resource: "nodes", weight: 1,
		spec: func(r *rand.Rand, obj map[string]any) {
			if r.IntN(2) == 0 {
				obj["spec"] = map[string]any{"unschedulable": true}
			}
		},
		change: func(r *rand.Rand) map[string]any {
			return map[string]any{"spec": map[string]any{"unschedulable": r.IntN(2) == 0}}
		},
		fields: [][2]string{{"spec.unschedulable", "false"}},
	},
	{
		Kind: "PersistentVolume", Version: "v1", Resource: "persistentvolumes", weight: 1,
		spec: func(r *rand.Rand, obj map[string]any) {
			obj["spec"] = map[string]any{
				"capacity":         map[string]any{"storage": []string{"1Gi", "500Mi", "2Gi"}[r.IntN(3)]},
				"accessModes":      []any{[]string{"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany"}[r.IntN(3)]},
				"hostPath":         map[string]any{"path": "/data/fidelity"},
				"storageClassName": "manual",
			}
		},
		change: func(r *rand.Rand) map[string]any {
			return map[string]any{"spec": map[string]any{"persistentVolumeReclaimPolicy": []string{"Retain", "Delete", "Recycle"}[r.IntN(3)]}}
		},
	},
	{
		Kind: "StorageClass", Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses", weight: 1,
		spec: func(r *rand.Rand, obj map[string]any) {
			obj["provisioner"] = "example.com/fidelity"
			obj["reclaimPolicy"] = []string{"Delete", "Retain"}[r.IntN(2)]
			obj["volumeBindingMode"] = []string{"Immediate", "WaitForFirstConsumer"}[r.IntN(2)]
			obj["parameters"] = map[string]any{"tier": "fast"}
		},
		change: func(r *rand.Rand) map[string]any {
			if r.IntN(2) == 0 {
				return map[string]any{"allowVolumeExpansion": true}
			}
			return map[string]any{"parameters": map[string]any{"tier": "slow"}} // immutable: kube's 422
		},
	},
	{
		Kind: "ResourceQuota", Version: "v1", Resource: "resourcequotas", Namespaced: true, weight: 1,
		spec: func(r *rand.Rand, obj map[string]any) {
			hard := map[string]any{"pods": fmt.Sprint(r.IntN(20) + 1), "count/configmaps": fmt.Sprint(r.IntN(50) + 1)}
			if r.IntN(2) == 0 {
				hard["requests.cpu"] = []string{"1", "500m", "2"}[r.IntN(3)]
			}
			obj["spec"] = map[string]any{"hard": hard}
			if r.IntN(3) == 0 {
				obj["spec"] = map[string]any{"hard": map[string]any{"pods": "5"}, "scopes": []any{[]string{"BestEffort", "NotTerminating"}[r.IntN(2)]}}
			}
		},
		change: func(r *rand.Rand) map[string]any {
			if r.IntN(3) == 0 {
				return map[string]any{"spec": map[string]any{"scopes": []any{"Terminating"}}} // immutable: kube's 422
			}
			return map[string]any{"spec": map[string]any{"hard": map[string]any{"pods": fmt.Sprint(r.IntN(20) + 1)}}}
		},
	},
	{
		Kind: "LimitRange", Version: "v1", Resource: "limitranges", Namespaced: true, weight: 1,
		spec: func(r *rand.Rand, obj map[string]any) {
			// One set of defaults whatever the object: kube applies a
			// namespace's LimitRanges in no set order.
			obj["spec"] = map[string]any{"limits": []any{map[string]any{"type": "Container", "max": map[string]any{"cpu": "4"}, "defaultRequest": map[string]any{"memory": "64Mi"}}}}
		},
		change: func(r *rand.Rand) map[string]any {
			return map[string]any{"spec": map[string]any{"limits": []any{map[string]any{"type": "Container", "max": map[string]any{"cpu": "4"},
				"defaultRequest": map[string]any{"memory": "64Mi"}, "min": map[string]any{"cpu": []string{"10m", "8"}[r.IntN(2)]}}}}} // min over max: kube's 422
		},
	},
	{
		Kind: "Namespace", Version: "v1", Resource: "namespaces", weight: 1,
		spec: func(r *rand.Rand, obj map[string]any) {},
		change: func(r *rand.Rand) map[string]any {
			return map[string]any{"metadata": map[string]any{"annotations": map[string]any{"note": "changed"}}}
		},
		fields: [][2]string{{"status.phase", "Active"}},
	},
	{
		Kind: "PriorityLevelConfiguration", Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Resource: "prioritylevelconfigurations", weight: 1,
		spec: func(r *rand.Rand, obj map[string]any) {
			lr := map[string]any{"type": "Reject"}
			if r.IntN(2) == 0 {
				lr = map[string]any{"type": "Queue", "queuing": map[string]any{"queues": 16, "handSize": 4, "queueLengthLimit": 10}}
			}
			obj["spec"] = map[string]any{"type": "Limited", "limited": map[string]any{"nominalConcurrencyShares": r.IntN(10) + 1, "limitResponse": lr}}
		},
		change: func(r *rand.Rand) map[string]any {
			return map[string]any{"spec": map[string]any{"limited": map[string]any{"lendablePercent": r.IntN(100)}}}
		},
	},
	{
		Kind: "FlowSchema", Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Resource: "flowschemas", weight: 1,
		spec: func(r *rand.Rand, obj map[string]any) {
			obj["spec"] = map[string]any{
				"priorityLevelConfiguration": map[string]any{"name": "global-default"},
				"matchingPrecedence":         5000 + r.IntN(1000),
				"rules": []any{map[string]any{
					"subjects":         []any{map[string]any{"kind": "User", "user": map[string]any{"name": "nobody-{{ns}}"}}},
					"nonResourceRules": []any{map[string]any{"verbs": []any{"get"}, "nonResourceURLs": []any{"/fidelity"}}},
				}},
			}
		},
		change: func(r *rand.Rand) map[string]any {
			return map[string]any{"spec": map[string]any{"matchingPrecedence": 6000 + r.IntN(1000)}}
		},
	},
}

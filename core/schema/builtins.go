package schema

import (
	"fmt"

	"kubeplay/core/object"
)

// Verb sets as kube-apiserver's discovery lists them.
var (
	allVerbs     = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	clusterVerbs = []string{"create", "delete", "get", "list", "patch", "update", "watch"}
	statusVerbs  = []string{"get", "patch", "update"}
	createOnly   = []string{"create"}
)

func str(path ...string) func(object.Object) string {
	return func(o object.Object) string {
		switch v := object.Path(o, path...).(type) {
		case string:
			return v
		case nil:
			return ""
		default:
			return fmt.Sprint(v)
		}
	}
}

func boolField(path ...string) func(object.Object) string {
	return func(o object.Object) string {
		if b, _ := object.Path(o, path...).(bool); b {
			return "true"
		}
		return "false"
	}
}

// Builtins returns the built-in kinds of kube-apiserver v1.32 that kubeplay serves.
func Builtins() []*Resource {
	event := &Resource{
		Version: "v1", Kind: "Event", Plural: "events", Singular: "event", Namespaced: true,
		ShortNames: []string{"ev"}, Verbs: allVerbs, CreateOnUpdate: true, Names: PathSegment,
		Fields: map[string]func(object.Object) string{
			"involvedObject.kind":            str("involvedObject", "kind"),
			"involvedObject.namespace":       str("involvedObject", "namespace"),
			"involvedObject.name":            str("involvedObject", "name"),
			"involvedObject.uid":             str("involvedObject", "uid"),
			"involvedObject.apiVersion":      str("involvedObject", "apiVersion"),
			"involvedObject.resourceVersion": str("involvedObject", "resourceVersion"),
			"involvedObject.fieldPath":       str("involvedObject", "fieldPath"),
			"reason":                         str("reason"),
			"reportingComponent":             str("reportingComponent"),
			"source":                         str("source", "component"),
			"type":                           str("type"),
		},
	}
	return []*Resource{
		{
			Version: "v1", Kind: "Namespace", Plural: "namespaces", Singular: "namespace",
			ShortNames: []string{"ns"}, Verbs: clusterVerbs, Names: DNSLabel,
			Subs: []Subresource{
				{Name: "finalize", Kind: "Namespace", Verbs: []string{"update"}},
				{Name: "status", Kind: "Namespace", Verbs: statusVerbs},
			},
			ReturnDeleted: true,
			Fields:        map[string]func(object.Object) string{"status.phase": str("status", "phase")},
		},
		{
			Version: "v1", Kind: "Pod", Plural: "pods", Singular: "pod", Namespaced: true,
			ShortNames: []string{"po"}, Categories: []string{"all"}, Verbs: allVerbs,
			Subs: []Subresource{
				{Name: "binding", Kind: "Binding", Verbs: createOnly},
				{Name: "eviction", Kind: "Eviction", Group: "policy", Verbs: []string{"create"}},
				{Name: "log", Kind: "Pod", Verbs: []string{"get"}},
				{Name: "status", Kind: "Pod", Verbs: statusVerbs},
			},
			ReturnDeleted: true,
			Fields: map[string]func(object.Object) string{
				"spec.nodeName":            str("spec", "nodeName"),
				"spec.restartPolicy":       str("spec", "restartPolicy"),
				"spec.schedulerName":       str("spec", "schedulerName"),
				"spec.serviceAccountName":  str("spec", "serviceAccountName"),
				"spec.hostNetwork":         boolField("spec", "hostNetwork"),
				"status.phase":             str("status", "phase"),
				"status.podIP":             str("status", "podIP"),
				"status.nominatedNodeName": str("status", "nominatedNodeName"),
			},
		},
		{
			Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Singular: "configmap",
			Namespaced: true, ShortNames: []string{"cm"}, Verbs: allVerbs,
		},
		{
			Version: "v1", Kind: "Secret", Plural: "secrets", Singular: "secret",
			Namespaced: true, Verbs: allVerbs,
			Fields: map[string]func(object.Object) string{"type": str("type")},
		},
		{
			Version: "v1", Kind: "Service", Plural: "services", Singular: "service",
			Namespaced: true, ShortNames: []string{"svc"}, Categories: []string{"all"},
			Verbs: allVerbs, Names: DNS1035Label, CreateOnUpdate: true, ReturnDeleted: true,
			Subs: []Subresource{
				{Name: "status", Kind: "Service", Verbs: statusVerbs},
			},
			Fields: map[string]func(object.Object) string{
				"spec.clusterIP": str("spec", "clusterIP"),
				"spec.type":      str("spec", "type"),
			},
		},
		{
			Version: "v1", Kind: "Endpoints", Plural: "endpoints", Singular: "endpoints",
			Namespaced: true, ShortNames: []string{"ep"}, Verbs: allVerbs, CreateOnUpdate: true,
		},
		{
			Version: "v1", Kind: "Node", Plural: "nodes", Singular: "node",
			ShortNames: []string{"no"}, Verbs: allVerbs,
			Subs: []Subresource{
				{Name: "status", Kind: "Node", Verbs: statusVerbs},
			},
			Fields: map[string]func(object.Object) string{"spec.unschedulable": boolField("spec", "unschedulable")},
		},
		{
			Version: "v1", Kind: "PersistentVolumeClaim", Plural: "persistentvolumeclaims", Singular: "persistentvolumeclaim",
			Namespaced: true, ShortNames: []string{"pvc"}, Verbs: allVerbs,
			Subs:          []Subresource{{Name: "status", Kind: "PersistentVolumeClaim", Verbs: statusVerbs}},
			ReturnDeleted: true,
		},
		{
			Version: "v1", Kind: "PersistentVolume", Plural: "persistentvolumes", Singular: "persistentvolume",
			ShortNames: []string{"pv"}, Verbs: allVerbs, ReturnDeleted: true,
			Subs: []Subresource{{Name: "status", Kind: "PersistentVolume", Verbs: statusVerbs}},
		},
		{
			Version: "v1", Kind: "ResourceQuota", Plural: "resourcequotas", Singular: "resourcequota",
			Namespaced: true, ShortNames: []string{"quota"}, Verbs: allVerbs, ReturnDeleted: true,
			Subs: []Subresource{{Name: "status", Kind: "ResourceQuota", Verbs: statusVerbs}},
		},
		{
			Version: "v1", Kind: "LimitRange", Plural: "limitranges", Singular: "limitrange",
			Namespaced: true, ShortNames: []string{"limits"}, Verbs: allVerbs, CreateOnUpdate: true,
		},
		event,
		{
			Version: "v1", Kind: "ServiceAccount", Plural: "serviceaccounts", Singular: "serviceaccount",
			Namespaced: true, ShortNames: []string{"sa"}, Verbs: allVerbs, ReturnDeleted: true,
		},
		{
			Group: "apps", Version: "v1", Kind: "ControllerRevision", Plural: "controllerrevisions", Singular: "controllerrevision",
			Namespaced: true, Verbs: allVerbs,
		},
		{
			Group: "apps", Version: "v1", Kind: "DaemonSet", Plural: "daemonsets", Singular: "daemonset",
			Namespaced: true, ShortNames: []string{"ds"}, Categories: []string{"all"}, Verbs: allVerbs,
			Generation: true,
			Subs:       []Subresource{{Name: "status", Kind: "DaemonSet", Group: "apps", Verbs: statusVerbs}},
		},
		{
			Group: "apps", Version: "v1", Kind: "Deployment", Plural: "deployments", Singular: "deployment",
			Namespaced: true, ShortNames: []string{"deploy"}, Categories: []string{"all"}, Verbs: allVerbs,
			Generation: true,
			Subs: []Subresource{
				{Name: "scale", Kind: "Scale", Group: "autoscaling", Verbs: statusVerbs},
				{Name: "status", Kind: "Deployment", Group: "apps", Verbs: statusVerbs},
			},
		},
		{
			Group: "apps", Version: "v1", Kind: "ReplicaSet", Plural: "replicasets", Singular: "replicaset",
			Namespaced: true, ShortNames: []string{"rs"}, Categories: []string{"all"}, Verbs: allVerbs,
			Generation: true,
			Subs: []Subresource{
				{Name: "scale", Kind: "Scale", Group: "autoscaling", Verbs: statusVerbs},
				{Name: "status", Kind: "ReplicaSet", Group: "apps", Verbs: statusVerbs},
			},
		},
		{
			Group: "apps", Version: "v1", Kind: "StatefulSet", Plural: "statefulsets", Singular: "statefulset",
			Namespaced: true, ShortNames: []string{"sts"}, Categories: []string{"all"}, Verbs: allVerbs,
			Generation: true, Names: DNSLabel,
			Subs: []Subresource{
				{Name: "scale", Kind: "Scale", Group: "autoscaling", Verbs: statusVerbs},
				{Name: "status", Kind: "StatefulSet", Group: "apps", Verbs: statusVerbs},
			},
		},
		{
			Group: "policy", Version: "v1", Kind: "PodDisruptionBudget", Plural: "poddisruptionbudgets", Singular: "poddisruptionbudget",
			Namespaced: true, ShortNames: []string{"pdb"}, Verbs: allVerbs, Generation: true,
			Subs: []Subresource{{Name: "status", Kind: "PodDisruptionBudget", Group: "policy", Verbs: statusVerbs}},
		},
		{
			Group: "storage.k8s.io", Version: "v1", Kind: "StorageClass", Plural: "storageclasses", Singular: "storageclass",
			ShortNames: []string{"sc"}, Verbs: allVerbs, ReturnDeleted: true,
		},
		{
			Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition",
			Plural: "customresourcedefinitions", Singular: "customresourcedefinition",
			ShortNames: []string{"crd", "crds"}, Categories: []string{"api-extensions"}, Verbs: allVerbs, Generation: true, Untyped: true,
			Subs: []Subresource{{Name: "status", Kind: "CustomResourceDefinition", Group: "apiextensions.k8s.io", Verbs: statusVerbs}},
		},
		{
			Group: "batch", Version: "v1", Kind: "CronJob", Plural: "cronjobs", Singular: "cronjob",
			Namespaced: true, ShortNames: []string{"cj"}, Categories: []string{"all"}, Verbs: allVerbs,
			Generation: true,
			Subs:       []Subresource{{Name: "status", Kind: "CronJob", Group: "batch", Verbs: statusVerbs}},
		},
		{
			Group: "batch", Version: "v1", Kind: "Job", Plural: "jobs", Singular: "job",
			Namespaced: true, Categories: []string{"all"}, Verbs: allVerbs,
			Generation: true,
			Subs:       []Subresource{{Name: "status", Kind: "Job", Group: "batch", Verbs: statusVerbs}},
			Fields:     map[string]func(object.Object) string{"status.successful": str("status", "succeeded")},
		},
		{
			Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice", Plural: "endpointslices", Singular: "endpointslice",
			Namespaced: true, Verbs: allVerbs, Generation: true,
		},
		{
			Group: "coordination.k8s.io", Version: "v1", Kind: "Lease", Plural: "leases", Singular: "lease",
			Namespaced: true, Verbs: allVerbs, CreateOnUpdate: true, UpdateNeedsVersion: true,
		},
		{
			Group: "authentication.k8s.io", Version: "v1", Kind: "SelfSubjectReview",
			Plural: "selfsubjectreviews", Singular: "selfsubjectreview", Verbs: createOnly, Virtual: true,
		},
		{
			Group: "authorization.k8s.io", Version: "v1", Kind: "SelfSubjectAccessReview",
			Plural: "selfsubjectaccessreviews", Singular: "selfsubjectaccessreview", Verbs: createOnly, Virtual: true,
		},
		{
			Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Kind: "FlowSchema",
			Plural: "flowschemas", Singular: "flowschema", Verbs: allVerbs, Generation: true,
			Subs: []Subresource{{Name: "status", Kind: "FlowSchema", Group: "flowcontrol.apiserver.k8s.io", Verbs: statusVerbs}},
		},
		{
			Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Kind: "PriorityLevelConfiguration",
			Plural: "prioritylevelconfigurations", Singular: "prioritylevelconfiguration", Verbs: allVerbs, Generation: true,
			Subs: []Subresource{{Name: "status", Kind: "PriorityLevelConfiguration", Group: "flowcontrol.apiserver.k8s.io", Verbs: statusVerbs}},
		},
		eventsV1(event),
	}
}

// Package defaults owns the defaults kube-apiserver 1.32 gives the built-in
// kinds when it decodes them, as k8s.io/kubernetes's pkg/apis/*/v1 defaulting
// functions and +default markers do: what a client sees filled in on every
// object it creates, replaces, patches or applies (a container's
// imagePullPolicy, a Deployment's rolling-update strategy, a Service port's
// targetPort, …).
//
// As kube's generated defaulters, the defaults are functions of Go types
// (PodSpec, Container, ServicePort, ResourceList, …), applied wherever the
// type occurs, parent before children: a Container in a Deployment's template
// gets what a Pod's does. The walk follows the kinds' Go types as
// core/encoding/protobuf's message table holds them (types.Walk), so this
// package names types, not paths.
//
// Defaulting is not all a new object gets: a Pod's status, the ServiceAccount
// admission's service account or a Service's IP families belong to the kinds'
// strategies and to admission (core/registry), as in kube.
package defaults

import (
	"encoding/json"
	"sort"

	"kubeplay/core/object"
	"kubeplay/core/quantity"
	"kubeplay/core/types"
)

// Apply sets kube's defaults on obj, an object of kind in apiVersion in JSON
// form, in place. Kinds without built-in Go types (custom resources) are left
// as they are. Defaulting a defaulted object changes nothing.
func Apply(apiVersion, kind string, obj object.Object) {
	types.Walk(apiVersion, kind, obj, func(goType string, v map[string]any) {
		if fn := defaulter(goType); fn != nil {
			fn(v)
		}
	})
}

// byType is the defaulting function of each Go type that has one (the types
// of apps/v1 and core/v1 share the package name v1, as in kube's errors),
// sorted by name. ConfigMap's (data becomes an empty map) shows nowhere: JSON
// omits an empty map.
var byType = []struct {
	goType string
	fn     func(map[string]any)
}{
	{"v1.AzureDiskVolumeSource", azureDisk},
	{"v1.ConfigMapVolumeSource", defaultMode},
	{"v1.Container", container},
	{"v1.ContainerPort", protocolTCP},
	{"v1.CronJob", cronJob},
	{"v1.DaemonSet", daemonSet},
	{"v1.Deployment", deployment},
	{"v1.DownwardAPIVolumeSource", defaultMode},
	{"v1.EndpointPort", protocolTCP},
	{"v1.EphemeralContainer", container},
	{"v1.GRPCAction", func(m map[string]any) { setUnset(m, "service", "") }},
	{"v1.HTTPGetAction", httpGet},
	{"v1.HostPathVolumeSource", func(m map[string]any) { setUnset(m, "type", "") }},
	{"v1.ISCSIPersistentVolumeSource", iscsi},
	{"v1.ISCSIVolumeSource", iscsi},
	{"v1.Job", job},
	{"v1.LimitRangeItem", limitRangeItem},
	{"v1.Namespace", namespace},
	{"v1.NamespaceStatus", func(m map[string]any) { setString(m, "phase", "Active") }},
	{"v1.NodeStatus", nodeStatus},
	{"v1.ObjectFieldSelector", func(m map[string]any) { setString(m, "apiVersion", "v1") }},
	{"v1.PersistentVolume", persistentVolume},
	{"v1.PersistentVolumeClaim", func(m map[string]any) { setString(object.Child(m, "status"), "phase", "Pending") }},
	{"v1.PersistentVolumeClaimSpec", func(m map[string]any) { setUnset(m, "volumeMode", "Filesystem") }},
	{"v1.Pod", pod},
	{"v1.PodSpec", podSpec},
	{"v1.Probe", probe},
	{"v1.ProjectedVolumeSource", defaultMode},
	{"v1.RBDPersistentVolumeSource", rbd},
	{"v1.RBDVolumeSource", rbd},
	{"v1.ReplicaSet", func(m map[string]any) { setUnset(object.Child(m, "spec"), "replicas", number("1")) }},
	{"v1.ResourceList", resourceList},
	{"v1.ScaleIOPersistentVolumeSource", scaleIO},
	{"v1.ScaleIOVolumeSource", scaleIO},
	{"v1.Secret", func(m map[string]any) { setString(m, "type", "Opaque") }},
	{"v1.SecretVolumeSource", defaultMode},
	{"v1.Service", service},
	{"v1.ServiceAccountTokenProjection", func(m map[string]any) { setUnset(m, "expirationSeconds", number("3600")) }},
	{"v1.ServicePort", protocolTCP},
	{"v1.StatefulSet", statefulSet},
	{"v1.StorageClass", storageClass},
	{"v1.Volume", volume},
}

// defaulter is the defaulting function of goType, or nil.
func defaulter(goType string) func(map[string]any) {
	i := sort.Search(len(byType), func(i int) bool { return byType[i].goType >= goType })
	if i < len(byType) && byType[i].goType == goType {
		return byType[i].fn
	}
	return nil
}

// number is an integer as decoded objects hold it.
func number(s string) json.Number { return json.Number(s) }

// setString sets a string field that is empty or absent, as kube's defaulting
// does for a value field ("" is its zero value).
func setString(m map[string]any, key, v string) {
	if s, _ := m[key].(string); s == "" {
		m[key] = v
	}
}

// setUnset sets a pointer field that is absent or null.
func setUnset(m map[string]any, key string, v any) {
	if m[key] == nil {
		m[key] = v
	}
}

// setNumber sets an integer field that is zero or absent.
func setNumber(m map[string]any, key string, v json.Number) {
	if isZero(m[key]) {
		m[key] = v
	}
}

// isZero says whether a number field holds its zero value (or nothing).
func isZero(v any) bool {
	switch n := v.(type) {
	case nil:
		return true
	case json.Number:
		return n == "0" || n == ""
	case int:
		return n == 0
	case int64:
		return n == 0
	case float64:
		return n == 0
	}
	return false
}

// pod is SetDefaults_Pod: what a Pod's spec gets and a template's does not.
// Requests default to limits, service links are on, and with the host's
// network every port is a host port.
func pod(m map[string]any) {
	spec := object.Child(m, "spec")
	for _, list := range []string{"containers", "initContainers"} {
		for _, c := range object.Objects(spec, list) {
			res, _ := c["resources"].(map[string]any)
			limits, _ := res["limits"].(map[string]any)
			for k, v := range limits {
				requests, ok := res["requests"].(map[string]any)
				if !ok {
					requests = map[string]any{}
					res["requests"] = requests
				}
				if _, ok := requests[k]; !ok {
					requests[k] = v
				}
			}
		}
	}
	setUnset(spec, "enableServiceLinks", true)
	if hostNetwork, _ := spec["hostNetwork"].(bool); hostNetwork {
		for _, list := range []string{"containers", "initContainers"} {
			for _, c := range object.Objects(spec, list) {
				for _, p := range object.Objects(c, "ports") {
					if cp := p["containerPort"]; isZero(p["hostPort"]) && !isZero(cp) {
						p["hostPort"] = cp
					}
				}
			}
		}
	}
}

// podSpec is SetDefaults_PodSpec.
func podSpec(m map[string]any) {
	setString(m, "dnsPolicy", "ClusterFirst")
	setString(m, "restartPolicy", "Always")
	setUnset(m, "securityContext", map[string]any{})
	setUnset(m, "terminationGracePeriodSeconds", number("30"))
	setString(m, "schedulerName", "default-scheduler")
}

// container is SetDefaults_Container: images tagged latest, or not tagged at
// all, are pulled always, others when not present.
func container(m map[string]any) {
	if s, _ := m["imagePullPolicy"].(string); s == "" {
		image, _ := m["image"].(string)
		if imageTag(image) == "latest" {
			m["imagePullPolicy"] = "Always"
		} else {
			m["imagePullPolicy"] = "IfNotPresent"
		}
	}
	setString(m, "terminationMessagePath", "/dev/termination-log")
	setString(m, "terminationMessagePolicy", "File")
}

func protocolTCP(m map[string]any) { setString(m, "protocol", "TCP") }

// resourceList rounds quantities up to milli units (kube says it will refuse
// finer ones one day).
func resourceList(m map[string]any) {
	for k, v := range m {
		if s, ok := v.(string); ok {
			m[k] = quantity.RoundUpMilli(s)
		}
	}
}

func probe(m map[string]any) {
	setNumber(m, "timeoutSeconds", number("1"))
	setNumber(m, "periodSeconds", number("10"))
	setNumber(m, "successThreshold", number("1"))
	setNumber(m, "failureThreshold", number("3"))
}

func httpGet(m map[string]any) {
	setString(m, "path", "/")
	setString(m, "scheme", "HTTP")
}

// volume is SetDefaults_Volume: a volume of no type is an emptyDir.
func volume(m map[string]any) {
	for k, v := range m {
		if k != "name" && v != nil {
			return
		}
	}
	m["emptyDir"] = map[string]any{}
}

// defaultMode is the file mode of secret, config map, downward API and
// projected volumes: 0644.
func defaultMode(m map[string]any) { setUnset(m, "defaultMode", number("420")) }

func rbd(m map[string]any) {
	setString(m, "pool", "rbd")
	setString(m, "user", "admin")
	setString(m, "keyring", "/etc/ceph/keyring")
}

func iscsi(m map[string]any) { setString(m, "iscsiInterface", "default") }

func azureDisk(m map[string]any) {
	setUnset(m, "cachingMode", "ReadWrite")
	setUnset(m, "fsType", "ext4")
	setUnset(m, "readOnly", false)
	setUnset(m, "kind", "Shared")
}

func scaleIO(m map[string]any) {
	setString(m, "storageMode", "ThinProvisioned")
	setString(m, "fsType", "xfs")
}

// persistentVolume is SetDefaults_PersistentVolume: a volume is Pending,
// retained once released, and a filesystem.
func persistentVolume(m map[string]any) {
	setString(object.Child(m, "status"), "phase", "Pending")
	spec := object.Child(m, "spec")
	setString(spec, "persistentVolumeReclaimPolicy", "Retain")
	setUnset(spec, "volumeMode", "Filesystem")
}

// storageClass is SetDefaults_StorageClass: its volumes are deleted once
// released, and bound as soon as they are claimed.
func storageClass(m map[string]any) {
	setUnset(m, "reclaimPolicy", "Delete")
	setUnset(m, "volumeBindingMode", "Immediate")
}

// limitRangeItem is SetDefaults_LimitRangeItem: a Container limit's default
// limit is its max, and its default request its default limit, else its
// min.
func limitRangeItem(m map[string]any) {
	if m["type"] != "Container" {
		return
	}
	limits, requests := object.Child(m, "default"), object.Child(m, "defaultRequest")
	for _, from := range []struct {
		field string
		to    map[string]any
	}{{"max", limits}, {"default", requests}, {"min", requests}} {
		source, _ := m[from.field].(map[string]any)
		for k, v := range source {
			if _, ok := from.to[k]; !ok {
				from.to[k] = v
			}
		}
	}
	for _, f := range []string{"default", "defaultRequest"} {
		if len(object.Child(m, f)) == 0 {
			delete(m, f)
		}
	}
}

// service is SetDefaults_Service.
func service(m map[string]any) {
	spec := object.Child(m, "spec")
	setString(spec, "sessionAffinity", "None")
	switch spec["sessionAffinity"] {
	case "None":
		delete(spec, "sessionAffinityConfig")
	case "ClientIP":
		if object.Path(spec, "sessionAffinityConfig", "clientIP", "timeoutSeconds") == nil {
			spec["sessionAffinityConfig"] = map[string]any{"clientIP": map[string]any{"timeoutSeconds": number("10800")}}
		}
	}
	setString(spec, "type", "ClusterIP")
	for _, p := range object.Objects(spec, "ports") {
		protocolTCP(p)
		if t := p["targetPort"]; isZero(t) || t == "" {
			p["targetPort"] = p["port"]
			if p["port"] == nil {
				p["targetPort"] = number("0")
			}
		}
	}
	typ := spec["type"]
	externalIPs, _ := spec["externalIPs"].([]any)
	if typ == "LoadBalancer" || typ == "NodePort" || typ == "ClusterIP" && len(externalIPs) > 0 {
		setString(spec, "externalTrafficPolicy", "Cluster")
	}
	if typ == "NodePort" || typ == "LoadBalancer" || typ == "ClusterIP" {
		setUnset(spec, "internalTrafficPolicy", "Cluster")
	}
	if typ == "LoadBalancer" {
		setUnset(spec, "allocateLoadBalancerNodePorts", true)
		ingress, _ := object.Path(m, "status", "loadBalancer").(map[string]any)
		for _, in := range object.Objects(ingress, "ingress") {
			if ip, _ := in["ip"].(string); ip != "" {
				setUnset(in, "ipMode", "VIP")
			}
		}
	}
}

// namespace is SetDefaults_Namespace: a named namespace is labelled with its
// name.
func namespace(m map[string]any) {
	meta := object.Child(m, "metadata")
	if name, _ := meta["name"].(string); name != "" {
		object.Child(meta, "labels")["kubernetes.io/metadata.name"] = name
	}
}

// nodeStatus is SetDefaults_NodeStatus: what a node can allocate is, unless
// said, its capacity.
func nodeStatus(m map[string]any) {
	capacity, ok := m["capacity"].(map[string]any)
	if m["allocatable"] != nil || !ok {
		return
	}
	allocatable := make(map[string]any, len(capacity))
	for k, v := range capacity {
		allocatable[k] = v
	}
	m["allocatable"] = allocatable
}

// deployment is SetDefaults_Deployment: one replica, rolling updates of 25%
// surge and 25% unavailable, ten old ReplicaSets kept, ten minutes to
// progress.
func deployment(m map[string]any) {
	spec := object.Child(m, "spec")
	setUnset(spec, "replicas", number("1"))
	strategy := object.Child(spec, "strategy")
	setString(strategy, "type", "RollingUpdate")
	if strategy["type"] == "RollingUpdate" {
		rolling := object.Child(strategy, "rollingUpdate")
		setUnset(rolling, "maxUnavailable", "25%")
		setUnset(rolling, "maxSurge", "25%")
	}
	setUnset(spec, "revisionHistoryLimit", number("10"))
	setUnset(spec, "progressDeadlineSeconds", number("600"))
}

// daemonSet is SetDefaults_DaemonSet: rolling updates one node at a time,
// ten revisions kept.
func daemonSet(m map[string]any) {
	spec := object.Child(m, "spec")
	strategy := object.Child(spec, "updateStrategy")
	setString(strategy, "type", "RollingUpdate")
	if strategy["type"] == "RollingUpdate" {
		rolling := object.Child(strategy, "rollingUpdate")
		setUnset(rolling, "maxUnavailable", number("1"))
		setUnset(rolling, "maxSurge", number("0"))
	}
	setUnset(spec, "revisionHistoryLimit", number("10"))
}

// job is SetDefaults_Job: one completion at a time, six retries, the
// template's labels for a Job without its own (the very map, as in kube: the
// labels the registry adds to the template show on the Job too), not
// suspended.
func job(m map[string]any) {
	spec := object.Child(m, "spec")
	if spec["completions"] == nil && spec["parallelism"] == nil {
		spec["completions"] = number("1")
	}
	setUnset(spec, "parallelism", number("1"))
	if spec["backoffLimitPerIndex"] != nil {
		setUnset(spec, "backoffLimit", number("2147483647"))
	}
	setUnset(spec, "backoffLimit", number("6"))
	meta := object.Child(m, "metadata")
	if labels, ok := object.Path(spec, "template", "metadata", "labels").(map[string]any); ok && len(object.StringMap(meta, "labels")) == 0 {
		meta["labels"] = labels
	}
	setUnset(spec, "completionMode", "NonIndexed")
	setUnset(spec, "suspend", false)
	if spec["podFailurePolicy"] != nil {
		setUnset(spec, "podReplacementPolicy", "Failed")
	}
	setUnset(spec, "podReplacementPolicy", "TerminatingOrFailed")
	setUnset(spec, "manualSelector", false)
}

// cronJob is SetDefaults_CronJob: concurrent runs allowed, three successful
// and one failed Job kept.
func cronJob(m map[string]any) {
	spec := object.Child(m, "spec")
	object.Child(object.Child(spec, "jobTemplate"), "metadata") // kube's JSON shows the empty struct
	setString(spec, "concurrencyPolicy", "Allow")
	setUnset(spec, "suspend", false)
	setUnset(spec, "successfulJobsHistoryLimit", number("3"))
	setUnset(spec, "failedJobsHistoryLimit", number("1"))
}

// statefulSet is SetDefaults_StatefulSet: pods made in order, rolling updates
// from partition 0, claims retained, one replica, ten revisions kept.
func statefulSet(m map[string]any) {
	spec := object.Child(m, "spec")
	setString(spec, "podManagementPolicy", "OrderedReady")
	strategy := object.Child(spec, "updateStrategy")
	if s, _ := strategy["type"].(string); s == "" {
		strategy["type"] = "RollingUpdate"
		setUnset(strategy, "rollingUpdate", map[string]any{})
	}
	if rolling, ok := strategy["rollingUpdate"].(map[string]any); ok && strategy["type"] == "RollingUpdate" {
		setUnset(rolling, "partition", number("0"))
	}
	retention := object.Child(spec, "persistentVolumeClaimRetentionPolicy")
	setString(retention, "whenDeleted", "Retain")
	setString(retention, "whenScaled", "Retain")
	setUnset(spec, "replicas", number("1"))
	setUnset(spec, "revisionHistoryLimit", number("10"))
}

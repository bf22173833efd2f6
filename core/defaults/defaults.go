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
// core/types' table holds them (types.Walk), so this
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
	{"v1.DownwardAPIVolumeSource", defaultMode},
	{"v1.EndpointPort", protocolTCP},
	{"v1.EphemeralContainer", container},
	{"v1.GRPCAction", func(m map[string]any) { SetUnset(m, "service", "") }},
	{"v1.HTTPGetAction", httpGet},
	{"v1.HostPathVolumeSource", func(m map[string]any) { SetUnset(m, "type", "") }},
	{"v1.ISCSIPersistentVolumeSource", iscsi},
	{"v1.ISCSIVolumeSource", iscsi},
	{"v1.LimitRangeItem", limitRangeItem},
	{"v1.MatchResources", matchResources},
	{"v1.MutatingWebhook", mutatingWebhook},
	{"v1.NamespaceStatus", func(m map[string]any) { SetString(m, "phase", "Active") }},
	{"v1.NetworkPolicyPort", protocolTCP},
	{"v1.NodeStatus", nodeStatus},
	{"v1.ObjectFieldSelector", func(m map[string]any) { SetString(m, "apiVersion", "v1") }},
	{"v1.PersistentVolumeClaim", func(m map[string]any) { SetString(object.Child(m, "status"), "phase", "Pending") }},
	{"v1.PersistentVolumeClaimSpec", func(m map[string]any) { SetUnset(m, "volumeMode", "Filesystem") }},
	{"v1.PodSpec", podSpec},
	{"v1.Probe", probe},
	{"v1.ProjectedVolumeSource", defaultMode},
	{"v1.RBDPersistentVolumeSource", rbd},
	{"v1.RBDVolumeSource", rbd},
	{"v1.ResourceList", resourceList},
	{"v1.Rule", func(m map[string]any) { SetUnset(m, "scope", "*") }},
	{"v1.ScaleIOPersistentVolumeSource", scaleIO},
	{"v1.ScaleIOVolumeSource", scaleIO},
	{"v1.SecretVolumeSource", defaultMode},
	{"v1.ServiceAccountTokenProjection", func(m map[string]any) { SetUnset(m, "expirationSeconds", Number("3600")) }},
	{"v1.ServicePort", protocolTCP},
	{"v1.ServiceReference", func(m map[string]any) { SetUnset(m, "port", Number("443")) }},
	{"v1.ValidatingAdmissionPolicySpec", func(m map[string]any) { SetUnset(m, "failurePolicy", "Fail") }},
	{"v1.ValidatingWebhook", webhook},
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

// Number is an integer as decoded objects hold it.
func Number(s string) json.Number { return json.Number(s) }

// SetString sets a string field that is empty or absent, as kube's defaulting
// does for a value field ("" is its zero value).
func SetString(m map[string]any, key, v string) {
	if s, _ := m[key].(string); s == "" {
		m[key] = v
	}
}

// SetUnset sets a pointer field that is absent or null.
func SetUnset(m map[string]any, key string, v any) {
	if m[key] == nil {
		m[key] = v
	}
}

// setNumber sets an integer field that is zero or absent.
func setNumber(m map[string]any, key string, v json.Number) {
	if IsZero(m[key]) {
		m[key] = v
	}
}

// IsZero says whether a number field holds its zero value (or nothing).
func IsZero(v any) bool {
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

// podSpec is SetDefaults_PodSpec.
func podSpec(m map[string]any) {
	SetString(m, "dnsPolicy", "ClusterFirst")
	SetString(m, "restartPolicy", "Always")
	SetUnset(m, "securityContext", map[string]any{})
	SetUnset(m, "terminationGracePeriodSeconds", Number("30"))
	SetString(m, "schedulerName", "default-scheduler")
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
	SetString(m, "terminationMessagePath", "/dev/termination-log")
	SetString(m, "terminationMessagePolicy", "File")
}

func protocolTCP(m map[string]any) { SetString(m, "protocol", "TCP") }

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
	setNumber(m, "timeoutSeconds", Number("1"))
	setNumber(m, "periodSeconds", Number("10"))
	setNumber(m, "successThreshold", Number("1"))
	setNumber(m, "failureThreshold", Number("3"))
}

func httpGet(m map[string]any) {
	SetString(m, "path", "/")
	SetString(m, "scheme", "HTTP")
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
func defaultMode(m map[string]any) { SetUnset(m, "defaultMode", Number("420")) }

func rbd(m map[string]any) {
	SetString(m, "pool", "rbd")
	SetString(m, "user", "admin")
	SetString(m, "keyring", "/etc/ceph/keyring")
}

func iscsi(m map[string]any) { SetString(m, "iscsiInterface", "default") }

func azureDisk(m map[string]any) {
	SetUnset(m, "cachingMode", "ReadWrite")
	SetUnset(m, "fsType", "ext4")
	SetUnset(m, "readOnly", false)
	SetUnset(m, "kind", "Shared")
}

func scaleIO(m map[string]any) {
	SetString(m, "storageMode", "ThinProvisioned")
	SetString(m, "fsType", "xfs")
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

// webhook is SetDefaults_ValidatingWebhook: a webhook that fails closed,
// matches equivalent requests, selects every namespace and object, and
// waits ten seconds.
func webhook(m map[string]any) {
	SetUnset(m, "failurePolicy", "Fail")
	SetUnset(m, "matchPolicy", "Equivalent")
	SetUnset(m, "namespaceSelector", map[string]any{})
	SetUnset(m, "objectSelector", map[string]any{})
	SetUnset(m, "timeoutSeconds", Number("10"))
}

// mutatingWebhook is SetDefaults_MutatingWebhook: a validating webhook's
// defaults, and never invoked again.
func mutatingWebhook(m map[string]any) {
	webhook(m)
	SetUnset(m, "reinvocationPolicy", "Never")
}

// matchResources is SetDefaults_MatchResources (a policy's or a binding's):
// equivalent requests, every namespace and object.
func matchResources(m map[string]any) {
	SetUnset(m, "matchPolicy", "Equivalent")
	SetUnset(m, "namespaceSelector", map[string]any{})
	SetUnset(m, "objectSelector", map[string]any{})
}

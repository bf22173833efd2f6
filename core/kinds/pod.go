package kinds

import (
	"encoding/json"
	"fmt"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/defaults"
	"kubeplay/core/encoding/table"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/quantity"
	"kubeplay/core/validation"
)

// pod is v1 Pod.
func pod() *api.Resource {
	return &api.Resource{
		Version: "v1", Kind: "Pod", Plural: "pods", Singular: "pod", Namespaced: true,
		ShortNames: []string{"po"}, Categories: []string{"all"}, Verbs: allVerbs,
		Subs: []api.Subresource{
			{Name: "attach", Kind: "PodAttachOptions", Verbs: connectStream, Connect: true},
			{Name: "binding", Kind: "Binding", Verbs: createOnly},
			{Name: "ephemeralcontainers", Kind: "Pod", Verbs: []string{"get", "patch", "update"}},
			{Name: "eviction", Kind: "Eviction", Group: "policy", Verbs: []string{"create"}},
			{Name: "exec", Kind: "PodExecOptions", Verbs: connectStream, Connect: true},
			{Name: "log", Kind: "Pod", Verbs: []string{"get"}},
			{Name: "portforward", Kind: "PodPortForwardOptions", Verbs: connectStream, Connect: true},
			{Name: "proxy", Kind: "PodProxyOptions", Verbs: connectProxy, Connect: true},
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
		Defaults: defaultPod,
		Hooks: api.Hooks{
			StatusResetsMetadata: []string{"deletionTimestamp", "ownerReferences"},
			LabelChecksOnUpdate:  4,
			Canonicalize:         convertPod,
			PrepareForCreate: func(obj object.Object, _ time.Time) {
				spec, _ := obj["spec"].(map[string]any)
				obj["status"] = map[string]any{"phase": "Pending", "qosClass": qosClass(spec)}
			},
			// A binding writes what it computed (node, condition); a write
			// to the ephemeral containers changes nothing else.
			PrepareForUpdate: func(u api.Update) object.Object {
				switch u.Sub {
				case "binding":
					return u.Obj
				case "ephemeralcontainers":
					return withEphemeralContainers(u.Obj, u.Old)
				}
				return u.Generic()
			},
			Validate: validation.Pod,
			ValidateUpdate: func(obj, old object.Object, sub string) field.ErrorList {
				if sub == "ephemeralcontainers" {
					return validation.PodEphemeralContainersUpdate(obj, old)
				}
				return specUpdate(validation.PodUpdate)(obj, old, sub)
			},
			// A name that is no DNS label is warned of, as it is the Pod's
			// hostname.
			WarningsOnCreate: func(obj object.Object) []string { return dnsLabelWarning(obj, "the Pod's hostname") },
			GracePeriod:      podGracePeriod,
			Admit:            admitPod,
		},
		Printer: table.Pod,
	}
}

// withEphemeralContainers is what a write to a Pod's ephemeralcontainers
// subresource stores (kube's dropNonEphemeralContainerUpdates): the Pod as
// it was, metadata and managedFields included, but for the ephemeral
// containers written (and the name, namespace, resourceVersion and uid
// sent).
func withEphemeralContainers(obj, old object.Object) object.Object {
	out := object.DeepCopy(old)
	meta, sent := object.Meta(out), object.Meta(obj)
	for _, f := range []string{"name", "namespace", "resourceVersion", "uid"} {
		api.SetOrDelete(meta, f, sent)
	}
	spec, _ := obj["spec"].(map[string]any)
	api.SetOrDelete(object.Child(out, "spec"), "ephemeralContainers", spec)
	return out
}

// defaultPod is SetDefaults_Pod: what a Pod's spec gets and a template's does not.
// Requests default to limits, service links are on, and with the host's
// network every port is a host port.
func defaultPod(m map[string]any) {
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
	defaults.SetUnset(spec, "enableServiceLinks", true)
	if hostNetwork, _ := spec["hostNetwork"].(bool); hostNetwork {
		for _, list := range []string{"containers", "initContainers"} {
			for _, c := range object.Objects(spec, list) {
				for _, p := range object.Objects(c, "ports") {
					if cp := p["containerPort"]; defaults.IsZero(p["hostPort"]) && !defaults.IsZero(cp) {
						p["hostPort"] = cp
					}
				}
			}
		}
	}
}

// convertPod is what kube's conversion of a Pod does: the deprecated
// serviceAccount mirrors serviceAccountName, and a negative grace period
// becomes 1.
func convertPod(obj object.Object) {
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		return
	}
	convertPodSpec(spec)
	if n, ok := spec["terminationGracePeriodSeconds"].(json.Number); ok && len(n) > 0 && n[0] == '-' {
		spec["terminationGracePeriodSeconds"] = json.Number("1")
	}
}

// qosClass is the Pod's quality of service class (qos.GetPodQOS): BestEffort
// with no CPU or memory requested or limited, Guaranteed when every container
// has both limited and requests what it limits, Burstable otherwise. (kube sums
// the containers' quantities; as a valid Pod requests no more than it
// limits, comparing them container by container is the same.)
func qosClass(spec map[string]any) string {
	guaranteed, some := true, false
	for _, list := range []string{"containers", "initContainers"} {
		containers, _ := spec[list].([]any)
		for _, c := range containers {
			res, _ := object.Path(c, "resources").(map[string]any)
			requests, limits := object.StringMap(res, "requests"), object.StringMap(res, "limits")
			for _, r := range []string{"cpu", "memory"} {
				requested, limited := quantity.Compare(requests[r], "0") > 0, quantity.Compare(limits[r], "0") > 0
				some = some || requested || limited
				if !limited || quantity.Compare(requests[r], limits[r]) != 0 {
					guaranteed = false
				}
			}
		}
	}
	switch {
	case !some:
		return "BestEffort"
	case guaranteed:
		return "Guaranteed"
	}
	return "Burstable"
}

// podGracePeriod is kube's CheckGracefulDelete for Pods: the requested period,
// else the Pod's terminationGracePeriodSeconds (30 by default); none for a
// Pod that was never scheduled or has finished.
func podGracePeriod(obj object.Object, requested *int64) int64 {
	var period int64
	switch spec, _ := obj["spec"].(map[string]any); {
	case requested != nil:
		period = *requested
	case spec["terminationGracePeriodSeconds"] != nil:
		period = object.Int(spec["terminationGracePeriodSeconds"])
	}
	if object.Path(obj, "spec", "nodeName") == nil || object.Path(obj, "spec", "nodeName") == "" {
		period = 0
	}
	if phase := object.Path(obj, "status", "phase"); phase == "Failed" || phase == "Succeeded" {
		period = 0
	}
	if period < 0 {
		period = 1
	}
	return period
}

// admitPod is what kube's admission chain does to a Pod written that needs
// nothing else stored: the DefaultTolerationSeconds plugin's tolerations.
// (The ServiceAccount plugin reads the accounts stored: core/admission; the
// Priority and RuntimeClass plugins the classes: core/registry.)
func admitPod(_ string, obj, _ object.Object) error {
	defaultTolerations(object.Child(obj, "spec"))
	return nil
}

// defaultTolerationSeconds is how long kube's DefaultTolerationSeconds
// admission lets a Pod stay on a node that is not ready or unreachable.
const defaultTolerationSeconds = 300

// defaultTolerations is kube's DefaultTolerationSeconds admission: a Pod
// that does not tolerate a not-ready or unreachable node gets to for five
// minutes.
func defaultTolerations(spec map[string]any) {
	tolerations, _ := spec["tolerations"].([]any)
	for _, key := range []string{"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"} {
		tolerated := false
		for _, tol := range tolerations {
			m, _ := tol.(map[string]any)
			k, _ := m["key"].(string)
			effect, _ := m["effect"].(string)
			tolerated = tolerated || (k == key || k == "") && (effect == "NoExecute" || effect == "")
		}
		if !tolerated {
			tolerations = append(tolerations, map[string]any{"key": key, "operator": "Exists", "effect": "NoExecute",
				"tolerationSeconds": json.Number(fmt.Sprint(defaultTolerationSeconds))})
		}
	}
	spec["tolerations"] = tolerations
}

package registry

import (
	"encoding/json"
	"fmt"

	"kubeplay/core/apierrors"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/quantity"
	"kubeplay/core/validation"
)

// podStrategy: a Pod starts Pending with its QoS class, is checked by the Pod
// rules, and may change little once created.
type podStrategy struct{ resourceStrategy }

// Canonicalize adds to the defaults what kube's conversion of a Pod does: the
// deprecated serviceAccount mirrors serviceAccountName, and a negative grace
// period becomes 1.
func (s podStrategy) Canonicalize(obj object.Object) {
	s.resourceStrategy.Canonicalize(obj)
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		return
	}
	convertPodSpec(spec)
	if n, ok := spec["terminationGracePeriodSeconds"].(json.Number); ok && len(n) > 0 && n[0] == '-' {
		spec["terminationGracePeriodSeconds"] = json.Number("1")
	}
}

// convertPodSpec is what kube's conversion of a PodSpec (a Pod's or a
// template's) shows: serviceAccount, the deprecated name of
// serviceAccountName, is read when serviceAccountName is empty and written
// back as serviceAccountName.
func convertPodSpec(spec map[string]any) {
	name, _ := spec["serviceAccountName"].(string)
	if name == "" {
		name, _ = spec["serviceAccount"].(string)
	}
	if name == "" {
		delete(spec, "serviceAccountName")
		delete(spec, "serviceAccount")
		return
	}
	spec["serviceAccountName"], spec["serviceAccount"] = name, name
}

// PrepareForCreate: a new Pod's status is Pending, with its QoS class.
func (podStrategy) PrepareForCreate(obj object.Object) {
	spec, _ := obj["spec"].(map[string]any)
	obj["status"] = map[string]any{"phase": "Pending", "qosClass": qosClass(spec)}
}

func (podStrategy) Validate(obj object.Object) field.ErrorList { return validation.Pod(obj) }

// PrepareForUpdate: a binding writes what it computed (node, condition).
func (s podStrategy) PrepareForUpdate(obj, old object.Object, sub string) object.Object {
	if sub == "binding" {
		return obj
	}
	return s.resourceStrategy.PrepareForUpdate(obj, old, sub)
}

func (podStrategy) ValidateUpdate(obj, old object.Object, sub string) field.ErrorList {
	if sub != "" {
		return nil
	}
	return validation.PodUpdate(obj, old)
}

// GracePeriod is kube's CheckGracefulDelete for Pods: the requested period,
// else the Pod's terminationGracePeriodSeconds (30 by default); none for a
// Pod that was never scheduled or has finished.
func (podStrategy) GracePeriod(obj object.Object, requested *int64) (int64, bool) {
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
	return period, true
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

// isPod says whether a write is to a Pod itself (no subresource).
func isPod(t Target) bool { return t.Res.Group == "" && t.Res.Plural == "pods" && t.Sub == "" }

// serviceAccountAdmission is what clients see of kube's ServiceAccount
// admission: a new Pod without a service account runs as "default". (kube
// also refuses a Pod whose account does not exist and mounts the account's
// token; kubeplay has no token controller yet.)
type serviceAccountAdmission struct{}

func (serviceAccountAdmission) Admit(op Operation, t Target, obj, _ object.Object) error {
	if op != Create || !isPod(t) {
		return nil
	}
	spec := object.Child(obj, "spec")
	if name, _ := spec["serviceAccountName"].(string); name == "" {
		spec["serviceAccountName"], spec["serviceAccount"] = "default", "default"
	}
	return nil
}

// systemPriorityClasses are the PriorityClasses every cluster has.
var systemPriorityClasses = map[string]int64{"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}

// priorityAdmission is kube's Priority admission: a new Pod's priority is its
// PriorityClass's (0 without one, as there is no global default class), and
// it preempts lower priorities; an update keeps them.
type priorityAdmission struct{}

func (priorityAdmission) Admit(op Operation, t Target, obj, old object.Object) error {
	if !isPod(t) || op == Delete {
		return nil
	}
	spec := object.Child(obj, "spec")
	if op == Update {
		oldSpec, _ := old["spec"].(map[string]any)
		for _, f := range []string{"priority", "preemptionPolicy"} {
			if spec[f] == nil && oldSpec[f] != nil {
				spec[f] = oldSpec[f]
			}
		}
		return nil
	}
	var priority int64
	if name, _ := spec["priorityClassName"].(string); name != "" {
		p, ok := systemPriorityClasses[name]
		if !ok {
			return apierrors.NewForbidden("", "pods", t.Name, fmt.Sprintf("no PriorityClass with name %s was found", name))
		}
		priority = p
	}
	if given, ok := spec["priority"]; ok && given != nil && fmt.Sprint(given) != fmt.Sprint(priority) {
		return apierrors.NewForbidden("", "pods", t.Name, fmt.Sprintf("the integer value of priority (%v) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", given, priority))
	}
	spec["priority"] = json.Number(fmt.Sprint(priority))
	if given, _ := spec["preemptionPolicy"].(string); given != "" && given != "PreemptLowerPriority" {
		return apierrors.NewForbidden("", "pods", t.Name, fmt.Sprintf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name", given))
	}
	spec["preemptionPolicy"] = "PreemptLowerPriority"
	return nil
}

// defaultTolerationSeconds is how long kube's DefaultTolerationSeconds
// admission lets a Pod stay on a node that is not ready or unreachable.
const defaultTolerationSeconds = 300

// tolerationAdmission is kube's DefaultTolerationSeconds admission: a Pod
// that does not tolerate a not-ready or unreachable node gets to for five
// minutes.
type tolerationAdmission struct{}

func (tolerationAdmission) Admit(op Operation, t Target, obj, _ object.Object) error {
	if op == Delete || !isPod(t) {
		return nil
	}
	spec := object.Child(obj, "spec")
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
	return nil
}

// nodeTaintAdmission is kube's TaintNodesByCondition admission: a new Node is
// tainted not-ready until its kubelet says otherwise.
type nodeTaintAdmission struct{}

func (nodeTaintAdmission) Admit(op Operation, t Target, obj, _ object.Object) error {
	if op != Create || t.Res.Group != "" || t.Res.Plural != "nodes" || t.Sub != "" {
		return nil
	}
	spec := object.Child(obj, "spec")
	taints, _ := spec["taints"].([]any)
	for _, taint := range taints {
		if m, _ := taint.(map[string]any); m["key"] == "node.kubernetes.io/not-ready" && m["effect"] == "NoSchedule" {
			return nil
		}
	}
	spec["taints"] = append(taints, map[string]any{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"})
	return nil
}

// WarningsOnCreate: a name that is no DNS label is warned of, as it is the
// Pod's hostname.
func (podStrategy) WarningsOnCreate(obj object.Object) []string {
	return dnsLabelWarning(obj, "the Pod's hostname")
}

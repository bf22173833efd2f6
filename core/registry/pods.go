package registry

import (
	"encoding/json"
	"fmt"

	"kubeplay/core/apierrors"
	"kubeplay/core/object"
)

// The admission plugins of kube's chain that judge Pods and Nodes (the Pod's
// strategy is its descriptor's, core/kinds).

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

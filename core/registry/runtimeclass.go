package registry

import (
	"fmt"
	"sort"

	"kubeplay/core/apierrors"
	"kubeplay/core/object"
	"kubeplay/core/quantity"
)

// runtimeClassAdmission is kube's RuntimeClass admission: a new Pod that
// names a RuntimeClass must name one that exists, and gets its overhead,
// its node selector and its tolerations (its validating half is
// runtimeClassOverhead).
type runtimeClassAdmission struct{ store *Store }

func (a runtimeClassAdmission) Admit(op Operation, t Target, obj, _ object.Object) error {
	if op != Create || !isPod(t) {
		return nil
	}
	spec, pod := object.Child(obj, "spec"), admissionName(obj)
	var class object.Object
	if name, ok := spec["runtimeClassName"].(string); ok {
		class = a.store.clusterObject(a.store.schema.Lookup("node.k8s.io", "v1", "runtimeclasses"), name)
		if class == nil {
			return apierrors.NewForbidden("", "pods", pod, fmt.Sprintf("pod rejected: RuntimeClass %q not found", name))
		}
	}
	overhead, hasOverhead := object.Path(class, "overhead", "podFixed").(map[string]any)
	podOverhead, _ := spec["overhead"].(map[string]any)
	switch {
	case hasOverhead && len(podOverhead) > 0 && !sameResources(overhead, podOverhead):
		return apierrors.NewForbidden("", "pods", pod, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
	case hasOverhead:
		spec["overhead"] = object.DeepCopyValue(overhead)
	}
	scheduling, ok := class["scheduling"].(map[string]any)
	if !ok {
		return nil
	}
	if selector, ok := scheduling["nodeSelector"].(map[string]any); ok {
		podSelector, ok := spec["nodeSelector"].(map[string]any)
		if !ok {
			podSelector = map[string]any{}
		}
		keys := make([]string, 0, len(selector))
		for k := range selector {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if v, ok := podSelector[k]; ok && v != selector[k] {
				return apierrors.NewForbidden("", "pods", pod, fmt.Sprintf("conflict: runtimeClass.scheduling.nodeSelector[%s] = %v; pod.spec.nodeSelector[%s] = %v", k, selector[k], k, v))
			}
			podSelector[k] = selector[k]
		}
		spec["nodeSelector"] = podSelector
	}
	podTolerations, _ := spec["tolerations"].([]any)
	classTolerations, _ := object.DeepCopyValue(scheduling["tolerations"]).([]any)
	if merged := mergeTolerations(append(podTolerations, classTolerations...)); len(merged) > 0 {
		spec["tolerations"] = merged
	}
	return nil
}

// runtimeClassOverhead is the validating half of kube's RuntimeClass
// admission: a new Pod has an overhead only when its class has one (and
// then the class's, which the admission gave it).
type runtimeClassOverhead struct{ runtimeClassAdmission }

func (a runtimeClassOverhead) Admit(op Operation, t Target, obj, _ object.Object) error {
	if op != Create || !isPod(t) || object.Path(obj, "spec", "overhead") == nil {
		return nil
	}
	if name, ok := object.Path(obj, "spec", "runtimeClassName").(string); ok {
		class := a.store.clusterObject(a.store.schema.Lookup("node.k8s.io", "v1", "runtimeclasses"), name)
		if object.Path(class, "overhead", "podFixed") != nil {
			return nil
		}
	}
	return apierrors.NewForbidden("", "pods", object.MetaString(obj, "name"), "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead")
}

// sameResources says whether two resource lists hold the same quantities.
func sameResources(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || quantity.Compare(fmt.Sprint(v), fmt.Sprint(w)) != 0 {
			return false
		}
	}
	return true
}

// mergeTolerations is kube's MergeTolerations of the Pod's tolerations and
// then the class's: each kept unless one kept before it, or a different
// one after it, tolerates all it does.
func mergeTolerations(all []any) []any {
	var merged []any
next:
	for i, t := range all {
		for _, kept := range merged {
			if tolerates(kept, t) {
				continue next
			}
		}
		for _, later := range all[i+1:] {
			if !object.Equal(t, later) && tolerates(later, t) {
				continue next
			}
		}
		merged = append(merged, t)
	}
	return merged
}

// tolerates is kube's isSuperset: whether toleration ss tolerates every
// taint t does.
func tolerates(ss, t any) bool {
	if object.Equal(ss, t) {
		return true
	}
	s, tt := ss.(map[string]any), t.(map[string]any)
	str := func(m map[string]any, k string) string { v, _ := m[k].(string); return v }
	if str(tt, "key") != str(s, "key") && (str(s, "key") != "" || str(s, "operator") != "Exists") {
		return false
	}
	if str(tt, "effect") != str(s, "effect") && str(s, "effect") != "" {
		return false
	}
	if str(s, "effect") == "NoExecute" && s["tolerationSeconds"] != nil {
		if tt["tolerationSeconds"] == nil || object.Int(tt["tolerationSeconds"]) > object.Int(s["tolerationSeconds"]) {
			return false
		}
	}
	switch str(s, "operator") {
	case "Equal", "":
		return str(tt, "operator") == "Equal" && str(tt, "value") == str(s, "value")
	case "Exists":
		return true
	}
	return false
}

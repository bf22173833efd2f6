package kinds

import (
	"fmt"

	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/selector"
	"kubeplay/core/validation"
)

// What the kinds that run Pods share: kube's conversion of a PodSpec, the
// workloads' pod templates, and the warning of a name that is no DNS label.

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

// convertTemplate is what kube's conversion of a workload does: its
// template's spec as a Pod's, and a StatefulSet's claim templates named as
// PersistentVolumeClaims (as kube has since 1.17 kept doing).
func convertTemplate(obj object.Object) {
	if spec, ok := object.Path(obj, "spec", "template", "spec").(map[string]any); ok {
		convertPodSpec(spec)
	}
	spec, _ := obj["spec"].(map[string]any)
	for _, claim := range object.Objects(spec, "volumeClaimTemplates") {
		claim["apiVersion"], claim["kind"] = "v1", "PersistentVolumeClaim"
	}
}

// dnsLabelWarning is kube's warning of a name that is no DNS label, used in
// where: none when it is one.
func dnsLabelWarning(obj object.Object, where string) []string {
	if msgs := validation.DNS1123Label(object.MetaString(obj, "name")); len(msgs) > 0 {
		return []string{fmt.Sprintf("metadata.name: this is used in %s, which can result in surprising behavior; a DNS label is recommended: %v", where, msgs)}
	}
	return nil
}

// podNameWarning warns of a workload's name that is no DNS label: its Pods
// are named after it.
func podNameWarning(obj object.Object) []string {
	return dnsLabelWarning(obj, "Pod names and hostnames")
}

// specUpdate is a workload's update check: the kind's rules check a write
// to the workload itself, not its subresources' (kube's status and scale
// strategies check no spec).
func specUpdate(check func(obj, old object.Object) field.ErrorList) func(obj, old object.Object, sub string) field.ErrorList {
	return func(obj, old object.Object, sub string) field.ErrorList {
		if sub != "" {
			return nil
		}
		return check(obj, old)
	}
}

// labelSelectorScale is the selector a workload's Scale shows: its
// spec.selector, a LabelSelector, as a string.
func labelSelectorScale(obj object.Object) string {
	sel, _ := object.Path(obj, "spec", "selector").(map[string]any)
	s, _ := selector.FormatLabelSelector(sel)
	return s
}

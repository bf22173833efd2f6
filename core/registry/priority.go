package registry

import (
	"encoding/json"
	"fmt"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// kube's Priority admission, which judges Pods by the PriorityClasses stored
// (what a Pod's own admission does is its descriptor's, core/kinds), and the
// system PriorityClasses kube-apiserver creates.

// isPod says whether a write is to a Pod itself (no subresource).
func isPod(t Target) bool { return t.Res.Group == "" && t.Res.Plural == "pods" && t.Sub == "" }

// priorityAdmission is kube's Priority admission: a new Pod's priority and
// preemption policy are its PriorityClass's, or the global default class's
// (priority 0 when there is none), and an update keeps them. (Its
// validating half is priorityClassDefault; kube's PriorityClass storage
// refuses deleting a system class, but for in a deletecollection, which is
// here too.)
type priorityAdmission struct{ store *Store }

func isPriorityClass(t Target) bool {
	return t.Res.Group == "scheduling.k8s.io" && t.Res.Plural == "priorityclasses" && t.Sub == ""
}

func (a priorityAdmission) Admit(op Operation, t Target, obj, old object.Object) error {
	switch {
	case op == Delete && isPriorityClass(t) && !t.inCollection:
		for _, c := range validation.SystemPriorityClasses {
			if c.Name == t.Name {
				return apierrors.NewForbidden("scheduling.k8s.io", "priorityclasses", t.Name, "this is a system priority class and cannot be deleted")
			}
		}
		return nil
	case op == Delete || !isPod(t):
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
	pod := admissionName(obj)
	var class object.Object
	if name, _ := spec["priorityClassName"].(string); name != "" {
		if class = a.class(name); class == nil {
			return apierrors.NewForbidden("", "pods", pod, fmt.Sprintf("no PriorityClass with name %s was found", name))
		}
	} else if class = a.defaultClass(); class != nil {
		spec["priorityClassName"] = object.MetaString(class, "name")
	}
	priority, policy := int64(0), "PreemptLowerPriority"
	if class != nil {
		priority = object.Int(class["value"])
		policy, _ = class["preemptionPolicy"].(string)
	}
	if given, ok := spec["priority"]; ok && given != nil && fmt.Sprint(given) != fmt.Sprint(priority) {
		return apierrors.NewForbidden("", "pods", pod, fmt.Sprintf("the integer value of priority (%v) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", given, priority))
	}
	spec["priority"] = json.Number(fmt.Sprint(priority))
	if policy == "" {
		return nil
	}
	if given, _ := spec["preemptionPolicy"].(string); given != "" && given != policy {
		return apierrors.NewForbidden("", "pods", pod, fmt.Sprintf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", given, policy))
	}
	spec["preemptionPolicy"] = policy
	return nil
}

// priorityClassDefault is the validating half of kube's Priority
// admission: at most one PriorityClass is the global default.
type priorityClassDefault struct{ priorityAdmission }

func (a priorityClassDefault) Admit(op Operation, t Target, pc, _ object.Object) error {
	if op == Delete || !isPriorityClass(t) || pc["globalDefault"] != true {
		return nil
	}
	if def := a.defaultClass(); def != nil && (op == Create || object.MetaString(def, "name") != t.Name) {
		return apierrors.NewForbidden("scheduling.k8s.io", "priorityclasses", t.Name, fmt.Sprintf("PriorityClass %s is already marked as default. Only one default can exist", object.MetaString(def, "name")))
	}
	return nil
}

// priorityClasses is the served PriorityClass resource, or nil.
func (a priorityAdmission) priorityClasses() *api.Resource {
	return a.store.schema.Lookup("scheduling.k8s.io", "v1", "priorityclasses")
}

// class is the stored PriorityClass name, or nil.
func (a priorityAdmission) class(name string) object.Object {
	return a.store.clusterObject(a.priorityClasses(), name)
}

// clusterObject is the stored object name of res, a cluster-scoped
// resource that may not be served (nil), or nil.
func (s *Store) clusterObject(res *api.Resource, name string) object.Object {
	if res == nil {
		return nil
	}
	stored, ok := s.Current(res, "", name)
	if !ok {
		return nil
	}
	obj, err := object.Decode(stored)
	if err != nil {
		return nil
	}
	return obj
}

// defaultClass is the global default PriorityClass (of the lowest value,
// should a race have made several), or nil.
func (a priorityAdmission) defaultClass() object.Object {
	res := a.priorityClasses()
	if res == nil {
		return nil
	}
	var best object.Object
	for _, pc := range a.store.Decoded(res) {
		if pc["globalDefault"] != true {
			continue
		}
		if best == nil || object.Int(pc["value"]) < object.Int(best["value"]) {
			best = pc
		}
	}
	return best
}

// CreateSystemPriorityClasses creates kube's system PriorityClasses that
// are missing, as kube-apiserver's bootstrap does when it starts.
func (s *Store) CreateSystemPriorityClasses() error {
	res := priorityAdmission{s}.priorityClasses()
	if res == nil {
		return nil
	}
	for _, c := range validation.SystemPriorityClasses {
		if _, ok := s.Current(res, "", c.Name); ok {
			continue
		}
		obj := object.Object{"metadata": map[string]any{"name": c.Name}, "value": json.Number(fmt.Sprint(c.Value)), "description": c.Description}
		if _, err := s.Create(Target{Res: res, Manager: "kube-apiserver"}, obj); err != nil && !apierrors.HasCode(err, 409) {
			return err
		}
	}
	return nil
}

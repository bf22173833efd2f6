package registry

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/selector"
	"kubeplay/core/storage"
	"kubeplay/core/web"
)

// A Pod's binding and eviction subresources, as kube's pod storage has them:
// creating a Binding assigns the Pod to a node (the scheduler's write);
// creating an Eviction deletes the Pod unless a PodDisruptionBudget forbids
// it. Both answer kube's Status Success, 201.

// CreateSubresource is a create on t's subresource (binding, eviction) with
// its object, answered with kube's Status (sent with its code).
func (s *Store) CreateSubresource(t Target, obj object.Object) (*apierrors.Status, error) {
	kind := t.Res.Sub(t.Sub).Kind
	if name := object.MetaString(obj, "name"); name != t.Name {
		return nil, apierrors.NewBadRequest("name in URL does not match name in " + kind + " object")
	}
	if t.Sub == "eviction" {
		return s.evict(t, obj)
	}
	if err := s.bind(t, obj); err != nil {
		return nil, err
	}
	return createdStatus(), nil
}

// createdStatus is the Status of a subresource create that did what it asked.
func createdStatus() *apierrors.Status {
	st := apierrors.Success(nil)
	st.Code = web.StatusCreated
	return st
}

// What a refused eviction says, as kube's eviction REST says it.
const (
	evictionRefused    = "Cannot evict pod as it would violate the pod's disruption budget."
	evictionRetryAfter = 10
	// maxDisruptedPods is kube's MaxDisruptedPodSize: past it, evictions
	// the disruption controller has not yet seen through are too many.
	maxDisruptedPods = 2000
	// evictionRetries is how often an eviction reads a Pod that changed
	// again (kube's EvictionsRetry steps).
	evictionRetries = 20
)

// evict evicts the Pod as kube's EvictionREST does: a Pod that has not
// started or has finished or is being deleted is deleted at once (a pending
// one only as it was read); else the one PodDisruptionBudget that selects it
// must allow a disruption, which it uses up (recorded in its status's
// disruptedPods), unless the Pod is not ready and the budget is met (or its
// unhealthyPodEvictionPolicy is AlwaysAllow), when the Pod goes as it was
// read and the budget is left alone. The Pod gets the DisruptionTarget
// condition before it is deleted with the eviction's deleteOptions.
func (s *Store) evict(t Target, eviction object.Object) (*apierrors.Status, error) {
	var opts DeleteOptions
	if o, ok := eviction["deleteOptions"]; ok && o != nil {
		b, _ := json.Marshal(o)
		if err := json.Unmarshal(b, &opts); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
	}
	if opts.forceDelete() {
		return nil, apierrors.NewInvalid("policy", "Eviction", t.Name, field.ErrorList{field.Invalid(field.NewPath("deleteOptions", "ignoreStoreReadErrorWithClusterBreakingPotential"),
			true, "can not be set for pod eviction, try after removing the option")})
	}
	switch {
	case t.DryRun && len(opts.DryRun) > 0 && !slices.Equal(opts.DryRun, []string{"All"}):
		return nil, apierrors.NewInternal(fmt.Errorf("Non-matching dry-run options in request and content: [All] and %v", opts.DryRun))
	case t.DryRun:
		opts.DryRun = []string{"All"}
	}
	pod := t
	pod.Sub, pod.DryRun = "", len(opts.DryRun) > 0
	rvUnset := opts.Preconditions == nil || opts.Preconditions.ResourceVersion == nil
	var obj object.Object
	for try := 0; ; try++ {
		var err error
		if obj, err = s.readPod(pod); err != nil {
			return nil, err
		}
		phase := object.Path(obj, "status", "phase")
		deleting := object.Meta(obj)["deletionTimestamp"] != nil
		if phase != "Succeeded" && phase != "Failed" && phase != "Pending" && !deleting {
			break
		}
		o := opts
		if phase == "Pending" && !deleting && rvUnset {
			o = withVersion(opts, object.MetaString(obj, "resourceVersion"))
		}
		err = s.disruptAndDelete(pod, o)
		switch {
		case err == nil:
			return createdStatus(), nil
		case !rvUnset || !apierrors.HasCode(err, web.StatusConflict) || try == evictionRetries-1:
			return nil, err
		}
	}

	pdbs := s.budgetsOf(t.Namespace, object.Labels(obj))
	if len(pdbs) > 1 {
		return &apierrors.Status{Kind: "Status", APIVersion: "v1", Status: "Failure", Code: web.StatusInternalServerError,
			Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."}, nil
	}
	asRead := false // the Pod goes only as it was read
	if len(pdbs) == 1 {
		pdb := pdbs[0]
		status, _ := pdb["status"].(map[string]any)
		if !podReady(obj) {
			policy := object.Path(pdb, "spec", "unhealthyPodEvictionPolicy")
			desired := object.Int(status["desiredHealthy"])
			asRead = policy == "AlwaysAllow" || object.Int(status["currentHealthy"]) >= desired && desired > 0
		}
		if !asRead {
			if err := s.useDisruption(t, pdb, pod.DryRun); err != nil {
				return nil, err
			}
		}
	}
	o := opts
	if asRead {
		o = withVersion(opts, object.MetaString(obj, "resourceVersion"))
	}
	if err := s.disruptAndDelete(pod, o); err != nil {
		if asRead && rvUnset && apierrors.HasCode(err, web.StatusConflict) {
			return nil, stillProcessed(object.MetaString(pdbs[0], "name"))
		}
		return nil, err
	}
	return createdStatus(), nil
}

// readPod is the Pod t names.
func (s *Store) readPod(t Target) (object.Object, error) {
	return s.currentObject("", "pods", t.Namespace, t.Name)
}

// withVersion is opts with the resourceVersion precondition rv.
func withVersion(opts DeleteOptions, rv string) DeleteOptions {
	p := Preconditions{ResourceVersion: &rv}
	if opts.Preconditions != nil {
		p.UID = opts.Preconditions.UID
	}
	opts.Preconditions = &p
	return opts
}

// disruptAndDelete is kube's addConditionAndDeletePod: unless a dry run, the
// Pod (as the preconditions want it) gets the DisruptionTarget condition,
// then it is deleted with opts (its resourceVersion precondition moved on
// to the Pod as the condition left it).
func (s *Store) disruptAndDelete(pod Target, opts DeleteOptions) error {
	if !pod.DryRun {
		st := pod
		st.Sub = "status"
		stored, _, err := s.update(st, func(old object.Object) (object.Object, error) {
			if old == nil {
				return nil, apierrors.NewNotFound("", "pods", pod.Name)
			}
			if p := opts.Preconditions; p != nil {
				if uid := object.MetaString(old, "uid"); p.UID != nil && *p.UID != "" && *p.UID != uid {
					return nil, apierrors.NewConflict("", "Pod", pod.Name, fmt.Sprintf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, uid))
				}
				if rv := object.MetaString(old, "resourceVersion"); p.ResourceVersion != nil && *p.ResourceVersion != "" && *p.ResourceVersion != rv {
					return nil, apierrors.NewConflict("", "Pod", pod.Name, fmt.Sprintf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, rv))
				}
			}
			next := object.DeepCopy(old)
			setPodCondition(next, map[string]any{"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI", "message": "Eviction API: evicting"}, s.clock.Now())
			return next, nil
		})
		if err != nil {
			return err
		}
		if opts.Preconditions != nil && opts.Preconditions.ResourceVersion != nil {
			next, err := object.Decode(stored)
			if err != nil {
				return apierrors.NewInternal(err)
			}
			opts = withVersion(opts, object.MetaString(next, "resourceVersion"))
		}
	}
	_, err := s.Delete(pod, opts)
	return err
}

// setPodCondition is kube's UpdatePodCondition: the condition replaces the
// Pod's of its type, keeping its lastTransitionTime while its status stays.
func setPodCondition(pod object.Object, c map[string]any, now time.Time) {
	c["lastProbeTime"], c["lastTransitionTime"] = nil, object.Timestamp(now)
	status := object.Child(pod, "status")
	conds, _ := status["conditions"].([]any)
	for i, old := range conds {
		if m, ok := old.(map[string]any); ok && m["type"] == c["type"] {
			if m["status"] == c["status"] {
				c["lastTransitionTime"] = m["lastTransitionTime"]
			}
			conds[i] = c
			return
		}
	}
	status["conditions"] = append(conds, c)
}

// budgetsOf are the PodDisruptionBudgets of namespace whose selector
// matches labels (an empty one matches every Pod, none matches none).
func (s *Store) budgetsOf(namespace string, labels map[string]string) []object.Object {
	res := s.schema.Lookup("policy", "v1", "poddisruptionbudgets")
	if res == nil {
		return nil
	}
	l, err := s.storage.List(storage.ListOptions{Prefix: collectionPrefix(res, namespace)})
	if err != nil {
		return nil
	}
	var out []object.Object
	for _, it := range l.Items {
		pdb, err := object.Decode([]byte(it.Value))
		if err != nil {
			continue
		}
		sel, ok := object.Path(pdb, "spec", "selector").(map[string]any)
		if !ok {
			continue
		}
		text, ok := selector.FormatLabelSelector(sel)
		if m, err := selector.ParseLabels(text); ok && err == nil && m.Matches(labels) {
			out = append(out, pdb)
		}
	}
	return out
}

// stillProcessed is the 429 of a budget whose status the disruption
// controller has yet to bring up to date.
func stillProcessed(name string) error {
	return apierrors.New(web.StatusTooManyRequests, "TooManyRequests", evictionRefused, &apierrors.StatusDetails{
		RetryAfterSeconds: evictionRetryAfter,
		Causes:            []apierrors.StatusCause{{Type: "DisruptionBudget", Message: fmt.Sprintf("The disruption budget %s is still being processed by the server.", name)}}})
}

// useDisruption is kube's checkAndDecrement: it takes one allowed
// disruption from the budget and records the Pod as disrupted (on a dry run,
// only checks that it could), or refuses as kube does: 429 while the
// budget's status is not current or allows nothing, 403 when it is broken.
func (s *Store) useDisruption(t Target, pdb object.Object, dryRun bool) error {
	name := object.MetaString(pdb, "name")
	decrement := func(old object.Object) (object.Object, error) {
		if old == nil {
			return nil, apierrors.NewNotFound("policy", "poddisruptionbudgets", name)
		}
		status, _ := old["status"].(map[string]any)
		allowed := object.Int(status["disruptionsAllowed"])
		disrupted, _ := status["disruptedPods"].(map[string]any)
		switch {
		case object.Int(status["observedGeneration"]) < object.Int(object.Meta(old)["generation"]):
			return nil, stillProcessed(name)
		case allowed < 0:
			return nil, apierrors.NewForbidden("policy", "poddisruptionbudget", name, "pdb disruptions allowed is negative")
		case len(disrupted) > maxDisruptedPods:
			return nil, apierrors.NewForbidden("policy", "poddisruptionbudget", name, "DisruptedPods map too big - too many evictions not confirmed by PDB controller")
		case allowed == 0:
			return nil, apierrors.New(web.StatusTooManyRequests, "TooManyRequests", evictionRefused, &apierrors.StatusDetails{
				Causes: []apierrors.StatusCause{{Type: "DisruptionBudget", Message: fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently",
					name, object.Int(status["desiredHealthy"]), object.Int(status["currentHealthy"]))}}})
		}
		next := object.DeepCopy(old)
		st := object.Child(next, "status")
		st["disruptionsAllowed"] = allowed - 1
		if allowed == 1 {
			setInsufficientPods(st, s.clock.Now())
		}
		pods, _ := st["disruptedPods"].(map[string]any)
		if pods == nil {
			pods = map[string]any{}
			st["disruptedPods"] = pods
		}
		pods[t.Name] = object.Timestamp(s.clock.Now())
		return next, nil
	}
	if dryRun {
		_, err := decrement(pdb)
		return err
	}
	_, _, err := s.update(Target{Res: s.schema.Lookup("policy", "v1", "poddisruptionbudgets"), Namespace: t.Namespace, Name: name, Sub: "status", Manager: "kube-apiserver", User: t.User, Committed: t.Committed}, decrement)
	return err
}

// setInsufficientPods is kube's UpdateDisruptionAllowedCondition for a
// budget that allows no more disruptions: its DisruptionAllowed condition
// False for InsufficientPods.
func setInsufficientPods(status map[string]any, now time.Time) {
	c := map[string]any{"type": "DisruptionAllowed", "status": "False", "reason": "InsufficientPods", "message": "",
		"observedGeneration": status["observedGeneration"], "lastTransitionTime": object.Timestamp(now)}
	conds, _ := status["conditions"].([]any)
	for i, old := range conds {
		if m, ok := old.(map[string]any); ok && m["type"] == "DisruptionAllowed" {
			if m["status"] == "False" {
				c["lastTransitionTime"] = m["lastTransitionTime"]
			}
			conds[i] = c
			return
		}
	}
	status["conditions"] = append(conds, c)
}

// podReady says whether the pod's Ready condition is True.
func podReady(pod object.Object) bool {
	conds, _ := object.Path(pod, "status", "conditions").([]any)
	for _, c := range conds {
		if object.Path(c, "type") == "Ready" {
			return object.Path(c, "status") == "True"
		}
	}
	return false
}

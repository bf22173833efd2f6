package registry

import (
	"encoding/json"
	"fmt"

	"kubeplay/core/apierrors"
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
// its object, answered with kube's Status.
func (s *Store) CreateSubresource(t Target, obj object.Object) (*apierrors.Status, error) {
	kind := t.Res.Sub(t.Sub).Kind
	if name := object.MetaString(obj, "name"); name != t.Name {
		return nil, apierrors.NewBadRequest("name in URL does not match name in " + kind + " object")
	}
	var err error
	switch t.Sub {
	case "binding":
		err = s.bind(t, obj)
	case "eviction":
		err = s.evict(t, obj)
	}
	if err != nil {
		return nil, err
	}
	st := apierrors.Success(nil)
	st.Code = web.StatusCreated
	return st, nil
}

// Messages of a refused eviction.
const (
	evictionRefused    = "Cannot evict pod as it would violate the pod's disruption budget."
	evictionRetryAfter = 10
)

// evict deletes the Pod as kube's eviction does: at once when it has not
// started or has finished or is being deleted, or when no
// PodDisruptionBudget selects it; else only when its budget (the one that
// selects it, as the disruption controller last wrote its status) allows a
// disruption, which the eviction then uses up.
func (s *Store) evict(t Target, eviction object.Object) error {
	var opts DeleteOptions
	if o, ok := eviction["deleteOptions"]; ok {
		b, _ := json.Marshal(o)
		if err := json.Unmarshal(b, &opts); err != nil {
			return apierrors.NewBadRequest(err.Error())
		}
	}
	pod := t
	pod.Sub = ""
	cur, ok := s.storage.Get(pod.key())
	if !ok {
		return apierrors.NewNotFound("", "pods", t.Name)
	}
	obj, err := object.Decode(cur)
	if err != nil {
		return apierrors.NewInternal(err)
	}
	phase := object.Path(obj, "status", "phase")
	if phase == "Succeeded" || phase == "Failed" || phase == "Pending" || object.Meta(obj)["deletionTimestamp"] != nil {
		_, err := s.Delete(pod, opts)
		return err
	}
	pdbs := s.budgetsOf(t.Namespace, object.Labels(obj))
	switch {
	case len(pdbs) > 1:
		return apierrors.NewInternal(fmt.Errorf("This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."))
	case len(pdbs) == 1:
		if err := s.useDisruption(t, pdbs[0], obj); err != nil {
			return err
		}
	}
	_, err = s.Delete(pod, opts)
	return err
}

// budgetsOf are the PodDisruptionBudgets of namespace whose selector
// matches labels.
func (s *Store) budgetsOf(namespace string, labels map[string]string) []Target {
	res := s.schema.Lookup("policy", "v1", "poddisruptionbudgets")
	if res == nil {
		return nil
	}
	l, err := s.storage.List(storage.ListOptions{Prefix: collectionPrefix(res, namespace)})
	if err != nil {
		return nil
	}
	var out []Target
	for _, it := range l.Items {
		pdb, err := object.Decode([]byte(it.Value))
		if err != nil {
			continue
		}
		sel, _ := object.Path(pdb, "spec", "selector").(map[string]any)
		text, ok := selector.FormatLabelSelector(sel)
		if m, err := selector.ParseLabels(text); ok && err == nil && !m.Empty() && m.Matches(labels) {
			out = append(out, Target{Res: res, Namespace: namespace, Name: object.MetaString(pdb, "name"), Sub: "status"})
		}
	}
	return out
}

// useDisruption takes one allowed disruption from the budget for pod, or
// answers kube's 429 when there is none (or its status is not current).
func (s *Store) useDisruption(t Target, pdb Target, pod object.Object) error {
	refuse := func(why string, retry bool) error {
		details := &apierrors.StatusDetails{Causes: []apierrors.StatusCause{{Type: "DisruptionBudget", Message: why}}}
		if retry {
			details.RetryAfterSeconds = evictionRetryAfter
		}
		return apierrors.New(web.StatusTooManyRequests, "TooManyRequests", evictionRefused, details)
	}
	_, _, err := s.update(pdb, func(old object.Object) (object.Object, error) {
		if old == nil {
			return nil, apierrors.NewNotFound("policy", "poddisruptionbudgets", pdb.Name)
		}
		status, _ := old["status"].(map[string]any)
		allowed := object.Int(status["disruptionsAllowed"])
		switch {
		case object.Int(status["observedGeneration"]) < object.Int(object.Meta(old)["generation"]):
			return nil, refuse(fmt.Sprintf("The disruption budget %s is still being processed by the server.", pdb.Name), true)
		case !podReady(pod) && object.Int(status["currentHealthy"]) >= object.Int(status["desiredHealthy"]):
			return old, nil // an unhealthy pod goes while the budget is met
		case allowed < 0:
			return nil, apierrors.New(web.StatusForbidden, "Forbidden", "pdb disruptions allowed is negative", nil)
		case allowed == 0:
			return nil, refuse(fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently",
				pdb.Name, object.Int(status["desiredHealthy"]), object.Int(status["currentHealthy"])), false)
		}
		next := object.DeepCopy(old)
		st := next["status"].(map[string]any)
		st["disruptionsAllowed"] = allowed - 1
		disrupted, _ := st["disruptedPods"].(map[string]any)
		if disrupted == nil {
			disrupted = map[string]any{}
			st["disruptedPods"] = disrupted
		}
		disrupted[t.Name] = object.Timestamp(s.clock.Now())
		return next, nil
	})
	return err
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

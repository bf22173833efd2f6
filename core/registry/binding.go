package registry

import (
	"fmt"
	"slices"

	"kubeplay/core/apierrors"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/storage"
)

// bind is a create of a Pod's binding subresource (a core/v1 Binding), what a
// scheduler sends: as kube's BindingREST, it assigns the Pod to the Binding's
// target node (spec.nodeName, the Binding's annotations, a True PodScheduled
// condition) and refuses a Pod that is assigned already or being deleted (CreateSubresource
// answers kube's Status).
func (s *Store) bind(t Target, binding object.Object) error {
	target, _ := binding["target"].(map[string]any)
	node, _ := target["name"].(string)
	var errs field.ErrorList
	if kind, _ := target["kind"].(string); kind != "" && kind != "Node" {
		errs = append(errs, field.NotSupported(field.NewPath("target", "kind"), kind, []string{"Node", "<empty>"}))
	}
	if node == "" {
		errs = append(errs, field.Required(field.NewPath("target", "name"), ""))
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid("", "Binding", t.Name, errs)
	}
	conflict := func(why string, args ...any) error {
		return apierrors.NewConflict("", "pods/binding", t.Name, fmt.Sprintf(why, args...))
	}
	_, err := s.mutate(t, func(cur []byte, rev int64) (storage.Change, error) {
		if cur == nil {
			return storage.Change{}, apierrors.NewNotFound("", "pods", t.Name)
		}
		pod, err := object.Decode(cur)
		if err != nil {
			return storage.Change{}, apierrors.NewInternal(err)
		}
		meta := object.Meta(pod)
		if meta["deletionTimestamp"] != nil {
			return storage.Change{}, conflict("pod %v is being deleted, cannot be assigned to a host", t.Name)
		}
		spec := object.Child(pod, "spec")
		if assigned, _ := spec["nodeName"].(string); assigned != "" {
			return storage.Change{}, conflict("pod %v is already assigned to node %q", t.Name, assigned)
		}
		spec["nodeName"] = node
		if extra := object.StringMap(object.Meta(binding), "annotations"); len(extra) > 0 {
			annotations := object.Child(meta, "annotations")
			for k, v := range extra {
				annotations[k] = v
			}
		}
		status := object.Child(pod, "status")
		// In place, as kube's UpdatePodCondition replaces a condition.
		scheduled := map[string]any{"type": "PodScheduled", "status": "True", "lastProbeTime": nil,
			"lastTransitionTime": object.Timestamp(s.clock.Now())}
		conditions, _ := status["conditions"].([]any)
		i := slices.IndexFunc(conditions, func(c any) bool { return object.Path(c, "type") == "PodScheduled" })
		switch {
		case i < 0:
			conditions = append(conditions, scheduled)
		case object.Path(conditions[i], "status") == "True":
			scheduled["lastTransitionTime"] = object.Path(conditions[i], "lastTransitionTime")
			fallthrough
		default:
			conditions[i] = scheduled
		}
		status["conditions"] = conditions
		return s.put(t, pod, rev)
	})
	return err
}

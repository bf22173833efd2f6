package gc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"kubeplay/core/client"
	"kubeplay/core/object"
	"kubeplay/core/registry"
	"kubeplay/core/web"
)

var (
	// errVirtualDelete: the object is gone; a virtual deletion is queued.
	errVirtualDelete = errors.New("gc: gone, virtual deletion queued")
	// errNamespacedOwner: a cluster-scoped object names a namespaced owner,
	// which nothing resolves.
	errNamespacedOwner = errors.New("gc: a cluster-scoped object cannot have a namespaced owner")
	// errUnmapped: a kind the object is or names is not served (yet).
	errUnmapped = errors.New("gc: kind not served")
)

// absentLimit bounds the cache of owners known to be absent.
const absentLimit = 1000

// kindOf is the served kind of id.
func (gc *GarbageCollector) kindOf(apiVersion, kindName string) (kind, error) {
	k, ok := gc.kinds[apiVersion+"/"+kindName]
	if !ok {
		return kind{}, errUnmapped
	}
	return k, nil
}

// attemptToDeleteWorker attempts n and decides what becomes of it: done,
// retried later, or parked until discovery finds its kinds.
func (gc *GarbageCollector) attemptToDeleteWorker(ctx context.Context, n *node) {
	if n.virtual {
		if cur, ok := gc.graph[n.id.UID]; !ok || cur != n || !cur.virtual {
			return // gone, or observed meanwhile
		}
	}
	err := gc.attemptToDeleteItem(ctx, n)
	switch {
	case err == nil && n.virtual:
		gc.requeue(n, false) // it exists: wait until an informer sees it
	case err == nil, errors.Is(err, errVirtualDelete), errors.Is(err, errNamespacedOwner):
		gc.forget(n)
	case errors.Is(err, errUnmapped):
		gc.unmapped[n] = true
	case ctx.Err() == nil:
		gc.requeue(n, false)
	}
}

// attemptToDeleteItem is kube's: it deletes n if none of its owners is left,
// removes references to owners that are gone, and carries a foreground
// deletion through n's dependents.
func (gc *GarbageCollector) attemptToDeleteItem(ctx context.Context, n *node) error {
	if n.beingDeleted && !n.deletingDependents {
		return nil
	}
	latest, err := gc.getObject(ctx, n.id)
	switch {
	case client.IsNotFound(err):
		gc.changes.add(change{typ: "DELETED", id: n.id, virtual: true})
		return errVirtualDelete
	case err != nil:
		return err
	case fmt.Sprint(latest["uid"]) != n.id.UID:
		gc.changes.add(change{typ: "DELETED", id: n.id, virtual: true})
		return errVirtualDelete
	}
	if n.deletingDependents {
		return gc.processDeletingDependents(ctx, n)
	}
	refs := ownerRefs(latest)
	if len(refs) == 0 {
		return nil
	}
	solid, dangling, waiting, err := gc.classifyReferences(ctx, n, refs)
	if err != nil {
		return err
	}
	switch {
	case len(solid) > 0:
		if len(dangling)+len(waiting) == 0 {
			return nil
		}
		// References to owners that are gone, or waiting for their
		// dependents to go, are removed (the latter would hold them forever).
		return gc.removeOwnerRefs(ctx, n, append(uids(dangling), uids(waiting)...))
	case len(waiting) > 0 && len(n.dependents) > 0:
		for _, d := range n.sortedDependents() {
			if d.deletingDependents {
				// A cycle, maybe: n stops blocking its owners, then goes in
				// the foreground.
				if err := gc.unblockOwnerRefs(ctx, n); err != nil {
					return err
				}
				break
			}
		}
		return gc.deleteObject(ctx, n.id, registry.PropagationForeground)
	}
	policy := registry.PropagationBackground
	switch {
	case hasFinalizer(latest, finalizerOrphan):
		policy = registry.PropagationOrphan
	case hasFinalizer(latest, finalizerForeground):
		policy = registry.PropagationForeground
	}
	return gc.deleteObject(ctx, n.id, policy)
}

// processDeletingDependents lets an owner deleted in the foreground go once
// no dependent blocks it, and has the blocking ones deleted.
func (gc *GarbageCollector) processDeletingDependents(ctx context.Context, n *node) error {
	blocking := n.blockingDependents()
	if len(blocking) == 0 {
		return gc.removeFinalizer(ctx, n, finalizerForeground)
	}
	for _, d := range blocking {
		if !d.deletingDependents {
			gc.toDelete.add(d)
		}
	}
	return nil
}

// classifyReferences sorts n's owner references: owners that exist, owners
// that are gone, owners that exist but wait for their dependents to go.
func (gc *GarbageCollector) classifyReferences(ctx context.Context, n *node, refs []ownerRef) (solid, dangling, waiting []ownerRef, err error) {
	for _, r := range refs {
		isDangling, owner, err := gc.isDangling(ctx, r, n)
		if err != nil {
			return nil, nil, nil, err
		}
		switch {
		case isDangling:
			dangling = append(dangling, r)
		case beingDeleted(owner) && hasFinalizer(owner, finalizerForeground):
			waiting = append(waiting, r)
		default:
			solid = append(solid, r)
		}
	}
	return solid, dangling, waiting, nil
}

// isDangling says whether the owner r names is gone, as seen from n (a
// namespaced owner is looked for in n's namespace), and returns its metadata
// when it is not.
func (gc *GarbageCollector) isDangling(ctx context.Context, r ownerRef, n *node) (bool, map[string]any, error) {
	key := identity{r.APIVersion, r.Kind, "", r.Name, r.UID}
	if gc.absent[key] {
		return true, nil, nil
	}
	key.Namespace = n.id.Namespace
	if gc.absent[key] {
		return true, nil, nil
	}
	k, err := gc.kindOf(r.APIVersion, r.Kind)
	if err != nil {
		return false, nil, err
	}
	if !k.namespaced {
		key.Namespace = ""
	}
	if n.id.Namespace == "" && k.namespaced {
		return false, nil, errNamespacedOwner
	}
	owner, err := gc.getObject(ctx, key)
	switch {
	case client.IsNotFound(err):
		gc.markAbsent(key)
		return true, nil, nil
	case err != nil:
		return false, nil, err
	case fmt.Sprint(owner["uid"]) != r.UID:
		gc.markAbsent(key)
		return true, nil, nil
	}
	return false, owner, nil
}

func (gc *GarbageCollector) markAbsent(id identity) {
	if len(gc.absent) >= absentLimit {
		clear(gc.absent)
	}
	gc.absent[id] = true
}

// attemptToOrphanWorker removes the references to an owner deleted with
// the orphan finalizer from its dependents, then the finalizer.
func (gc *GarbageCollector) attemptToOrphanWorker(ctx context.Context, owner *node) {
	err := gc.orphanDependents(ctx, owner)
	if err == nil {
		err = gc.removeFinalizer(ctx, owner, finalizerOrphan)
	}
	if err != nil && ctx.Err() == nil {
		gc.requeue(owner, true)
		return
	}
	gc.forget(owner)
}

func (gc *GarbageCollector) orphanDependents(ctx context.Context, owner *node) error {
	var errs []error
	for _, d := range owner.sortedDependents() {
		if err := gc.removeOwnerRefs(ctx, d, []string{owner.id.UID}); err != nil && !client.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("orphaning %s failed, %w", d.id, err))
		}
	}
	return errors.Join(errs...)
}

// The garbage collector's requests, as kube's sends them: through the
// metadata client, deletions with the uid as precondition, patches
// strategic (with the uid as precondition) where the kind takes them, else
// JSON merge patches with the resourceVersion as precondition.

// getObject reads the metadata of the object id names.
func (gc *GarbageCollector) getObject(ctx context.Context, id identity) (map[string]any, error) {
	k, err := gc.kindOf(id.APIVersion, id.Kind)
	if err != nil {
		return nil, err
	}
	if !k.namespaced {
		id.Namespace = ""
	} else if id.Namespace == "" {
		return nil, errNamespacedOwner
	}
	obj, err := gc.meta.Get(ctx, k.path(id))
	if err != nil {
		return nil, err
	}
	return object.Meta(obj), nil
}

// deleteObject deletes the object id names, if it is still that one.
func (gc *GarbageCollector) deleteObject(ctx context.Context, id identity, policy string) error {
	k, err := gc.kindOf(id.APIVersion, id.Kind)
	if err != nil {
		return err
	}
	body, _ := json.Marshal(map[string]any{"kind": "DeleteOptions", "apiVersion": "v1",
		"preconditions": map[string]any{"uid": id.UID}, "propagationPolicy": policy})
	_, err = gc.plain.Do(ctx, web.MethodDelete, k.path(id), "application/json", body)
	return err
}

// patch patches the object n is with a strategic merge patch, else (where
// its kind takes none: custom resources) with the JSON merge patch that
// mergePatch makes of its current metadata.
func (gc *GarbageCollector) patch(ctx context.Context, n *node, smp map[string]any, mergePatch func(meta map[string]any) map[string]any) error {
	k, err := gc.kindOf(n.id.APIVersion, n.id.Kind)
	if err != nil {
		return err
	}
	path := k.path(n.id)
	body, _ := json.Marshal(map[string]any{"metadata": smp})
	_, err = gc.plain.Do(ctx, web.MethodPatch, path, "application/strategic-merge-patch+json", body)
	var e *client.Error
	if !errors.As(err, &e) || e.Code != web.StatusUnsupportedMediaType {
		return err
	}
	cur, err := gc.getObject(ctx, n.id)
	if err != nil {
		return err
	}
	patch := mergePatch(cur)
	patch["resourceVersion"] = cur["resourceVersion"]
	body, _ = json.Marshal(map[string]any{"metadata": patch})
	_, err = gc.plain.Do(ctx, web.MethodPatch, path, "application/merge-patch+json", body)
	return err
}

// removeOwnerRefs removes n's references to the owners with the given uids.
func (gc *GarbageCollector) removeOwnerRefs(ctx context.Context, n *node, owners []string) error {
	deletes := make([]any, len(owners))
	for i, uid := range owners {
		deletes[i] = map[string]any{"$patch": "delete", "uid": uid}
	}
	return gc.patch(ctx, n, map[string]any{"uid": n.id.UID, "ownerReferences": deletes}, func(meta map[string]any) map[string]any {
		var kept []any
		for _, r := range object.Objects(meta, "ownerReferences") {
			if !slices.Contains(owners, fmt.Sprint(r["uid"])) {
				kept = append(kept, r)
			}
		}
		return map[string]any{"ownerReferences": kept}
	})
}

// unblockOwnerRefs sets blockOwnerDeletion false on n's references.
func (gc *GarbageCollector) unblockOwnerRefs(ctx context.Context, n *node) error {
	var blocking []any
	for _, r := range n.owners {
		if r.blocks() {
			blocking = append(blocking, refObject(r, false))
		}
	}
	return gc.patch(ctx, n, map[string]any{"uid": n.id.UID, "ownerReferences": blocking}, func(map[string]any) map[string]any {
		all := make([]any, len(n.owners))
		for i, r := range n.owners {
			all[i] = refObject(r, false)
		}
		return map[string]any{"ownerReferences": all}
	})
}

// refObject is r as JSON, with blockOwnerDeletion block.
func refObject(r ownerRef, block bool) map[string]any {
	out := map[string]any{"apiVersion": r.APIVersion, "kind": r.Kind, "name": r.Name, "uid": r.UID, "blockOwnerDeletion": block}
	if r.Controller != nil {
		out["controller"] = *r.Controller
	}
	return out
}

// removeFinalizer removes finalizer f from the object n is, retrying
// conflicts as kube's retry.RetryOnConflict does.
func (gc *GarbageCollector) removeFinalizer(ctx context.Context, n *node, f string) error {
	k, err := gc.kindOf(n.id.APIVersion, n.id.Kind)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		cur, err := gc.getObject(ctx, n.id)
		if client.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		finalizers := object.Strings(cur, "finalizers")
		if !slices.Contains(finalizers, f) {
			return nil
		}
		kept := slices.DeleteFunc(finalizers, func(s string) bool { return s == f })
		body, _ := json.Marshal(map[string]any{"metadata": map[string]any{"resourceVersion": cur["resourceVersion"], "finalizers": kept}})
		_, err = gc.plain.Do(ctx, web.MethodPatch, k.path(n.id), "application/merge-patch+json", body)
		if !client.IsConflict(err) || attempt == 4 {
			return err
		}
	}
}

// uids are the owners' uids of refs.
func uids(refs []ownerRef) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.UID
	}
	return out
}

// reportInvalidNamespace records kube's warning Event about n's reference
// to the owner with uid, which is in another namespace.
func (gc *GarbageCollector) reportInvalidNamespace(n *node, uid string) {
	var ref *ownerRef
	for i := range n.owners {
		if n.owners[i].UID == uid {
			ref = &n.owners[i]
		}
	}
	if ref == nil {
		return
	}
	invalid := identity{ref.APIVersion, ref.Kind, n.id.Namespace, ref.Name, ref.UID}
	now := gc.clock.Now()
	ns := n.id.Namespace
	if ns == "" {
		ns = "default"
	}
	ev := object.Object{
		"apiVersion": "v1", "kind": "Event",
		"metadata":       map[string]any{"name": n.id.Name + "." + strconv.FormatInt(now.UnixNano(), 16), "namespace": ns},
		"involvedObject": map[string]any{"apiVersion": n.id.APIVersion, "kind": n.id.Kind, "namespace": n.id.Namespace, "name": n.id.Name, "uid": n.id.UID},
		"type":           "Warning", "reason": "OwnerRefInvalidNamespace",
		"message":        fmt.Sprintf("ownerRef %s does not exist in namespace %q", invalid, n.id.Namespace),
		"source":         map[string]any{"component": "garbage-collector-controller"},
		"firstTimestamp": registry.Timestamp(now), "lastTimestamp": registry.Timestamp(now), "count": 1,
		"reportingComponent": "garbage-collector-controller", "reportingInstance": "",
	}
	// Best effort, as kube's event recorder.
	_, _ = gc.plain.Create(context.Background(), "/api/v1/namespaces/"+ns+"/events", ev)
}

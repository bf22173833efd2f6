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

func (gc *GarbageCollector) markAbsent(id identity) {
	if len(gc.absent) >= absentLimit {
		clear(gc.absent)
	}
	gc.absent[id] = true
}

// attemptToDelete attempts n and decides what becomes of it: done, retried
// later, or parked until discovery finds its kinds.
func (gc *GarbageCollector) attemptToDelete(ctx context.Context, n *node) {
	if n.virtual && gc.graph[n.id.UID] != n {
		return // gone, or observed meanwhile
	}
	err := gc.attemptToDeleteItem(ctx, n)
	switch {
	case err == nil && n.virtual:
		gc.requeue(n, &gc.toDelete) // it exists: wait until an informer sees it
	case err == nil, errors.Is(err, errVirtualDelete), errors.Is(err, errNamespacedOwner):
		delete(gc.backoff, n)
	case errors.Is(err, errUnmapped):
		gc.unmapped.add(n)
	case ctx.Err() == nil:
		gc.requeue(n, &gc.toDelete)
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
	if client.IsNotFound(err) || err == nil && latest["uid"] != n.id.UID {
		gc.changes.add(change{deleted: true, id: n.id, virtual: true})
		return errVirtualDelete
	}
	if err != nil {
		return err
	}
	if n.deletingDependents {
		blocking := n.blockingDependents()
		if len(blocking) == 0 {
			return gc.removeFinalizer(ctx, n, finalizerForeground)
		}
		for _, d := range blocking {
			switch {
			case !d.deletingDependents:
				gc.toDelete.add(d)
			case waitsFor(d, n, map[*node]bool{}):
				// A cycle the deletions closed (kube's detection, when the
				// dependent went, may have missed it): d stops blocking n.
				err := gc.patchMeta(ctx, d, "ownerReferences", func(cur map[string]any) any {
					refs := object.Objects(cur, "ownerReferences")
					if r := findRef(refs, n.id.UID); r != nil {
						r["blockOwnerDeletion"] = false
					}
					return refs
				})
				if err != nil {
					return err
				}
			}
		}
		return nil
	}
	// The owners: solid (there), dangling (gone), or waiting for their
	// dependents to go.
	var solid, dangling, waiting []string
	for _, r := range object.Objects(latest, "ownerReferences") {
		owner, err := gc.owner(ctx, r, n)
		uid := ref(r, "uid")
		switch {
		case err != nil:
			return err
		case owner == nil:
			dangling = append(dangling, uid)
		case beingDeleted(owner) && hasFinalizer(owner, finalizerForeground):
			waiting = append(waiting, uid)
		default:
			solid = append(solid, uid)
		}
	}
	switch {
	case len(solid)+len(dangling)+len(waiting) == 0, len(solid) > 0 && len(dangling)+len(waiting) == 0:
		return nil
	case len(solid) > 0:
		// References to owners that are gone, or that wait for their
		// dependents (they would wait forever), are removed.
		drop := append(dangling, waiting...)
		return gc.patchMeta(ctx, n, "ownerReferences", func(cur map[string]any) any {
			return slices.DeleteFunc(object.Objects(cur, "ownerReferences"), func(r map[string]any) bool { return slices.Contains(drop, ref(r, "uid")) })
		})
	case len(waiting) > 0 && len(n.dependents) > 0:
		for _, d := range n.dependents {
			if d.deletingDependents {
				// A cycle, maybe: n stops blocking its owners, then goes
				// in the foreground.
				err := gc.patchMeta(ctx, n, "ownerReferences", func(cur map[string]any) any {
					refs := object.Objects(cur, "ownerReferences")
					for _, r := range refs {
						r["blockOwnerDeletion"] = false
					}
					return refs
				})
				if err != nil {
					return err
				}
				break
			}
		}
		return gc.deleteObject(ctx, n.id, object.PropagationForeground)
	}
	policy := object.PropagationBackground
	switch {
	case hasFinalizer(latest, finalizerOrphan):
		policy = object.PropagationOrphan
	case hasFinalizer(latest, finalizerForeground):
		policy = object.PropagationForeground
	}
	return gc.deleteObject(ctx, n.id, policy)
}

// waitsFor says whether d, deleting its dependents, waits for n through
// blocking dependents that delete theirs.
func waitsFor(d, n *node, seen map[*node]bool) bool {
	if d == n {
		return true
	}
	if seen[d] || !d.deletingDependents {
		return false
	}
	seen[d] = true
	for _, x := range d.blockingDependents() {
		if waitsFor(x, n, seen) {
			return true
		}
	}
	return false
}

// owner is the metadata of the owner r names, as seen from n (a namespaced
// owner is looked for in n's namespace), or nil when it is gone.
func (gc *GarbageCollector) owner(ctx context.Context, r map[string]any, n *node) (map[string]any, error) {
	key := refIdentity(r, "")
	if gc.absent[key] {
		return nil, nil
	}
	key.Namespace = n.id.Namespace
	if gc.absent[key] {
		return nil, nil
	}
	k, err := gc.kindOf(key.APIVersion, key.Kind)
	if err != nil {
		return nil, err
	}
	if !k.namespaced {
		key.Namespace = ""
	} else if n.id.Namespace == "" {
		return nil, errNamespacedOwner
	}
	owner, err := gc.getObject(ctx, key)
	switch {
	case client.IsNotFound(err), err == nil && owner["uid"] != key.UID:
		gc.markAbsent(key)
		return nil, nil
	}
	return owner, err
}

// attemptToOrphan removes the references to an owner deleted with the
// orphan finalizer from its dependents, then the finalizer.
func (gc *GarbageCollector) attemptToOrphan(ctx context.Context, owner *node) {
	var err error
	for _, d := range owner.dependents {
		e := gc.patchMeta(ctx, d, "ownerReferences", func(cur map[string]any) any {
			return slices.DeleteFunc(object.Objects(cur, "ownerReferences"), func(r map[string]any) bool { return ref(r, "uid") == owner.id.UID })
		})
		if !client.IsNotFound(e) {
			err = errors.Join(err, e)
		}
	}
	if err == nil {
		err = gc.removeFinalizer(ctx, owner, finalizerOrphan)
	}
	if err != nil && ctx.Err() == nil {
		gc.requeue(owner, &gc.toOrphan)
		return
	}
	delete(gc.backoff, owner)
}

// removeFinalizer removes finalizer f from the object n is.
func (gc *GarbageCollector) removeFinalizer(ctx context.Context, n *node, f string) error {
	err := gc.patchMeta(ctx, n, "finalizers", func(cur map[string]any) any {
		return slices.DeleteFunc(object.Strings(cur, "finalizers"), func(s string) bool { return s == f })
	})
	if client.IsNotFound(err) {
		return nil
	}
	return err
}

// The garbage collector's requests: reads through the metadata client,
// deletions with the uid as precondition, and JSON merge patches of one
// metadata field with the resourceVersion as precondition. (kube's sends
// strategic merge patches where the kind takes them; the result is the
// same.)

// kindOf is the served kind of apiVersion and kind.
func (gc *GarbageCollector) kindOf(apiVersion, kindName string) (kind, error) {
	k, ok := gc.kinds[apiVersion+"/"+kindName]
	if !ok {
		return kind{}, errUnmapped
	}
	return k, nil
}

// getObject reads the metadata of the object id names.
func (gc *GarbageCollector) getObject(ctx context.Context, id identity) (map[string]any, error) {
	k, err := gc.kindOf(id.APIVersion, id.Kind)
	if err != nil {
		return nil, err
	}
	if k.namespaced && id.Namespace == "" {
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
	body := fmt.Sprintf(`{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":%q},"propagationPolicy":%q}`, id.UID, policy)
	_, err = gc.plain.Do(ctx, web.MethodDelete, k.path(id), "application/json", []byte(body))
	return err
}

// patchMeta sets the metadata field of the object n is to what value makes
// of its current metadata, unless nothing changes.
func (gc *GarbageCollector) patchMeta(ctx context.Context, n *node, field string, value func(cur map[string]any) any) error {
	cur, err := gc.getObject(ctx, n.id)
	if err != nil {
		return err
	}
	before := string(mustJSON(cur[field]))
	v := value(cur) // may change cur
	body, err := json.Marshal(map[string]map[string]any{"metadata": {"resourceVersion": cur["resourceVersion"], field: v}})
	if err != nil || before == string(mustJSON(v)) {
		return err
	}
	k, _ := gc.kindOf(n.id.APIVersion, n.id.Kind)
	_, err = gc.plain.Do(ctx, web.MethodPatch, k.path(n.id), "application/merge-patch+json", body)
	return err
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// eventTemplate is the core/v1 Event kube's event recorder writes for the
// garbage collector: name, namespace, the involved object's kind, namespace,
// name, uid and apiVersion, the message, and the time, twice.
const eventTemplate = `{"apiVersion":"v1","kind":"Event","metadata":{"name":%q,"namespace":%q},` +
	`"involvedObject":{"kind":%q,"namespace":%q,"name":%q,"uid":%q,"apiVersion":%q},` +
	`"reason":"OwnerRefInvalidNamespace","message":%q,"source":{"component":"garbage-collector-controller"},` +
	`"firstTimestamp":%q,"lastTimestamp":%q,"count":1,"type":"Warning","reportingComponent":"garbage-collector-controller","reportingInstance":""}`

// reportInvalidNamespace records kube's warning Event about n's reference
// to the owner with uid, which is in another namespace.
func (gc *GarbageCollector) reportInvalidNamespace(n *node, uid string) {
	r := findRef(n.owners, uid)
	if r == nil {
		return
	}
	now := gc.clock.Now()
	ns := n.id.Namespace
	if ns == "" {
		ns = "default"
	}
	ts := object.Timestamp(now)
	ev := fmt.Sprintf(eventTemplate, n.id.Name+"."+strconv.FormatInt(now.UnixNano(), 16), ns,
		n.id.Kind, n.id.Namespace, n.id.Name, n.id.UID, n.id.APIVersion,
		fmt.Sprintf("ownerRef %s does not exist in namespace %q", refIdentity(r, n.id.Namespace), n.id.Namespace), ts, ts)
	// Best effort, as kube's event recorder.
	_, _ = gc.plain.Do(context.Background(), web.MethodPost, "/api/v1/namespaces/"+ns+"/events", "application/json", []byte(ev))
}

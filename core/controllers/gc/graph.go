package gc

import (
	"fmt"
	"slices"
	"sync"

	"kubeplay/core/object"
)

// The finalizers the garbage collector acts on.
const (
	finalizerOrphan     = "orphan"
	finalizerForeground = "foregroundDeletion"
)

// identity is an object's coordinates, as an owner reference gives them.
type identity struct {
	APIVersion, Kind, Namespace, Name, UID string
}

// String is how kube's messages print it.
func (id identity) String() string {
	return fmt.Sprintf("[%s/%s, namespace: %s, name: %s, uid: %s]", id.APIVersion, id.Kind, id.Namespace, id.Name, id.UID)
}

// ref reads one field of an owner reference.
//
//go:noinline
func ref(r map[string]any, field string) string { s, _ := r[field].(string); return s }

// blocks says whether an owner reference blocks its owner's deletion.
//
//go:noinline
func blocks(r map[string]any) bool { return r["blockOwnerDeletion"] == true }

// refIdentity is the owner r names, as seen from namespace ns.
func refIdentity(r map[string]any, ns string) identity {
	return identity{ref(r, "apiVersion"), ref(r, "kind"), ns, ref(r, "name"), ref(r, "uid")}
}

// findRef is the reference of refs to the owner with uid, or nil.
//
//go:noinline
func findRef(refs []map[string]any, uid string) map[string]any {
	for _, r := range refs {
		if ref(r, "uid") == uid {
			return r
		}
	}
	return nil
}

// node is an object in the graph: observed through an informer, or virtual
// (only named as an owner so far).
type node struct {
	id                 identity
	owners             []map[string]any // its metadata.ownerReferences
	dependents         []*node
	virtual            bool
	beingDeleted       bool
	deletingDependents bool
}

// blockingDependents are the dependents whose reference to n blocks its
// deletion.
func (n *node) blockingDependents() []*node {
	var out []*node
	for _, d := range n.dependents {
		if r := findRef(d.owners, n.id.UID); r != nil && blocks(r) {
			out = append(out, d)
		}
	}
	return out
}

//go:noinline
func (n *node) addDependent(d *node) {
	if !slices.Contains(n.dependents, d) {
		n.dependents = append(n.dependents, d)
	}
}

//go:noinline
func (n *node) removeDependent(d *node) {
	if i := slices.Index(n.dependents, d); i >= 0 {
		n.dependents = slices.Delete(n.dependents, i, i+1)
	}
}

// change is what an informer saw, or a virtual deletion: an owner the API
// says is gone.
type change struct {
	deleted bool
	id      identity
	meta    map[string]any // the object's metadata (nil for a virtual deletion)
	oldMeta map[string]any // before an update
	virtual bool
}

// changeQueue hands the informers' changes to the run loop.
type changeQueue struct {
	mu      sync.Mutex
	pending []change
	again   bool // discovery must run again
	wake    chan struct{}
}

func (q *changeQueue) add(ch change) {
	q.mu.Lock()
	q.pending = append(q.pending, ch)
	q.mu.Unlock()
	q.poke()
}

// rediscoverLater asks the run loop to run discovery again.
func (q *changeQueue) rediscoverLater() {
	q.mu.Lock()
	q.again = true
	q.mu.Unlock()
	q.poke()
}

func (q *changeQueue) poke() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take returns the pending changes, and whether discovery must run again.
func (q *changeQueue) take() ([]change, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	out, again := q.pending, q.again
	q.pending, q.again = nil, false
	return out, again
}

//go:noinline
func beingDeleted(meta map[string]any) bool { return meta["deletionTimestamp"] != nil }

//go:noinline
func hasFinalizer(meta map[string]any, f string) bool {
	return slices.Contains(object.Strings(meta, "finalizers"), f)
}

// deletionStartsWith says whether the change is where the object starts
// being deleted with finalizer f.
func deletionStartsWith(ch change, f string) bool {
	if !beingDeleted(ch.meta) || !hasFinalizer(ch.meta, f) {
		return false
	}
	return ch.oldMeta == nil || !beingDeleted(ch.oldMeta) || !hasFinalizer(ch.oldMeta, f)
}

// processChange updates the graph with one change, as kube's GraphBuilder
// does, and queues what the change calls for.
func (gc *GarbageCollector) processChange(ch change) {
	n, found := gc.graph[ch.id.UID]
	if found && !ch.virtual && n.virtual {
		// Observed at last: the owner's coordinates are the informer's.
		if n.id != ch.id {
			for _, d := range n.dependents {
				if ch.id.Namespace != "" && d.id.Namespace != ch.id.Namespace {
					gc.reportInvalidNamespace(d, ch.id.UID)
				}
				gc.toDelete.add(d)
			}
			n.id = ch.id
		}
		n.virtual = false
	}
	switch {
	case !ch.deleted && !found:
		n = &node{id: ch.id, owners: object.Objects(ch.meta, "ownerReferences"), beingDeleted: beingDeleted(ch.meta)}
		n.deletingDependents = n.beingDeleted && hasFinalizer(ch.meta, finalizerForeground)
		gc.graph[n.id.UID] = n
		gc.addDependentToOwners(n, n.owners)
		gc.processTransitions(ch, n)
	case !ch.deleted:
		gc.updateOwners(n, object.Objects(ch.meta, "ownerReferences"))
		n.beingDeleted = n.beingDeleted || beingDeleted(ch.meta)
		gc.processTransitions(ch, n)
	case !found:
	case ch.virtual && !n.virtual && n.id != ch.id:
		// An observed object is not gone because a reference to it by
		// other coordinates is: its dependents check again.
		gc.markAbsent(ch.id)
		gc.toDelete.add(n.dependents...)
	default:
		delete(gc.graph, n.id.UID)
		for _, r := range n.owners {
			if o := gc.graph[ref(r, "uid")]; o != nil {
				o.removeDependent(n)
				if o.deletingDependents {
					gc.toDelete.add(o)
				}
			}
		}
		gc.unmapped.remove(n)
		delete(gc.backoff, n)
		if len(n.dependents) > 0 {
			gc.markAbsent(ch.id)
		}
		gc.toDelete.add(n.dependents...)
	}
}

// updateOwners gives n its new owner references: it joins its new owners'
// dependents and leaves the old ones', and queues the owners, deleting their
// dependents, that a reference gone or no longer blocking may let go.
func (gc *GarbageCollector) updateOwners(n *node, owners []map[string]any) {
	var added []map[string]any
	for _, r := range owners {
		if findRef(n.owners, ref(r, "uid")) == nil {
			added = append(added, r)
		}
	}
	for _, old := range n.owners {
		o := gc.graph[ref(old, "uid")]
		if o == nil {
			continue
		}
		cur := findRef(owners, ref(old, "uid"))
		if cur == nil {
			o.removeDependent(n)
		}
		if o.deletingDependents && blocks(old) && (cur == nil || !blocks(cur)) {
			gc.toDelete.add(o)
		}
	}
	n.owners = owners
	gc.addDependentToOwners(n, added)
}

// processTransitions queues an object that starts being deleted with one of
// the garbage collector's finalizers.
func (gc *GarbageCollector) processTransitions(ch change, n *node) {
	if deletionStartsWith(ch, finalizerOrphan) {
		gc.toOrphan.add(n)
		return
	}
	if deletionStartsWith(ch, finalizerForeground) {
		n.deletingDependents = true
		gc.toDelete.add(n.dependents...)
		gc.toDelete.add(n)
	}
}

// addDependentToOwners adds n to its owners' dependents, making virtual
// nodes of owners not seen yet (and queueing them, to learn whether they
// exist); a reference whose coordinates disagree with the owner's queues n.
func (gc *GarbageCollector) addDependentToOwners(n *node, owners []map[string]any) {
	suspect := false
	for _, r := range owners {
		id := refIdentity(r, n.id.Namespace)
		o, ok := gc.graph[id.UID]
		if !ok {
			o = &node{id: id, virtual: true}
			gc.graph[id.UID] = o
			gc.toDelete.add(o)
		}
		o.addDependent(n)
		switch {
		case !ok || suspect:
		case o.id.Namespace != "" && o.id.Namespace != n.id.Namespace:
			if !o.virtual {
				gc.reportInvalidNamespace(n, id.UID)
			}
			suspect = true
		case o.id.APIVersion != id.APIVersion || o.id.Kind != id.Kind || o.id.Name != id.Name:
			suspect = true
		case o.id.Namespace == "" && n.id.Namespace != "" && o.virtual:
			suspect = true
		}
	}
	if suspect {
		gc.toDelete.add(n)
	}
}

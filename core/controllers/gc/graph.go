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

// ownerRef is one of metadata.ownerReferences.
type ownerRef struct {
	APIVersion, Kind, Name, UID    string
	Controller, BlockOwnerDeletion *bool
}

func (r ownerRef) blocks() bool { return r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion }

// ownerRefs reads metadata.ownerReferences.
func ownerRefs(meta map[string]any) []ownerRef {
	var out []ownerRef
	for _, r := range object.Objects(meta, "ownerReferences") {
		ref := ownerRef{}
		ref.APIVersion, _ = r["apiVersion"].(string)
		ref.Kind, _ = r["kind"].(string)
		ref.Name, _ = r["name"].(string)
		ref.UID, _ = r["uid"].(string)
		if b, ok := r["controller"].(bool); ok {
			ref.Controller = &b
		}
		if b, ok := r["blockOwnerDeletion"].(bool); ok {
			ref.BlockOwnerDeletion = &b
		}
		out = append(out, ref)
	}
	return out
}

// node is an object in the graph: observed through an informer, or virtual
// (only named as an owner so far).
type node struct {
	id                 identity
	owners             []ownerRef
	dependents         map[*node]bool
	virtual            bool
	beingDeleted       bool
	deletingDependents bool
}

// sortedDependents are n's dependents in a stable order.
func (n *node) sortedDependents() []*node {
	out := make([]*node, 0, len(n.dependents))
	for d := range n.dependents {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b *node) int {
		if a.id.Namespace+"/"+a.id.Name < b.id.Namespace+"/"+b.id.Name {
			return -1
		}
		return 1
	})
	return out
}

// blockingDependents are the dependents whose reference to n blocks its
// deletion.
func (n *node) blockingDependents() []*node {
	var out []*node
	for _, d := range n.sortedDependents() {
		for _, r := range d.owners {
			if r.UID == n.id.UID && r.blocks() {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// change is what an informer saw, or a virtual deletion: an owner the API
// says is gone.
type change struct {
	typ     string // ADDED, MODIFIED, DELETED
	id      identity
	meta    map[string]any // the object's metadata (nil for a virtual deletion)
	oldMeta map[string]any // before a MODIFIED
	virtual bool
}

// changeQueue hands the informers' changes to the run loop.
type changeQueue struct {
	mu      sync.Mutex
	pending []change
	again   bool // discovery must run again
	wake    chan struct{}
}

func newChangeQueue() changeQueue { return changeQueue{wake: make(chan struct{}, 1)} }

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

func (q *changeQueue) take() []change {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.pending
	q.pending = nil
	return out
}

func (q *changeQueue) rediscover() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	again := q.again
	q.again = false
	return again
}

func beingDeleted(meta map[string]any) bool { return meta["deletionTimestamp"] != nil }

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
	existing, found := gc.graph[ch.id.UID]
	if found && !ch.virtual && existing.virtual {
		// Observed at last: the owner's coordinates are the informer's.
		if existing.id != ch.id {
			for _, d := range existing.sortedDependents() {
				if ch.id.Namespace != "" && d.id.Namespace != ch.id.Namespace {
					gc.reportInvalidNamespace(d, ch.id.UID)
				}
				gc.toDelete.add(d)
			}
			existing.id = ch.id
		}
		existing.virtual = false
	}
	switch {
	case ch.typ != "DELETED" && !found:
		n := &node{
			id: ch.id, owners: ownerRefs(ch.meta), dependents: map[*node]bool{},
			beingDeleted:       beingDeleted(ch.meta),
			deletingDependents: beingDeleted(ch.meta) && hasFinalizer(ch.meta, finalizerForeground),
		}
		gc.graph[n.id.UID] = n
		gc.addDependentToOwners(n, n.owners)
		gc.processTransitions(ch, n)
	case ch.typ != "DELETED":
		owners := ownerRefs(ch.meta)
		added, removed, changed := referenceDiffs(existing.owners, owners)
		if len(added)+len(removed)+len(changed) > 0 {
			gc.addUnblockedOwners(removed, changed)
			existing.owners = owners
			gc.addDependentToOwners(existing, added)
			gc.removeDependentFromOwners(existing, removed)
		}
		if beingDeleted(ch.meta) {
			existing.beingDeleted = true
		}
		gc.processTransitions(ch, existing)
	case !found:
	case ch.virtual && !existing.virtual && existing.id != ch.id:
		// An observed object is not gone because a reference to it by
		// other coordinates is: its dependents that use those check again.
		gc.absent[ch.id] = true
		for _, d := range existing.sortedDependents() {
			gc.toDelete.add(d)
		}
	default:
		gc.removeNode(existing)
		if len(existing.dependents) > 0 {
			gc.absent[ch.id] = true
		}
		for _, d := range existing.sortedDependents() {
			gc.toDelete.add(d)
		}
		for _, r := range existing.owners {
			if o := gc.graph[r.UID]; o != nil && o.deletingDependents {
				gc.toDelete.add(o)
			}
		}
	}
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
		for _, d := range n.sortedDependents() {
			gc.toDelete.add(d)
		}
		gc.toDelete.add(n)
	}
}

// addDependentToOwners adds n to its owners' dependents, making virtual
// nodes of owners not seen yet (and queueing them, to learn whether they
// exist); a reference whose coordinates disagree with the owner's queues n.
func (gc *GarbageCollector) addDependentToOwners(n *node, owners []ownerRef) {
	suspect := false
	for _, r := range owners {
		o, ok := gc.graph[r.UID]
		if !ok {
			o = &node{id: identity{r.APIVersion, r.Kind, n.id.Namespace, r.Name, r.UID}, dependents: map[*node]bool{}, virtual: true}
			gc.graph[r.UID] = o
		}
		o.dependents[n] = true
		switch {
		case !ok:
			gc.toDelete.add(o)
		case suspect:
		case o.id.Namespace != "" && o.id.Namespace != n.id.Namespace:
			if !o.virtual {
				gc.reportInvalidNamespace(n, r.UID)
			}
			suspect = true
		case o.id.APIVersion != r.APIVersion || o.id.Kind != r.Kind || o.id.Name != r.Name:
			suspect = true
		case o.id.Namespace == "" && n.id.Namespace != "" && o.virtual:
			suspect = true
		}
	}
	if suspect {
		gc.toDelete.add(n)
	}
}

func (gc *GarbageCollector) removeDependentFromOwners(n *node, owners []ownerRef) {
	for _, r := range owners {
		if o := gc.graph[r.UID]; o != nil {
			delete(o.dependents, n)
		}
	}
}

// removeNode takes n out of the graph.
func (gc *GarbageCollector) removeNode(n *node) {
	delete(gc.graph, n.id.UID)
	gc.removeDependentFromOwners(n, n.owners)
	delete(gc.unmapped, n)
	gc.forget(n)
}

// addUnblockedOwners queues the owners, deleting their dependents, that a
// removed or no longer blocking reference may let go.
func (gc *GarbageCollector) addUnblockedOwners(removed []ownerRef, changed [][2]ownerRef) {
	for _, r := range removed {
		if o := gc.graph[r.UID]; r.blocks() && o != nil && o.deletingDependents {
			gc.toDelete.add(o)
		}
	}
	for _, c := range changed {
		if o := gc.graph[c[1].UID]; c[0].blocks() && !c[1].blocks() && o != nil && o.deletingDependents {
			gc.toDelete.add(o)
		}
	}
}

// referenceDiffs compares two lists of owner references by uid.
func referenceDiffs(old, cur []ownerRef) (added, removed []ownerRef, changed [][2]ownerRef) {
	byUID := map[string]ownerRef{}
	for _, r := range old {
		byUID[r.UID] = r
	}
	for _, r := range cur {
		if o, ok := byUID[r.UID]; !ok {
			added = append(added, r)
		} else {
			if o.blocks() != r.blocks() || !equalBoolPtr(o.Controller, r.Controller) {
				changed = append(changed, [2]ownerRef{o, r})
			}
			delete(byUID, r.UID)
		}
	}
	for _, r := range old {
		if _, ok := byUID[r.UID]; ok {
			removed = append(removed, r)
		}
	}
	return added, removed, changed
}

func equalBoolPtr(a, b *bool) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// Package gc owns the garbage collector, kube-controller-manager's
// (pkg/controller/garbagecollector) as an API client of the core: it watches
// the metadata of every kind that can be listed, watched and deleted (found
// through discovery, again whenever a CustomResourceDefinition changes),
// keeps the graph of owners and dependents that metadata.ownerReferences
// draw, and does what deletions ask of it:
//
//   - an object whose owners are all gone (deleted, or never there: a
//     dangling reference) is deleted, in the background, or in the
//     foreground or orphaning its own dependents as its finalizers say;
//   - an owner deleted with propagationPolicy Orphan (the orphan finalizer)
//     has the references to it removed from its dependents, then the
//     finalizer removed;
//   - an owner deleted in the foreground (the foregroundDeletion finalizer)
//     has its dependents deleted, and loses the finalizer (and so goes) once
//     no dependent with blockOwnerDeletion is left; a dependent that is itself
//     an owner in the foreground goes in the foreground too, and a cycle of
//     them is broken by unblocking references, as kube does.
//
// Owners are looked up in the dependent's namespace (a namespaced owner in
// another namespace counts as absent, and a warning Event
// OwnerRefInvalidNamespace says so) or cluster-wide; a cluster-scoped
// dependent naming a namespaced owner is left alone. A reference to a kind
// that is not served waits until discovery finds it. Every read and write goes
// through the handler as system:serviceaccount:kube-system:generic-garbage-
// collector. Nothing runs while nothing changes, except retries of failed
// steps, with backoff.
package gc

import (
	"context"
	"time"

	"kubeplay/core/auth"
	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/web"
)

// Identity is who the garbage collector acts as.
var Identity = auth.ServiceAccount("kube-system", "generic-garbage-collector")

// Retry backoff for a step that failed: doubling from the first to the last.
const (
	firstRetry = 100 * time.Millisecond
	lastRetry  = 30 * time.Second
)

// GarbageCollector deletes objects whose owners are gone, and carries out
// the propagation policies of deletions.
type GarbageCollector struct {
	plain *client.Client // discovery, writes
	meta  *client.Client // reads, metadata only
	clock clock.Clock

	changes changeQueue // from the informers, to the run loop

	// Owned by the run loop.
	graph    map[string]*node // by uid
	absent   map[identity]bool
	toDelete queue
	toOrphan queue
	retries  []retry
	backoff  map[*node]time.Duration
	kinds    kinds
	monitors map[string]*monitor // by collection path
	// unmapped are the nodes waiting for discovery to find a kind they name.
	unmapped map[*node]bool
}

// New is the garbage collector, acting through h.
func New(h web.Handler, clk clock.Clock) *GarbageCollector {
	c := client.New(h, Identity, controllers.UserAgent+" generic-garbage-collector")
	return &GarbageCollector{
		plain: c, meta: c.MetadataOnly(), clock: clk, changes: newChangeQueue(),
		graph: map[string]*node{}, absent: map[identity]bool{},
		toDelete: newQueue(), toOrphan: newQueue(), backoff: map[*node]time.Duration{},
		monitors: map[string]*monitor{}, unmapped: map[*node]bool{},
	}
}

// retry is a node to attempt again once due.
type retry struct {
	due    time.Time
	n      *node
	orphan bool // for toOrphan, else toDelete
}

// Run works until ctx is done.
func (gc *GarbageCollector) Run(ctx context.Context) {
	defer gc.stopMonitors()
	gc.rediscover(ctx)
	var timer clock.Timer
	for ctx.Err() == nil {
		if gc.changes.rediscover() {
			gc.rediscover(ctx)
		}
		for _, ch := range gc.changes.take() {
			gc.processChange(ch)
		}
		if !gc.synced() {
			// As kube's does, the collector acts only on a whole graph: an
			// owner whose dependents' collections are not listed yet would
			// look free of them.
			select {
			case <-ctx.Done():
			case <-gc.changes.wake:
			}
			continue
		}
		if n := gc.toDelete.pop(); n != nil {
			gc.attemptToDeleteWorker(ctx, n)
			continue
		}
		if n := gc.toOrphan.pop(); n != nil {
			gc.attemptToOrphanWorker(ctx, n)
			continue
		}
		gc.dueRetries()
		if gc.toDelete.len()+gc.toOrphan.len() > 0 {
			continue
		}
		var due <-chan time.Time
		if len(gc.retries) > 0 {
			timer = gc.clock.NewTimer(gc.retries[0].due.Sub(gc.clock.Now()))
			due = timer.C()
		}
		select {
		case <-ctx.Done():
		case <-gc.changes.wake:
		case <-due:
		}
		if timer != nil {
			timer.Stop()
			timer = nil
		}
	}
}

// requeue attempts n again after its backoff.
func (gc *GarbageCollector) requeue(n *node, orphan bool) {
	d := gc.backoff[n]
	if d == 0 {
		d = firstRetry
	}
	gc.backoff[n] = min(2*d, lastRetry)
	r := retry{due: gc.clock.Now().Add(d), n: n, orphan: orphan}
	i := len(gc.retries)
	for i > 0 && gc.retries[i-1].due.After(r.due) {
		i--
	}
	gc.retries = append(gc.retries, retry{})
	copy(gc.retries[i+1:], gc.retries[i:])
	gc.retries[i] = r
}

// forget ends n's backoff.
func (gc *GarbageCollector) forget(n *node) { delete(gc.backoff, n) }

// dueRetries queues the retries that are due.
func (gc *GarbageCollector) dueRetries() {
	now := gc.clock.Now()
	for len(gc.retries) > 0 && !gc.retries[0].due.After(now) {
		r := gc.retries[0]
		gc.retries = gc.retries[1:]
		if r.orphan {
			gc.toOrphan.add(r.n)
		} else {
			gc.toDelete.add(r.n)
		}
	}
}

// queue is a set of nodes in the order they were added.
type queue struct {
	order []*node
	in    map[*node]bool
}

func newQueue() queue { return queue{in: map[*node]bool{}} }

func (q *queue) add(n *node) {
	if !q.in[n] {
		q.in[n] = true
		q.order = append(q.order, n)
	}
}

func (q *queue) pop() *node {
	if len(q.order) == 0 {
		return nil
	}
	n := q.order[0]
	q.order[0] = nil
	q.order = q.order[1:]
	delete(q.in, n)
	return n
}

func (q *queue) len() int { return len(q.order) }

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
	"slices"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/user"
	"kubeplay/core/web"
)

// Identity is who the garbage collector acts as.
var Identity = user.ServiceAccount("kube-system", "generic-garbage-collector")

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
	unmapped queue // waiting for discovery to find a kind they name
	retries  []retry
	backoff  map[*node]time.Duration
	kinds    kinds
	monitors map[string]*monitor // by collection path
}

// New is the garbage collector, acting through h.
func New(h web.Handler, clk clock.Clock) *GarbageCollector {
	c := client.New(h, Identity, controllers.UserAgent+" generic-garbage-collector")
	return &GarbageCollector{
		plain: c, meta: c.MetadataOnly(), clock: clk, changes: changeQueue{wake: make(chan struct{}, 1)},
		graph: map[string]*node{}, absent: map[identity]bool{}, backoff: map[*node]time.Duration{},
		monitors: map[string]*monitor{},
	}
}

// retry is a node to attempt again once due.
type retry struct {
	due time.Time
	n   *node
	q   *queue
}

// Run works until ctx is done.
func (gc *GarbageCollector) Run(ctx context.Context) {
	defer gc.stopMonitors()
	gc.rediscover(ctx)
	for ctx.Err() == nil {
		changes, again := gc.changes.take()
		if again {
			gc.rediscover(ctx)
		}
		for _, ch := range changes {
			gc.processChange(ch)
		}
		gc.dueRetries()
		// As kube's does, the collector acts only on a whole graph: an
		// owner whose dependents' collections are not listed yet would look
		// free of them.
		if gc.synced() {
			if n := gc.toDelete.pop(); n != nil {
				gc.attemptToDelete(ctx, n)
				continue
			}
			if n := gc.toOrphan.pop(); n != nil {
				gc.attemptToOrphan(ctx, n)
				continue
			}
		}
		gc.wait(ctx)
	}
}

// wait waits for a change, or the next retry.
func (gc *GarbageCollector) wait(ctx context.Context) {
	var due <-chan time.Time
	if len(gc.retries) > 0 {
		next := gc.retries[0].due
		for _, r := range gc.retries {
			if r.due.Before(next) {
				next = r.due
			}
		}
		t := gc.clock.NewTimer(next.Sub(gc.clock.Now()))
		defer t.Stop()
		due = t.C()
	}
	select {
	case <-ctx.Done():
	case <-gc.changes.wake:
	case <-due:
	}
}

// requeue attempts n again, in queue q, after its backoff.
func (gc *GarbageCollector) requeue(n *node, q *queue) {
	d := max(gc.backoff[n], firstRetry)
	gc.backoff[n] = min(2*d, lastRetry)
	gc.retries = append(gc.retries, retry{due: gc.clock.Now().Add(d), n: n, q: q})
}

// dueRetries queues the retries that are due.
func (gc *GarbageCollector) dueRetries() {
	now := gc.clock.Now()
	kept := gc.retries[:0]
	for _, r := range gc.retries {
		if r.due.After(now) {
			kept = append(kept, r)
		} else {
			r.q.add(r.n)
		}
	}
	gc.retries = kept
}

// queue is a set of nodes in the order they were added.
type queue struct{ order []*node }

//go:noinline
func (q *queue) add(ns ...*node) {
	for _, n := range ns {
		if !slices.Contains(q.order, n) {
			q.order = append(q.order, n)
		}
	}
}

//go:noinline
func (q *queue) remove(n *node) {
	if i := slices.Index(q.order, n); i >= 0 {
		q.order = slices.Delete(q.order, i, i+1)
	}
}

func (q *queue) pop() *node {
	if len(q.order) == 0 {
		return nil
	}
	n := q.order[0]
	q.order = q.order[1:]
	return n
}

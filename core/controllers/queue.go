package controllers

import (
	"context"
	"sync"
	"time"

	"kubeplay/core/clock"
)

// Retry backoff, as client-go's default controller rate limiter: 5ms after
// the first failure, doubling to at most 1000s.
const (
	retryBase = 5 * time.Millisecond
	retryMax  = 1000 * time.Second
)

// Queue is a controller's work queue, as client-go's rate-limited workqueue:
// a key waits at most once however often it is added, is never worked on twice
// at once, comes back after a per-key exponential backoff when its sync
// fails, and AddAfter brings it back later; unlike client-go's, a key's sync
// drops what was due later for it, so a controller that asks again each time
// (level-triggered) leaves no timer behind once nothing is due. It holds at most one timer (for
// the earliest key due later) and none when nothing is due, so an idle
// controller schedules nothing.
type Queue struct {
	clock clock.Clock

	mu         sync.Mutex
	ready      []string
	dirty      map[string]bool      // waiting in ready, or to be once processed
	processing map[string]bool      // being synced
	later      map[string]time.Time // keys due at a time
	failures   map[string]int
	wake       chan struct{}
}

// NewQueue is an empty queue on clk.
func NewQueue(clk clock.Clock) *Queue {
	return &Queue{clock: clk, dirty: map[string]bool{}, processing: map[string]bool{},
		later: map[string]time.Time{}, failures: map[string]int{}, wake: make(chan struct{}, 1)}
}

// Add queues key now.
func (q *Queue) Add(key string) {
	q.mu.Lock()
	q.addLocked(key)
	q.mu.Unlock()
}

func (q *Queue) addLocked(key string) {
	if q.dirty[key] {
		return
	}
	q.dirty[key] = true
	if !q.processing[key] {
		q.ready = append(q.ready, key)
		q.poke()
	}
}

func (q *Queue) poke() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// AddAfter queues key d from now (or sooner, if it is due sooner already).
func (q *Queue) AddAfter(key string, d time.Duration) {
	if d <= 0 {
		q.Add(key)
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	at := q.clock.Now().Add(d)
	if due, ok := q.later[key]; !ok || at.Before(due) {
		q.later[key] = at
		q.poke()
	}
}

// Run syncs keys one at a time until ctx is done. A sync that fails is
// retried after a backoff; one that succeeds resets it.
func (q *Queue) Run(ctx context.Context, sync func(ctx context.Context, key string) error) {
	for {
		key, ok := q.next(ctx)
		if !ok {
			return
		}
		err := sync(ctx, key)
		q.done(key, err)
	}
}

// next waits for a key that is due.
func (q *Queue) next(ctx context.Context) (string, bool) {
	for {
		q.mu.Lock()
		now := q.clock.Now()
		var first time.Time
		for k, at := range q.later {
			switch {
			case !at.After(now):
				delete(q.later, k)
				q.addLocked(k)
			case first.IsZero() || at.Before(first):
				first = at
			}
		}
		if len(q.ready) > 0 {
			key := q.ready[0]
			q.ready = q.ready[1:]
			delete(q.dirty, key)
			// A sync says anew when its key is due again: what was due
			// later is its to ask for again.
			delete(q.later, key)
			q.processing[key] = true
			q.mu.Unlock()
			return key, true
		}
		q.mu.Unlock()
		var due <-chan time.Time
		var t clock.Timer
		if !first.IsZero() {
			t = q.clock.NewTimer(first.Sub(now))
			due = t.C()
		}
		select {
		case <-ctx.Done():
			if t != nil {
				t.Stop()
			}
			return "", false
		case <-q.wake:
		case <-due:
		}
		if t != nil {
			t.Stop()
		}
	}
}

// done finishes a sync of key: a failure brings it back after its backoff, a
// key added meanwhile comes back now.
func (q *Queue) done(key string, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.processing, key)
	if err != nil {
		n := q.failures[key]
		q.failures[key] = n + 1
		d := retryMax
		if n < 30 {
			d = min(retryBase<<n, retryMax)
		}
		if at := q.clock.Now().Add(d); q.later[key].IsZero() || at.Before(q.later[key]) {
			q.later[key] = at
		}
	} else {
		delete(q.failures, key)
	}
	if q.dirty[key] {
		q.ready = append(q.ready, key)
	}
	q.poke()
}

// Pending is how many keys wait, now or later, or are being synced: zero
// once the controller has settled.
func (q *Queue) Pending() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.ready) + len(q.later) + len(q.processing)
}

// Informer is an informer of any type, as Run starts it.
type Informer interface {
	Run(ctx context.Context)
	Synced() <-chan struct{}
}

// Run is a controller's Run: it starts the informers and, once they all have
// their first list in, syncs q's keys with sync until ctx is done.
func Run(ctx context.Context, q *Queue, sync func(ctx context.Context, key string) error, informers ...Informer) {
	for _, inf := range informers {
		go inf.Run(ctx)
	}
	if Synced(ctx, informers...) {
		q.Run(ctx, sync)
	}
}

// Synced waits until every informer has its first list in, and says whether
// they all have (false: ctx ended first).
func Synced(ctx context.Context, informers ...Informer) bool {
	for _, inf := range informers {
		select {
		case <-inf.Synced():
		case <-ctx.Done():
			return false
		}
	}
	return true
}

package registry

import (
	"container/heap"
	"context"
	"strconv"
	"time"

	"kubeplay/core/clock"
	"kubeplay/core/object"
	"kubeplay/core/storage"
)

// DefaultEventTTL is how long an Event lives after its last write:
// kube-apiserver's --event-ttl default.
const DefaultEventTTL = time.Hour

// EventTTL deletes each Event once ttl has passed since its last write, as
// kube-apiserver does by storing Events with an etcd lease of --event-ttl
// that every write renews. The deletion is storage's own (no request, no
// admission, no finalizers); watchers see it as a DELETED event. At start,
// an Event's last write is the newest time in its managedFields (else its
// creationTimestamp), so a store read back from disk expires what expired
// while it was closed. It holds one timer, for the earliest expiry, and none
// when no Event is stored.
type EventTTL struct {
	store *Store
	ttl   time.Duration
}

// EventTTL is the expiry of s's Events after ttl (0: DefaultEventTTL).
func (s *Store) EventTTL(ttl time.Duration) *EventTTL {
	if ttl <= 0 {
		ttl = DefaultEventTTL
	}
	return &EventTTL{store: s, ttl: ttl}
}

// Run expires Events until ctx ends.
func (e *EventTTL) Run(ctx context.Context) {
	for ctx.Err() == nil {
		e.watch(ctx) // again after a watcher too slow to keep up
	}
}

// watch follows the Events from their current state, deleting each at its
// expiry, until ctx ends or the watcher is closed.
func (e *EventTTL) watch(ctx context.Context) {
	res := e.store.schema.Lookup("", "v1", "events")
	w, err := e.store.storage.Watch(storage.WatchOptions{Prefix: collectionPrefix(res, ""), Initial: true})
	if err != nil {
		<-ctx.Done() // a closed store
		return
	}
	defer w.Stop()
	events := make(chan *storage.Event)
	go func() {
		defer close(events)
		for {
			ev, err := w.Next(ctx)
			if err != nil {
				return
			}
			select {
			case events <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	clk := e.store.clock
	exp := expiries{revs: map[string]int64{}}
	var timer clock.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		if timer != nil {
			timer.Stop()
			timer = nil
		}
		var due <-chan time.Time
		if exp.Len() > 0 {
			timer = clk.NewTimer(exp.items[0].at.Sub(clk.Now()))
			due = timer.C()
		}
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			switch ev.Type {
			case storage.Deleted:
				delete(exp.revs, ev.Key)
			case storage.Added, storage.Modified:
				at, rev := clk.Now(), ev.Rev
				if ev.Rev <= w.StartRevision() { // the state the watch began with
					at, rev = lastWrite(ev.Object, at)
				}
				exp.add(expiry{at: at.Add(e.ttl), key: ev.Key, rev: rev})
			}
		case <-due:
			now := clk.Now()
			for exp.Len() > 0 && !exp.items[0].at.After(now) {
				x := heap.Pop(&exp).(expiry)
				if exp.revs[x.key] == x.rev {
					delete(exp.revs, x.key)
					e.expire(x.key, x.rev)
				}
			}
		}
	}
}

// expire deletes the Event at key if it is still as written at rev.
func (e *EventTTL) expire(key string, rev int64) {
	_, _, _ = e.store.storage.Mutate(key, func(cur []byte, next int64) (storage.Change, error) {
		obj, err := object.Decode(cur)
		if cur == nil || err != nil || object.MetaString(obj, "resourceVersion") != strconv.FormatInt(rev, 10) {
			return storage.Change{Op: storage.Keep}, nil // written again meanwhile: a later expiry
		}
		return deletion(cur, next)
	})
}

// lastWrite is when the stored Event b was last written, as far as it says
// (the newest managedFields time, else its creationTimestamp, else or), and
// the revision of that write.
func lastWrite(b []byte, or time.Time) (time.Time, int64) {
	obj, err := object.Decode(b)
	if err != nil {
		return or, 0
	}
	meta := object.Meta(obj)
	rev, _ := strconv.ParseInt(object.String(meta["resourceVersion"]), 10, 64)
	last, _ := time.Parse(time.RFC3339, object.String(meta["creationTimestamp"]))
	fields, _ := meta["managedFields"].([]any)
	for _, f := range fields {
		if t, err := time.Parse(time.RFC3339, object.String(object.Path(f, "time"))); err == nil && t.After(last) {
			last = t
		}
	}
	if last.IsZero() {
		return or, rev
	}
	return last, rev
}

// expiry is when the Event at key, as written at rev, expires.
type expiry struct {
	at  time.Time
	key string
	rev int64
}

// expiries is a heap of expiries, earliest first; revs is each key's latest
// write (an expiry of an older one is stale).
type expiries struct {
	items []expiry
	revs  map[string]int64
}

// add notes x, the latest write of its key, dropping the stale expiries of
// rewritten Events once they outnumber the live ones.
func (x *expiries) add(e expiry) {
	x.revs[e.key] = e.rev
	heap.Push(x, e)
	if len(x.items) > 2*len(x.revs)+64 {
		live := x.items[:0]
		for _, it := range x.items {
			if x.revs[it.key] == it.rev {
				live = append(live, it)
			}
		}
		x.items = live
		heap.Init(x)
	}
}

func (x expiries) Len() int           { return len(x.items) }
func (x expiries) Less(i, j int) bool { return x.items[i].at.Before(x.items[j].at) }
func (x expiries) Swap(i, j int)      { x.items[i], x.items[j] = x.items[j], x.items[i] }
func (x *expiries) Push(v any)        { x.items = append(x.items, v.(expiry)) }
func (x *expiries) Pop() any {
	v := x.items[len(x.items)-1]
	x.items = x.items[:len(x.items)-1]
	return v
}

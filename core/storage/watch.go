package storage

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/tidwall/buntdb"
)

// ErrStopped: the watcher was stopped by its owner.
var ErrStopped = errors.New("storage: watcher stopped")

// WatchOptions choose what a watcher sees.
type WatchOptions struct {
	Prefix string
	// Since delivers every change after this revision (from history when it is
	// older than the store; ErrCompacted when history no longer has it). Ignored
	// when Initial is set.
	Since int64
	// Initial starts with a synthetic ADDED event for every current object, then
	// delivers every change after the revision that state was read at.
	Initial bool
	// Cached: the initial state is the watch cache's, at its revision (one
	// not older than NotOlderThan), as StartRevision says; the same objects
	// as the store's, the resource having changed since in no way.
	Cached       bool
	NotOlderThan int64
	Filter       Filter
}

// Watcher receives the changes under a prefix, in revision order. A watcher that
// falls more than Config.WatchBuffer events, or Config.WatchBufferBytes bytes of
// objects, behind is closed with ErrWatcherTooSlow, so a slow reader never holds
// up writers or memory.
type Watcher struct {
	store *Store
	opts  WatchOptions
	after int64 // changes at or below this revision are already covered
	start int64
	// backlog is what was queued at registration (the initial state, or retained
	// history), as the store's own strings: a watch pins no copy of it, and each
	// event is built only when it is read (peeked holds the next one).
	backlog    []pending
	peeked     *Event
	backlogErr error // a history entry that did not decode
	ch         chan *Event
	queued     atomic.Int64 // bytes of the objects of the events in ch
	err        error        // why ch was closed; written under store.mu before close
	closed     bool
}

// pending is a queued event not built yet: a current object, or a history entry.
type pending struct {
	key, value string
	history    bool
}

// Watch registers a watcher at the revision readers see: what is not durable
// yet reaches it as events.
func (s *Store) Watch(opts WatchOptions) (*Watcher, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if n := int64(len(s.watchers)); s.cfg.Budget.Watchers > 0 && n >= s.cfg.Budget.Watchers {
		return nil, &BudgetError{Bound: BoundWatchers, Requested: 1, Used: n, Limit: s.cfg.Budget.Watchers}
	}
	w := &Watcher{store: s, opts: opts, ch: make(chan *Event, s.cfg.WatchBuffer)}
	var err error
	rev := s.Revision() // the database's: durable, applied
	if opts.Initial {
		w.after, w.start = rev, rev
		if opts.Cached {
			s.cacheMu.Lock()
			w.start = s.cacheRevisionLocked(ListOptions{Prefix: opts.Prefix, Cache: CacheAny, NotOlderThan: opts.NotOlderThan}, rev, s.compacted)
			s.cacheMu.Unlock()
		}
		err = s.db.View(func(tx *buntdb.Tx) error {
			res := ListResult{}
			if err := scan(tx, ListOptions{Prefix: opts.Prefix, Filter: opts.Filter}, &res, s.cfg.Attrs); err != nil {
				return err
			}
			w.backlog = make([]pending, len(res.Items))
			for i, it := range res.Items {
				w.backlog[i] = pending{key: it.Key, value: it.Value}
			}
			return nil
		})
	} else {
		w.after, w.start = opts.Since, opts.Since
		if opts.Since < s.horizonLocked() {
			return nil, ErrCompacted
		}
		if opts.Since < rev {
			err = s.replay(w, rev)
		}
	}
	if err != nil {
		return nil, err
	}
	s.watchers[w] = struct{}{}
	return w, nil
}

// replay queues the retained changes after w.after up to rev. Called with s.mu
// held.
func (s *Store) replay(w *Watcher, rev int64) error {
	err := s.db.View(func(tx *buntdb.Tx) error {
		return tx.AscendRange("", historyKey(w.after+1), historyKey(rev+1), func(_, v string) bool {
			w.backlog = append(w.backlog, pending{value: v, history: true})
			return true
		})
	})
	if err == nil {
		w.after = rev
	}
	return err
}

// build turns a queued event into the one this watcher sends, or nil when it is
// not the watcher's business.
func (w *Watcher) build(p pending) (*Event, error) {
	if !p.history {
		return &Event{Type: Added, Key: p.key, Rev: w.start, Object: []byte(p.value)}, nil
	}
	e, err := decodeHistory([]byte(p.value))
	if err != nil || !strings.HasPrefix(e.Key, w.opts.Prefix) {
		return nil, err
	}
	return e.forFilter(w.opts.Filter, &w.store.cfg), nil
}

// dispatch hands ev to every watcher it concerns. Called with s.mu held.
func (s *Store) dispatch(ev *Event) {
	for w := range s.watchers {
		if ev.Rev <= w.after || !strings.HasPrefix(ev.Key, w.opts.Prefix) {
			continue
		}
		e := ev.forFilter(w.opts.Filter, &s.cfg)
		if e == nil {
			continue
		}
		select {
		case w.ch <- e:
			if w.queued.Add(int64(len(e.Object))) <= s.cfg.WatchBufferBytes {
				continue
			}
		default:
		}
		delete(s.watchers, w)
		w.close(ErrWatcherTooSlow)
	}
}

// close ends delivery. Called with store.mu held.
func (w *Watcher) close(err error) {
	if w.closed {
		return
	}
	w.closed, w.err = true, err
	close(w.ch)
}

// StartRevision is the revision the watch started from: the state's revision for an
// Initial watch, Since otherwise.
func (w *Watcher) StartRevision() int64 { return w.start }

// Replaying says whether events queued at registration (the initial state or
// the retained history) are still to be read.
func (w *Watcher) Replaying() bool {
	for w.peeked == nil && len(w.backlog) > 0 && w.backlogErr == nil {
		p := w.backlog[0]
		w.backlog[0] = pending{}
		w.backlog = w.backlog[1:]
		w.peeked, w.backlogErr = w.build(p)
	}
	return w.peeked != nil
}

// Next returns the next event, waiting for one until ctx is done. After the
// watcher is closed it returns the reason: ErrStopped, ErrWatcherTooSlow or
// ErrClosed (or a damaged history entry's error).
func (w *Watcher) Next(ctx context.Context) (*Event, error) {
	if w.Replaying() {
		e := w.peeked
		w.peeked = nil
		return e, nil
	}
	if w.backlogErr != nil {
		return nil, w.backlogErr
	}
	select {
	case e, ok := <-w.ch:
		if !ok {
			return nil, w.err
		}
		w.queued.Add(-int64(len(e.Object)))
		return e, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Pending says whether a live event is queued for the watcher already, so
// its server may write it before flushing what it wrote (kube's watch
// server flushes once its channel is empty).
func (w *Watcher) Pending() bool { return len(w.ch) > 0 }

// RequestBookmark queues a BOOKMARK at the store's current revision behind every
// change already queued, so it promises only what has really been sent. A watcher
// that is behind or waiting for a future revision gets none.
func (w *Watcher) RequestBookmark() {
	s := w.store
	s.mu.Lock()
	defer s.mu.Unlock()
	// Every event up to the durable revision is dispatched (or the watcher's
	// own starting point).
	rev := s.Revision()
	if w.closed || rev < w.after {
		return
	}
	select {
	case w.ch <- &Event{Type: Bookmark, Rev: rev}:
	default:
	}
}

// Stop unregisters the watcher and frees it at once.
func (w *Watcher) Stop() {
	s := w.store
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watchers != nil {
		delete(s.watchers, w)
	}
	w.close(ErrStopped)
}

// Watchers is the number of registered watchers.
func (s *Store) Watchers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.watchers)
}

package storage

import (
	"fmt"
	"strings"

	"github.com/tidwall/buntdb"
)

// Group commit. With a persister, a commit is journaled under s.mu but made
// durable outside it, by one Sync for every commit journaled before it, as
// etcd's write-ahead log does: concurrent writers share an fsync (natively) or
// an IndexedDB transaction or output gate (in the browser, at the edge) instead
// of taking turns for one each. Until its Sync, a commit waits in s.queue: writers
// see it (s.overlay), readers and watchers do not; once durable it is applied to
// the database, dispatched and answered, in commit order.

// queued is a journaled record waiting for a Sync.
type queued struct {
	rec journalRecord
	ev  *Event // nil for a compaction's record
	rev int64  // the store's revision once it is applied
	seq uint64
}

// overlaid is the newest queued value of an object key.
type overlaid struct {
	value   string
	present bool
	seq     uint64 // of the record that wrote it
}

// record journals rec (the change ev, or a compaction's when ev is nil) and
// returns its number. Without a persister it is applied and dispatched at
// once; with one it is queued for awaitDurable. Called with s.mu held.
func (s *Store) record(rec journalRecord, ev *Event, rev int64) (uint64, error) {
	if s.cfg.Persister == nil {
		if err := s.db.Update(func(tx *buntdb.Tx) error { return s.applyChange(tx, rec, ev, rev) }); err != nil {
			return 0, err
		}
		s.rev = rev
		s.overlayMu.Lock()
		s.head = rev
		s.overlayMu.Unlock()
		if ev != nil {
			s.dispatch(ev)
		}
		s.markDurable(rev)
		return 0, nil
	}
	if err := s.cfg.Persister.Append(rec.frame(frameJournal, origin{store: s.id, seq: s.seq + 1, rev: rev})); err != nil {
		return 0, fmt.Errorf("storage: journal write failed: %w", err)
	}
	s.seq++
	s.queuedSeq++
	s.queue = append(s.queue, queued{rec: rec, ev: ev, rev: rev, seq: s.queuedSeq})
	s.rev = rev
	s.overlayMu.Lock()
	for _, op := range rec.ops {
		if strings.HasPrefix(op.key, objectPrefix) {
			s.overlay[op.key] = overlaid{value: op.value, present: !op.del, seq: s.queuedSeq}
		}
	}
	s.head = rev
	s.overlayMu.Unlock()
	return s.queuedSeq, nil
}

// awaitDurable returns once the journal record numbered seq is durable and
// applied, syncing the journal itself when no other committer's Sync covers it.
func (s *Store) awaitDurable(seq uint64) error {
	if s.cfg.Persister == nil || seq == 0 {
		return nil
	}
	if s.settling.Load() {
		// Applied now; durable at Settle.
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.applyQueued(len(s.queue))
	}
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	s.mu.Lock()
	applied, n := s.appliedSeq, len(s.queue)
	s.mu.Unlock()
	if err := s.syncFailure(); err != nil || applied >= seq {
		return err
	}
	// Every record queued so far was appended before this Sync.
	if err := s.sync(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.applyQueued(n)
}

// Settle ends Config.Settling: every commit applied so far is made durable,
// in one Sync, before it returns; later commits wait for theirs again.
func (s *Store) Settle() error {
	if !s.settling.Swap(false) || s.cfg.Persister == nil {
		return nil
	}
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	if err := s.syncFailure(); err != nil {
		return err
	}
	// Commits already applied are appended: this Sync covers them. A commit
	// still in the queue is a committer's between journaling and its wait,
	// which syncs it itself.
	return s.sync()
}

// sync makes what is appended durable; a failure fails the store (every
// later commit and wait says so). Called with syncMu held.
func (s *Store) sync() error {
	err := s.cfg.Persister.Sync()
	if err == nil {
		return nil
	}
	err = fmt.Errorf("storage: journal sync failed: %w", err)
	s.revMu.Lock()
	s.failed = err
	s.revCond.Broadcast()
	s.revMu.Unlock()
	return err
}

// applyQueued applies the first n queued records, now durable, to the database
// in one transaction, dispatches their events in order and retires what the
// overlay held of them. Called with s.mu held.
func (s *Store) applyQueued(n int) error {
	if n == 0 {
		return nil
	}
	batch := s.queue[:n]
	err := s.db.Update(func(tx *buntdb.Tx) error {
		for _, q := range batch {
			if err := s.applyChange(tx, q.rec, q.ev, q.rev); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	last := batch[n-1]
	s.appliedSeq = last.seq
	s.overlayMu.Lock()
	for _, q := range batch {
		for _, op := range q.rec.ops {
			if o, ok := s.overlay[op.key]; ok && o.seq <= last.seq {
				delete(s.overlay, op.key)
			}
		}
	}
	s.overlayMu.Unlock()
	for i := range batch {
		if batch[i].ev != nil {
			s.dispatch(batch[i].ev)
		}
		batch[i] = queued{}
	}
	s.queue = s.queue[n:]
	s.markDurable(last.rev)
	if len(s.queue) == 0 && s.journaled >= s.cfg.SnapshotEvery {
		// A failed snapshot leaves the journal in place; nothing is lost.
		if err := s.snapshotLocked(); err == nil {
			s.journaled = 0
		}
	}
	return nil
}

// applyChange applies rec, the record of ev (nil for a compaction's) at rev,
// and notes rev as the last change of ev's resource for the watch cache's
// revision (cache.go): in memory, not in the database, as a store that
// starts again starts every cache at its revision. Readers see the note with
// the change: it is made under the database's write lock, which their read
// transactions exclude.
func (s *Store) applyChange(tx *buntdb.Tx, rec journalRecord, ev *Event, rev int64) error {
	if err := rec.apply(tx); err != nil || ev == nil {
		return err
	}
	s.changeOf(s.cfg.Collection(ev.Key)).Store(rev)
	return nil
}

// flush makes every record journaled so far durable and applied.
func (s *Store) flush() error {
	s.mu.Lock()
	seq := s.queuedSeq
	s.mu.Unlock()
	return s.awaitDurable(seq)
}

func (s *Store) syncFailure() error {
	s.revMu.Lock()
	defer s.revMu.Unlock()
	return s.failed
}

// markDurable moves the revision readers see on and wakes those waiting for it.
func (s *Store) markDurable(rev int64) {
	s.revMu.Lock()
	s.durable = max(s.durable, rev)
	s.revCond.Broadcast()
	s.revMu.Unlock()
}

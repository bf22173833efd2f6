// Package storage owns kubeplay's revisioned object store: current objects and a
// bounded history of changes in buntdb under one etcd-like revision counter, lists at
// the current or an exact past revision, watch fan-out, compaction, and persistence
// through a Persister.
//
// Keys and values are opaque to the store: values are the encoded objects, so a list
// or a watch event is mostly copying bytes. What the store needs to know about an
// object (its labels and fields for filtering, its form at another revision) it asks
// through Config.
package storage

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/buntdb"

	"kubeplay/core/clock"
)

// Errors a Store returns. Callers translate them into API Status errors.
var (
	// ErrCompacted: the requested revision is older than the retained history.
	ErrCompacted = errors.New("storage: revision has been compacted")
	// ErrFutureRevision: the requested revision is newer than the store's.
	ErrFutureRevision = errors.New("storage: revision is newer than the store")
	// ErrNotFound: a key the operation needs does not exist.
	ErrNotFound = errors.New("storage: key not found")
	// ErrWatcherTooSlow: a watcher fell too far behind and was closed.
	ErrWatcherTooSlow = errors.New("storage: watcher fell too far behind and was closed")
	// ErrClosed: the store is closed.
	ErrClosed = errors.New("storage: store is closed")
)

// Attrs are the labels and fields of one object, for label and field selectors.
type Attrs struct {
	Labels map[string]string
	Fields map[string]string
}

// Filter decides whether an object with these attributes is seen by a list or watch.
type Filter func(Attrs) bool

// Config tells a Store how to treat the objects it holds.
type Config struct {
	// Attrs returns the labels and fields of an object stored at key.
	Attrs func(key string, value []byte) Attrs
	// Restamp returns value with its resourceVersion set to rev.
	Restamp func(value []byte, rev int64) ([]byte, error)
	// HistoryWindow is how long changes are kept for watches and exact lists (default 5m).
	HistoryWindow time.Duration
	// HistoryLimit caps the number of retained changes (default 10,000).
	HistoryLimit int
	// WatchBuffer is how many events a watcher may lag behind before it is closed
	// (default 1,000).
	WatchBuffer int
	// WatchBufferBytes is how many bytes of objects a watcher may lag behind before
	// it is closed (default 64 MiB), so a watcher that does not read cannot pin
	// more than that of changes history has dropped.
	WatchBufferBytes int64
	// HistoryBytes caps the bytes of retained changes (default 256 MiB): large
	// objects written fast are compacted sooner than HistoryWindow.
	HistoryBytes int64
	// Persister makes commits durable; nil keeps everything in memory.
	Persister Persister
	// SnapshotEvery is how many journal records trigger a snapshot (default 10,000).
	SnapshotEvery int
	// Settling: until Settle, a commit is applied as soon as it is journaled,
	// without waiting for the persister to make it durable; Settle makes
	// them all durable at once. For what a sandbox writes as it starts,
	// before it answers anyone (its bootstrap objects): one IndexedDB
	// transaction or fsync for all of them, not one each. Should the host
	// stop before Settle, the store starts again without them, and nobody
	// was told they were written.
	Settling bool
	// Clock is the store's time (the history window); nil is the wall clock.
	Clock clock.Clock
	// Budget bounds the objects held and their bytes.
	Budget Budget
	// Collection names the collection of the object at key (or of the
	// objects under a list's prefix): Count counts the objects of each, and a
	// list served by the watch cache answers at its collection's last change
	// (cache.go). Storage knows nothing of the keys' layout: its owner (the
	// registry) says. Nil puts every key in one collection.
	Collection func(key string) string
}

// Store is the revisioned object store. It is safe for concurrent use; writes are
// serialized, reads run concurrently.
type Store struct {
	cfg Config
	db  *buntdb.DB

	// Locks, taken in this order:
	//
	//   mu     serializes commits (the journal append, the database update and
	//          the dispatch to watchers), watcher registration, compaction and
	//          snapshots, so that a watcher registered at revision R sees exactly
	//          the events after R. Readers of current objects (Get, List at the
	//          current revision) never take it: the database's read lock gives
	//          them a state and its revision (the m/rev key, written in the same
	//          transaction), so a slow journal write holds up writers only. A
	//          mutation's function runs outside it too (Mutate).
	//   syncMu lets one committer at a time make the journal durable (group
	//          commit, commit.go): writers journal under mu, then wait outside
	//          it for one Sync that covers every entry journaled so far.
	//   overlayMu guards what writers read of commits not durable yet.
	//   the database's own lock: taken inside mu by commits, alone by readers.
	//   revMu  guards durable for Revision and the waits on it (revCond).
	//
	// With a persister, a commit waits in queue, journaled but not durable,
	// until a Sync covers it: only then is it applied to the database (which
	// readers read: they never see what a crash could lose, and never wait),
	// dispatched to watchers and answered. Writers see the queued commits
	// through overlay, so each writes on the one before. Without a persister a
	// commit is applied at once.
	mu            sync.Mutex
	syncMu        sync.Mutex
	rev           int64    // the last commit, durable or not; guarded by mu
	id            uint64   // the store's identity, which its frames carry (replay.go); written by Open only
	seq           int64    // the place of the last frame journaled; guarded by mu
	queue         []queued // journaled, not yet durable; guarded by mu
	queuedSeq     uint64   // numbers the journaled records; guarded by mu
	appliedSeq    uint64   // the last one applied; guarded by mu
	overlayMu     sync.RWMutex
	overlay       map[string]overlaid // object key → its newest queued value; guarded by overlayMu
	head          int64               // rev, as writers read it; guarded by overlayMu
	durable       int64               // the last commit applied; guarded by revMu
	failed        error               // why a Sync failed: the store takes no more writes; guarded by revMu
	compacted     int64               // history holds every change after this revision; guarded by mu
	revCond       *sync.Cond
	revMu         sync.Mutex
	watchers      map[*Watcher]struct{} // guarded by mu
	history       []retained            // the changes history holds, oldest first; guarded by mu
	historyBytes  int64                 // the sum of their sizes; guarded by mu
	journaled     int                   // records since the last snapshot; guarded by mu
	usage         usage                 // the objects held; guarded by mu
	changed       sync.Map              // collection → *atomic.Int64: the revision of its last change applied since the store opened (Changes)
	restoreErrors []error               // written by Open only
	openRev       int64                 // the revision at Open: every watch cache starts there
	cacheMu       sync.Mutex
	progress      map[string]int64 // collection → the revision of its watch cache's last progress notification; guarded by cacheMu
	closed        atomic.Bool      // set under mu
	settling      atomic.Bool      // Config.Settling, until Settle
}

// retained locates one change in history, so compaction needs no read.
type retained struct {
	rev  int64
	time time.Time
	size int // of the history entry
}

const (
	objectPrefix  = "o/"
	historyPrefix = "h/"
	revKey        = "m/rev"
	compactedKey  = "m/compacted"
)

// Open builds a store, restoring it through cfg.Persister when there is one.
func Open(cfg Config) (*Store, error) {
	if cfg.HistoryWindow <= 0 {
		cfg.HistoryWindow = 5 * time.Minute
	}
	if cfg.HistoryLimit <= 0 {
		cfg.HistoryLimit = 10000
	}
	if cfg.WatchBuffer <= 0 {
		cfg.WatchBuffer = 1000
	}
	if cfg.WatchBufferBytes <= 0 {
		cfg.WatchBufferBytes = 64 << 20
	}
	if cfg.HistoryBytes <= 0 {
		cfg.HistoryBytes = 256 << 20
	}
	if cfg.SnapshotEvery <= 0 {
		cfg.SnapshotEvery = 10000
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real
	}
	if cfg.Attrs == nil {
		cfg.Attrs = func(string, []byte) Attrs { return Attrs{} }
	}
	if cfg.Collection == nil {
		cfg.Collection = func(string) string { return "" }
	}
	if cfg.Restamp == nil {
		cfg.Restamp = func(v []byte, _ int64) ([]byte, error) { return v, nil }
	}
	db, err := buntdb.Open(":memory:")
	if err != nil {
		return nil, err
	}
	// Expiry and shrinking are ours to manage; buntdb only holds the data.
	if err := db.SetConfig(buntdb.Config{SyncPolicy: buntdb.Never, AutoShrinkDisabled: true}); err != nil {
		return nil, err
	}
	s := &Store{cfg: cfg, db: db, watchers: map[*Watcher]struct{}{}, overlay: map[string]overlaid{}, usage: usage{collections: map[string]int64{}},
		progress: map[string]int64{}}
	s.revCond = sync.NewCond(&s.revMu)
	var d *damage
	if cfg.Persister == nil {
		// Its snapshots (an export's) carry an identity, so a store restored
		// from one need not draw and anchor its own.
		s.id = newStoreID()
	} else {
		if d, err = s.restore(); err != nil {
			db.Close()
			return nil, err
		}
		if err = dropLegacyKeys(db); err != nil {
			db.Close()
			return nil, err
		}
	}
	err = db.View(func(tx *buntdb.Tx) error {
		s.rev = readInt(tx, revKey)
		s.durable, s.head, s.openRev = s.rev, s.rev, s.rev
		s.compacted = readInt(tx, compactedKey)
		err := tx.AscendGreaterOrEqual("", objectPrefix, func(k, v string) bool {
			if !strings.HasPrefix(k, objectPrefix) {
				return false
			}
			s.usage.objects++
			s.usage.bytes += int64(len(v))
			s.usage.collections[cfg.Collection(k[len(objectPrefix):])]++
			return true
		})
		if err != nil {
			return err
		}
		var bad error
		err = tx.AscendRange("", historyPrefix, historyKey(s.rev+1), func(_, v string) bool {
			rev, t, err := peekHistoryTime(v)
			if err != nil {
				bad = err
				return false
			}
			s.history = append(s.history, retained{rev: rev, time: t, size: len(v)})
			s.historyBytes += int64(len(v))
			return true
		})
		return errors.Join(err, bad)
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	if d != nil {
		if err := s.settleDamage(d); err != nil {
			db.Close()
			return nil, err
		}
	}
	s.settling.Store(cfg.Settling)
	return s, nil
}

func readInt(tx *buntdb.Tx, key string) int64 {
	v, err := tx.Get(key)
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

// Close stops every watcher and closes the persister.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Swap(true) {
		return nil
	}
	for w := range s.watchers {
		w.close(ErrClosed)
	}
	s.watchers = nil
	s.revMu.Lock()
	s.revCond.Broadcast()
	s.revMu.Unlock()
	var err error
	if s.cfg.Persister != nil {
		err = s.cfg.Persister.Close()
	}
	return errors.Join(err, s.db.Close())
}

// Revision is the store's current revision: that of the last durable commit.
func (s *Store) Revision() int64 {
	s.revMu.Lock()
	defer s.revMu.Unlock()
	return s.durable
}

// CompactedRevision is the oldest revision still served: history holds every change
// after it.
func (s *Store) CompactedRevision() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.horizonLocked()
}

// horizonLocked is the revision compacted to as of now: s.compacted, or
// later where retained changes have passed the history window but no commit
// has dropped them yet (a commit drops a few at a time, and a quiet store
// none). So a continue token or a watch from before the window expires on
// time, as etcd's periodic compaction expires it, with or without writes
// since. Called with s.mu held.
func (s *Store) horizonLocked() int64 {
	cut := s.cfg.Clock.Now().Add(-s.cfg.HistoryWindow)
	n := sort.Search(len(s.history), func(i int) bool { return !s.history[i].time.Before(cut) })
	if n > 0 && s.history[n-1].rev > s.compacted {
		return s.history[n-1].rev
	}
	return s.compacted
}

// WaitForRevision blocks until the store has reached rev or ctx is done.
func (s *Store) WaitForRevision(ctx context.Context, rev int64) error {
	s.revMu.Lock()
	defer s.revMu.Unlock()
	if s.durable >= rev {
		return nil
	}
	stop := context.AfterFunc(ctx, func() {
		s.revMu.Lock()
		s.revCond.Broadcast()
		s.revMu.Unlock()
	})
	defer stop()
	for s.durable < rev && !s.closed.Load() && s.failed == nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.revCond.Wait()
	}
	if s.durable < rev {
		return ErrClosed
	}
	return nil
}

// Get returns the current value at key.
func (s *Store) Get(key string) (value []byte, ok bool) {
	_ = s.db.View(func(tx *buntdb.Tx) error {
		v, err := tx.Get(objectPrefix + key)
		if err == nil {
			value, ok = []byte(v), true
		}
		return nil
	})
	return value, ok
}

// Op says what a mutation does.
type Op int

const (
	// Keep leaves the key as it is: no revision, no event (an update that changed nothing).
	Keep Op = iota
	// Put creates or replaces the value.
	Put
	// Delete removes the key; Change.Value is the object as the DELETED event carries it.
	Delete
)

// Change is what a mutation function decides.
type Change struct {
	Op    Op
	Value []byte
}

// MutateFunc sees the current value (nil when absent) and the revision the commit
// will have, and decides the change. An error aborts with nothing written. It
// runs outside the store's commit lock and may run more than once (when another
// commit changed the key meanwhile), so it must have no effect but its result.
type MutateFunc func(current []byte, rev int64) (Change, error)

// optimisticTries is how often Mutate computes a change outside the commit lock
// before it computes it under the lock, so a key many write at once cannot
// starve one of them.
const optimisticTries = 3

// Mutate atomically reads key, applies fn and commits its change as one revision,
// as etcd's clients do with a compare-and-swap: fn runs on the value read outside
// the commit lock, and the change commits only if the key still holds that value
// (else fn runs again on the new one). When only the revision moved meanwhile, the
// change is restamped with the revision it gets. It returns the revision of the
// commit (or the current one for Keep) and the value now stored (for Delete, the
// value fn gave).
func (s *Store) Mutate(key string, fn MutateFunc) (int64, []byte, error) {
	okey := objectPrefix + key
	for try := 0; ; try++ {
		if s.closed.Load() {
			return 0, nil, ErrClosed
		}
		locked := try >= optimisticTries
		if locked {
			s.mu.Lock()
		}
		cur, present, rev, err := s.read(okey)
		if err != nil {
			if locked {
				s.mu.Unlock()
			}
			return 0, nil, err
		}
		ch, err := fn(bytesOf(cur, present), rev+1)
		if err != nil {
			if locked {
				s.mu.Unlock()
			}
			return 0, nil, err
		}
		if !locked {
			s.mu.Lock()
		}
		rev, stored, seq, err := s.commitIfUnchanged(key, okey, cur, present, rev, ch)
		s.mu.Unlock()
		if err == nil {
			err = s.awaitDurable(seq)
		}
		if err != errChanged {
			return rev, stored, err
		}
	}
}

// Try runs fn on the current value at key as Mutate would, with the revision a
// commit would get, and commits nothing: a dry run. It returns fn's change.
func (s *Store) Try(key string, fn MutateFunc) (Change, error) {
	if s.closed.Load() {
		return Change{}, ErrClosed
	}
	cur, present, rev, err := s.read(objectPrefix + key)
	if err != nil {
		return Change{}, err
	}
	ch, err := fn(bytesOf(cur, present), rev+1)
	if err == nil && ch.Op == Delete && !present {
		err = ErrNotFound
	}
	if err == nil && ch.Op != Keep {
		s.mu.Lock()
		err = s.usage.check(s.cfg.Budget, present, len(cur), len(ch.Value), ch.Op == Delete)
		s.mu.Unlock()
	}
	if ch.Op == Keep {
		ch.Value = bytesOf(cur, present)
	}
	return ch, err
}

// errChanged: the key changed between a mutation's read and its commit.
var errChanged = errors.New("storage: key changed")

// read returns the current value at okey as a writer sees it (queued commits
// included) and the revision it was read at.
func (s *Store) read(okey string) (value string, present bool, rev int64, err error) {
	s.overlayMu.RLock()
	defer s.overlayMu.RUnlock()
	if o, ok := s.overlay[okey]; ok {
		return o.value, o.present, s.head, nil
	}
	err = s.db.View(func(tx *buntdb.Tx) error {
		v, gerr := tx.Get(okey)
		value, present = v, gerr == nil
		return nil
	})
	if err != nil {
		return "", false, 0, ErrClosed
	}
	return value, present, s.head, nil
}

func bytesOf(v string, present bool) []byte {
	if !present {
		return nil
	}
	return []byte(v)
}

// commitIfUnchanged commits ch, decided on cur (present or not) read at revision
// read, unless the key no longer holds cur: then errChanged. It returns the
// commit's revision, the value stored and the journal record's number, which
// awaitDurable takes. Called with s.mu held.
func (s *Store) commitIfUnchanged(key, okey, cur string, present bool, read int64, ch Change) (int64, []byte, uint64, error) {
	if s.closed.Load() {
		return 0, nil, 0, ErrClosed
	}
	if s.rev != read {
		now, nowPresent, _, err := s.read(okey)
		if err != nil {
			return 0, nil, 0, err
		}
		// Strings the key has not been rewritten since share their bytes, so
		// this is a pointer comparison unless the key changed.
		if now != cur || nowPresent != present {
			return 0, nil, 0, errChanged
		}
	}
	next := s.rev + 1
	var ev *Event
	switch ch.Op {
	case Keep:
		return s.rev, bytesOf(cur, present), s.queuedSeq, nil
	case Put:
		typ := Added
		if present {
			typ = Modified
		}
		ev = &Event{Type: typ, Key: key, Rev: next, Object: ch.Value, Prev: bytesOf(cur, present)}
	case Delete:
		if !present {
			return 0, nil, 0, ErrNotFound
		}
		ev = &Event{Type: Deleted, Key: key, Rev: next, Object: ch.Value, Prev: []byte(cur)}
	default:
		return 0, nil, 0, fmt.Errorf("storage: unknown op %d", ch.Op)
	}
	deleting := ch.Op == Delete
	if err := s.usage.check(s.cfg.Budget, present, len(cur), len(ev.Object), deleting); err != nil {
		return 0, nil, 0, err
	}
	if next != read+1 {
		b, err := s.cfg.Restamp(ev.Object, next)
		if err != nil {
			return 0, nil, 0, err
		}
		ev.Object = b
	}
	seq, err := s.commit(ev)
	if err != nil {
		return 0, nil, 0, err
	}
	s.usage.apply(s.cfg.Collection(key), present, len(cur), len(ev.Object), deleting)
	return next, ev.Object, seq, nil
}

// commit records ev and the new revision as one journal record, compacting
// history as needed, and returns the record's number. Called with s.mu held.
func (s *Store) commit(ev *Event) (uint64, error) {
	ev.time = s.cfg.Clock.Now()
	rec := journalRecord{ops: make([]journalOp, 0, 4)} // object, history, revision, and room for compaction
	okey := objectPrefix + ev.Key
	hkey := historyKey(ev.Rev)
	hval := string(encodeHistory(ev))
	rev := strconv.FormatInt(ev.Rev, 10)
	if ev.Type == Deleted {
		rec.del(okey)
	} else {
		rec.set(okey, string(ev.Object))
	}
	rec.set(hkey, hval)
	rec.set(revKey, rev)
	drop, compacted := s.compactLocked(&rec, ev.time, ev.Rev, len(hval), 0, s.compacted, 16)
	if compacted != s.compacted {
		rec.set(compactedKey, strconv.FormatInt(compacted, 10))
	}
	seq, err := s.record(rec, ev, ev.Rev)
	if err != nil {
		return 0, err
	}
	s.dropHistory(drop, compacted)
	s.history = append(s.history, retained{rev: ev.Rev, time: ev.time, size: len(hval)})
	s.historyBytes += int64(len(hval))
	s.journaled++
	return seq, nil
}

// historyKey is "h/" and the revision zero-padded to 20 digits, so keys sort by revision.
func historyKey(rev int64) string {
	b := make([]byte, 0, len(historyPrefix)+20)
	b = append(b, historyPrefix...)
	digits := strconv.AppendInt(nil, rev, 10)
	for i := len(digits); i < 20; i++ {
		b = append(b, '0')
	}
	return string(append(b, digits...))
}

// compactLocked adds to rec the deletion of history entries that are past the
// window or over the limits, at most max of them so that no commit pays for all.
// It looks at the retained changes from index from on, with compacted the
// revision compaction has reached before them; head is the newest revision that
// will be in history once rec is applied, and adding the bytes that entry adds.
// It returns the index it stopped at and the compacted revision then;
// dropHistory applies both once rec is committed.
func (s *Store) compactLocked(rec *journalRecord, now time.Time, head int64, adding, from int, compacted int64, max int) (int, int64) {
	bytes := s.historyBytes + int64(adding)
	for _, h := range s.history[:from] {
		bytes -= int64(h.size)
	}
	n := from
	for ; n < len(s.history) && n-from < max; n++ {
		h := s.history[n]
		if head-compacted <= int64(s.cfg.HistoryLimit) && now.Sub(h.time) <= s.cfg.HistoryWindow && bytes <= s.cfg.HistoryBytes {
			break
		}
		rec.del(historyKey(h.rev))
		compacted = h.rev
		bytes -= int64(h.size)
	}
	return n, compacted
}

// dropHistory forgets the n oldest retained changes after their deletion committed.
func (s *Store) dropHistory(n int, compacted int64) {
	for _, h := range s.history[:n] {
		s.historyBytes -= int64(h.size)
	}
	s.history = s.history[n:]
	if cap(s.history) > 1024 && len(s.history) < cap(s.history)/4 {
		s.history = append([]retained(nil), s.history...)
	}
	s.compacted = compacted
}

// Compact drops every history entry past the window or over the limit now, and,
// when upTo > 0, every entry at or below revision upTo. It returns the compacted
// revision. The playground and tests use it to show 410 Gone on demand.
func (s *Store) Compact(upTo int64) (int64, error) {
	s.mu.Lock()
	if s.closed.Load() {
		s.mu.Unlock()
		return 0, ErrClosed
	}
	compacted, seq, err := s.compactAndCommit(journalRecord{}, upTo)
	s.mu.Unlock()
	if err != nil {
		return 0, err
	}
	return compacted, s.awaitDurable(seq)
}

// compactAndCommit records rec together with the deletion of every history
// entry at or below upTo, or past the window or over the limit. It returns the
// compacted revision and the record's number (0 when there was nothing to
// record). Called with s.mu held.
func (s *Store) compactAndCommit(rec journalRecord, upTo int64) (int64, uint64, error) {
	upTo = min(upTo, s.rev)
	n, compacted := 0, s.compacted
	for ; n < len(s.history) && s.history[n].rev <= upTo; n++ {
		rec.del(historyKey(s.history[n].rev))
		compacted = s.history[n].rev
	}
	if upTo > compacted {
		compacted = upTo
	}
	n, compacted = s.compactLocked(&rec, s.cfg.Clock.Now(), s.rev, 0, n, compacted, len(s.history))
	if compacted != s.compacted {
		rec.set(compactedKey, strconv.FormatInt(compacted, 10))
	}
	if rec.empty() {
		return s.compacted, 0, nil
	}
	seq, err := s.record(rec, nil, s.rev)
	if err != nil {
		return 0, 0, err
	}
	s.dropHistory(n, compacted)
	return s.compacted, seq, nil
}

// dropLegacyKeys removes what a store written before now kept in its
// database and keeps elsewhere now (legacyResourceRevPrefix keys).
func dropLegacyKeys(db *buntdb.DB) error {
	return db.Update(func(tx *buntdb.Tx) error {
		var keys []string
		err := tx.AscendGreaterOrEqual("", legacyResourceRevPrefix, func(k, _ string) bool {
			if !strings.HasPrefix(k, legacyResourceRevPrefix) {
				return false
			}
			keys = append(keys, k)
			return true
		})
		for _, k := range keys {
			if _, derr := tx.Delete(k); derr != nil {
				return derr
			}
		}
		return err
	})
}

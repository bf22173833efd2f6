package storage

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
)

// Replay proves the order and origin of every frame it applies, which no checksum
// can: a frame repeated, frames swapped, a frame of another store spliced in, a
// journal whose snapshot is gone all pass their checksums. Every frame carries the
// identity of the store that wrote it (drawn at random when the store was
// created, and anchored at once in a first snapshot) and its place in the
// store's journal (seq: one more than the frame before it); a snapshot's frames
// carry the seq of the last journal frame it holds. Replay applies this store's
// frames in strictly increasing seq from the snapshot on, and reports and skips
// every other frame ("journal entry N of M ..."), so that no object goes back to
// an older value or comes from another store:
//
//   - a frame of another store;
//   - a frame repeated (its seq was replayed already: it changes nothing);
//   - a frame that comes after a newer one (its seq was passed over: applying it
//     now would roll the newer change back, so its change is lost, and history
//     is compacted past it so that watches from before it answer 410);
//   - frames missing between two (their changes are lost, reported, history
//     compacted past them);
//   - frames the snapshot already holds, at the start of the journal (a crash
//     between writing the snapshot and emptying the journal leaves them), are
//     skipped without a word.
//
// A journal that does not continue its snapshot (the snapshot missing, holding
// no intact frame, or older than the journal's first frame) with no damage there
// to account for it is different: what is left is not the store's state minus a
// few changes but a store that lost everything before the journal's first frame
// (all its objects but those written since the last snapshot). Open refuses it
// with a GapError that names the revisions missing, as etcd refuses to start
// when the snapshot its write-ahead log continues is gone: starting would serve
// a nearly empty store as if it were the real one, clients would relist it,
// controllers would act on it (the garbage collector deleting the dependents of
// every owner lost), and the next snapshot would fold the journal away, leaving
// nothing to recover from. Refusing leaves every byte as it was, so the missing
// snapshot can be put back (or the stored state removed, to start empty).
// Without a snapshot, only the journal's first frame says which store it is;
// a journal holding frames of two stores is refused too.
//
// Frames from before store identities (version 1, and records of the formats
// before frames) are replayed in the order they come, never after a newer
// version-1 frame; the store then snapshots, so they are read once.

// GapError is Open's refusal of persisted state whose journal does not continue
// its snapshot: revisions From to To (To 0: every revision up to the journal's
// first) are in neither.
type GapError struct {
	From, To int64
	// Snapshot says what became of the snapshot: "missing", "unreadable" (it
	// holds no intact frame) or "older" (it ends before the journal begins).
	Snapshot string
	// SnapshotRev is where an older snapshot ends; SnapshotBytes the size of an
	// unreadable one.
	SnapshotRev, SnapshotBytes int64
	// JournalRev is the revision of the journal's first frame; 0 when it holds
	// none of this store's.
	JournalRev int64
}

func (e *GapError) Error() string {
	var what, lost string
	switch e.Snapshot {
	case "missing":
		what = "the snapshot is missing"
	case "unreadable":
		what = fmt.Sprintf("the snapshot is unreadable (%d bytes without an intact frame)", e.SnapshotBytes)
	default:
		what = fmt.Sprintf("the snapshot holds revisions up to %d", e.SnapshotRev)
	}
	if e.JournalRev > 0 {
		what += fmt.Sprintf(" and the journal starts at revision %d", e.JournalRev)
	} else {
		what += " and the journal holds no intact frame of this store"
	}
	if e.To > 0 {
		lost = fmt.Sprintf("revisions %d to %d are lost", e.From, e.To)
	} else {
		lost = "every revision is lost"
	}
	return "storage: " + what + ": " + lost + "; refusing to start on what is left " +
		"(put the snapshot back, or remove the stored state to start an empty store)"
}

// errCovered marks a frame the snapshot already holds: skipped without a word.
var errCovered = errors.New("storage: frame held by the snapshot")

// errOutOfPlace marks an intact frame that does not belong where it is; it says
// why, as what follows "journal entry N of M". The frame is skipped and reported.
type errOutOfPlace string

func (e errOutOfPlace) Error() string { return string(e) }

// snapshot states, as the restore found the snapshot.
const (
	snapNone       = iota // there is none (or it is empty)
	snapUnreadable        // it holds no intact frame
	snapRead              // its first intact frame gave its origin
)

// snapshotStates name the snapshot states as GapError.Snapshot does (a snapshot
// that was read and still leaves a gap is older than the journal).
var snapshotStates = [...]string{snapNone: "missing", snapUnreadable: "unreadable", snapRead: "older"}

// seqSpan is a run of seqs replay passed over: the frames are missing, unless
// one turns up later (too late to apply).
type seqSpan struct {
	from, to       int64 // seqs
	fromRev, toRev int64 // revisions their changes may have had
	at             int   // the journal entry after them
	damaged        bool  // damage was read in their place, and is reported as such
}

// lineage follows where the restored frames come from: the snapshot's origin,
// this store's identity, and the journal's frames one after another.
type lineage struct {
	store uint64 // this store's identity; 0 until a frame gives it

	snap      int    // snapNone, snapUnreadable, snapRead
	snapV1    bool   // the snapshot is of a format before identities (version 1, buntdb's)
	snapBytes int64  // its size
	base      origin // the snapshot's: the last journal frame it holds, its revision

	entries        int       // journal entries read
	last           origin    // the last frame replayed (the snapshot's until one is)
	replayed       bool      // a version-2 journal frame was replayed
	damaged        bool      // damage was read since the last frame replayed
	missing        []seqSpan // passed over, in order
	first          origin    // this store's journal frame with the lowest seq (seq 0: none)
	maxSeq         int64     // the highest seq of this store's frames seen
	allowance      int64     // frames that damaged stretches of the journal could have held
	damagedAtStart bool      // damage was read before any intact frame of this store

	v1First int64 // the lowest revision of a version-1 journal frame
	v1Last  int64 // the revision of the last version-1 frame replayed
	foreign int   // journal frames of another store
}

// snapshotFrame checks that an intact snapshot frame belongs to the snapshot:
// the first gives its origin, every other must share it.
func (l *lineage) snapshotFrame(p piece) error {
	if l.snap != snapRead {
		l.snap, l.snapV1, l.base = snapRead, p.v1, p.origin
		l.store, l.last = p.store, p.origin
		return nil
	}
	switch {
	case p.v1 == l.snapV1 && p.origin == l.base:
		return nil
	case !p.v1 && !l.snapV1 && p.store != l.base.store:
		return errOutOfPlace(fmt.Sprintf("belongs to another store (%016x; this one is %016x); skipped", p.store, l.base.store))
	}
	return errOutOfPlace(fmt.Sprintf("belongs to another snapshot (at revision %d; this one is at revision %d); skipped", p.rev, l.base.rev))
}

// journalFrame admits an intact journal frame for replay, or says why it is
// skipped: errOutOfPlace (reported), errCovered (not). replayed notes it once applied.
func (l *lineage) journalFrame(p piece, d *damage) error {
	switch {
	case p.kind == frameLegacy:
		d.rewrite = true
		return nil
	case p.v1:
		return l.journalFrameV1(p, d)
	}
	if l.store == 0 {
		l.store = p.store
	}
	if p.store != l.store {
		l.foreign++
		return errOutOfPlace(fmt.Sprintf("belongs to another store (%016x; this one is %016x); skipped", p.store, l.store))
	}
	if p.kind != frameJournal {
		return errDamaged(fmt.Sprintf("a frame of kind %q among journal entries", p.kind))
	}
	l.sawOurs(p.origin)
	switch {
	case p.seq == l.last.seq+1:
		return nil
	case p.seq > l.last.seq+1:
		// The missing frames' changes lie after the last frame's revision, up to
		// this one's (before it, when it is a commit's: replayedFrame).
		l.missing = append(l.missing, seqSpan{from: l.last.seq + 1, to: p.seq - 1,
			fromRev: l.last.rev + 1, toRev: p.rev, at: p.at, damaged: l.damaged})
		return nil
	case !l.replayed && p.seq <= l.base.seq:
		return errCovered
	case l.late(p.seq):
		d.upTo = max(d.upTo, p.rev)
		return errOutOfPlace(fmt.Sprintf("comes after a newer one (frame %d at revision %d, after frame %d at revision %d); skipped, its change is lost",
			p.seq, p.rev, l.last.seq, l.last.rev))
	}
	return errOutOfPlace(fmt.Sprintf("repeats frame %d (revision %d), replayed already; skipped", p.seq, p.rev))
}

// journalFrameV1 admits a version-1 frame: only before this version's frames,
// and never after a newer one.
func (l *lineage) journalFrameV1(p piece, d *damage) error {
	if p.kind != frameJournal {
		return errDamaged(fmt.Sprintf("a frame of kind %q among journal entries", p.kind))
	}
	if l.v1First == 0 || p.rev < l.v1First {
		l.v1First = p.rev
	}
	switch {
	case l.replayed:
		return errOutOfPlace(fmt.Sprintf("is of the format before store identities (revision %d), after frames of this one; skipped", p.rev))
	case l.snap == snapRead && !l.snapV1 && p.rev <= l.base.rev:
		return errCovered
	case p.rev < l.v1Last:
		d.upTo = max(d.upTo, p.rev)
		return errOutOfPlace(fmt.Sprintf("comes after a newer one (revision %d after revision %d); skipped, its change is lost", p.rev, l.v1Last))
	}
	d.rewrite = true
	return nil
}

// replayedFrame notes a journal frame journalFrame admitted, now applied;
// commit says whether it was a commit's, at its own revision.
func (l *lineage) replayedFrame(p piece, commit bool) {
	switch {
	case p.kind == frameLegacy:
	case p.v1:
		l.v1Last = p.rev
	default:
		if n := len(l.missing); commit && n > 0 && l.missing[n-1].at == p.at {
			l.missing[n-1].toRev--
		}
		l.last, l.replayed = p.origin, true
	}
	l.damaged = false
}

// sawOurs notes a frame of this store found in the journal.
func (l *lineage) sawOurs(o origin) {
	if l.first.seq == 0 || o.seq < l.first.seq {
		l.first = o
	}
	l.maxSeq = max(l.maxSeq, o.seq)
}

// late reports whether seq was passed over (a frame that comes after a newer
// one), and takes it out of what is missing.
func (l *lineage) late(seq int64) bool {
	for i, m := range l.missing {
		if seq < m.from || seq > m.to {
			continue
		}
		switch {
		case m.from == m.to:
			l.missing = append(l.missing[:i], l.missing[i+1:]...)
		case seq == m.from:
			l.missing[i].from++
		case seq == m.to:
			l.missing[i].to--
		default:
			rest := m
			rest.from = seq + 1
			l.missing[i].to = seq - 1
			l.missing = append(l.missing[:i+1], append([]seqSpan{rest}, l.missing[i+1:]...)...)
		}
		return true
	}
	return false
}

// damagedJournal notes a damaged stretch of the journal. A header that survived
// tells its frame's origin: another store's is not this store's damage (it
// reports false), this store's accounts for its seq.
func (l *lineage) damagedJournal(p piece) (ours bool) {
	if l.first.seq == 0 {
		l.damagedAtStart = true
	}
	if p.headerOK && !p.v1 && p.kind != frameLegacy {
		if l.store != 0 && p.store != l.store {
			l.foreign++
			return false
		}
		l.sawOurs(p.origin)
	} else if !p.headerOK {
		l.allowance += max(1, p.n/minCommitFrame)
	}
	l.damaged = true
	return true
}

// damagedSnapshot notes a damaged stretch of the snapshot: one whose header
// says it is another store's costs this store nothing (it reports false).
func (l *lineage) damagedSnapshot(p piece) (ours bool) {
	return !p.headerOK || p.v1 || l.snap != snapRead || l.snapV1 || p.store == l.base.store
}

// finish checks, once the journal is read, that it continues the snapshot, and
// reports the frames missing between others.
func (l *lineage) finish(d *damage) error {
	if l.snap != snapRead && l.foreign > 0 {
		// Only a snapshot says whose journal it is: without one, the first
		// frame's store was taken for this one.
		return fmt.Errorf("storage: the snapshot is %s and the journal holds frames of more than one store: "+
			"which are this store's cannot be told; refusing to start on them "+
			"(put the snapshot back, or remove the stored state to start an empty store)", snapshotStates[l.snap])
	}
	if err := l.gap(); err != nil {
		return err
	}
	for _, m := range l.missing {
		if m.damaged {
			continue // the damage in their place is reported, and settled
		}
		d.upTo = max(d.upTo, m.toRev)
		frames := fmt.Sprintf("frames %d to %d are", m.from, m.to)
		if m.from == m.to {
			frames = fmt.Sprintf("frame %d is", m.from)
		}
		d.report(fmt.Errorf("storage: %s missing before journal entry %d of %d (revisions %d to %d): their changes are lost",
			frames, m.at, l.entries, m.fromRev, m.toRev))
	}
	if l.snap != snapRead && l.first.seq == 1 {
		if l.snap == snapNone {
			d.report(errors.New("storage: the snapshot is missing; the journal holds every change since the store was created"))
		}
		d.rewrite = true
	}
	return nil
}

// gap returns the GapError of a journal that does not continue its snapshot.
func (l *lineage) gap() error {
	var baseSeq, baseRev int64
	if l.snap == snapRead {
		baseRev = l.base.rev
		if !l.snapV1 {
			baseSeq = l.base.seq
		}
	}
	e := &GapError{From: baseRev + 1, Snapshot: snapshotStates[l.snap], SnapshotRev: baseRev, SnapshotBytes: l.snapBytes}
	// With a snapshot, damage before the journal's first frame accounts for
	// those before it (and is reported); without one, only as many as the
	// damaged stretches could have held.
	allowance := l.allowance
	if l.snap == snapRead && l.damagedAtStart {
		allowance = 1 << 62
	}
	switch {
	case l.first.seq > 0:
		if l.first.seq <= baseSeq+1+allowance || l.first.rev <= baseRev+1 {
			return nil
		}
		e.JournalRev, e.To = l.first.rev, l.first.rev-1
	case l.v1First > 0:
		if l.v1First <= baseRev+1+allowance {
			return nil
		}
		e.JournalRev, e.To = l.v1First, l.v1First-1
	case l.snap == snapUnreadable:
		// Nothing in the journal stands for what the snapshot held.
	default:
		return nil
	}
	return e
}

// newStoreID draws a store's identity (never 0, which frames of version 1 carry).
func newStoreID() uint64 {
	var b [8]byte
	for {
		rand.Read(b[:])
		if id := binary.LittleEndian.Uint64(b[:]); id != 0 {
			return id
		}
	}
}

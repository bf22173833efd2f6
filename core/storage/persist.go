package storage

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/tidwall/buntdb"
)

// Persister makes the store durable. Each host brings its own: a file with fsync
// natively, IndexedDB in the browser, Durable Object storage at the edge. It keeps
// bytes the store gives it and hands them back; the store frames and checks them
// (frame.go), so every host finds and confines damage the same way.
type Persister interface {
	// Load hands over the latest snapshot (snapshot is not called when there is
	// none) and then every journal byte written after it, in order, as one stream.
	// journal returns the length of the stream's sound prefix: bytes after it are
	// an unfinished last write, never acknowledged, which the persister may drop.
	Load(snapshot func(io.Reader) error, journal func(io.Reader) (int64, error)) error
	// Append records one journal entry (a frame), not yet durably; an error
	// aborts the commit.
	Append(entry []byte) error
	// Sync makes every entry appended so far durable. A commit is acknowledged
	// only after a Sync that covers it returns nil.
	Sync() error
	// Snapshot durably replaces the snapshot and the journal with what write writes.
	Snapshot(write func(io.Writer) error) error
	// Close releases the persister.
	Close() error
}

// journalRecord is the buntdb operations of one commit: sets and deletes of keys.
// Replaying a record is idempotent, so a record journaled both before and after a
// snapshot is harmless.
type journalRecord struct {
	ops []journalOp
}

type journalOp struct {
	del   bool
	key   string
	value string
}

// commits reports whether the record is a commit's at revision rev: it records
// the change in history.
func (r *journalRecord) commits(rev int64) bool {
	hkey := historyKey(rev)
	for _, op := range r.ops {
		if !op.del && op.key == hkey {
			return true
		}
	}
	return false
}

func (r *journalRecord) set(k, v string) { r.ops = append(r.ops, journalOp{key: k, value: v}) }
func (r *journalRecord) del(k string)    { r.ops = append(r.ops, journalOp{del: true, key: k}) }
func (r *journalRecord) empty() bool     { return len(r.ops) == 0 }

func (r *journalRecord) apply(tx *buntdb.Tx) error {
	for _, op := range r.ops {
		var err error
		if op.del {
			_, err = tx.Delete(op.key)
			if errors.Is(err, buntdb.ErrNotFound) {
				err = nil
			}
		} else {
			_, _, err = tx.Set(op.key, op.value, nil)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// frame encodes the record as one frame of kind from o.
func (r *journalRecord) frame(kind byte, o origin) []byte { return r.appendFrame(nil, kind, o) }

// appendFrame appends the record's frame to dst (whose room a snapshot
// reuses from part to part).
func (r *journalRecord) appendFrame(dst []byte, kind byte, o origin) []byte {
	n := frameHeaderSize + 8
	for _, op := range r.ops {
		n += 12 + len(op.key) + len(op.value)
	}
	start := len(dst)
	dst = slices.Grow(dst, n)
	b := append(dst, make([]byte, frameHeaderSize)...)
	b = binary.AppendUvarint(b, uint64(len(r.ops)))
	for _, op := range r.ops {
		if op.del {
			b = append(b, 'D')
			b = appendString(b, op.key)
		} else {
			b = append(b, 'S')
			b = appendString(b, op.key)
			b = appendString(b, op.value)
		}
	}
	sealFrame(b[start:], kind, o)
	return b
}

// appendString is appendBytes of a string, copied once.
func appendString(b []byte, v string) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

func decodeJournalRecord(b []byte) (*journalRecord, error) {
	var rec *journalRecord
	err := walkJournalRecord(b, func(n int) { rec = &journalRecord{ops: make([]journalOp, 0, n)} }, func(del bool, k, v []byte) {
		if del {
			rec.del(string(k))
		} else {
			rec.set(string(k), string(v))
		}
	})
	return rec, err
}

// walkJournalRecord hands op each operation of an encoded record, its key
// and value in place (count first hears how many there are): a check of a
// snapshot reads them without keeping them.
func walkJournalRecord(b []byte, count func(n int), op func(del bool, key, value []byte)) error {
	r := reader{b: b}
	n := r.uvarint()
	if r.err != nil || n > uint64(len(b)) {
		return errCorrupt
	}
	count(int(n))
	for i := uint64(0); i < n; i++ {
		if len(r.b) == 0 {
			return errCorrupt
		}
		code := r.b[0]
		r.b = r.b[1:]
		switch code {
		case 'D':
			op(true, r.bytes(), nil)
		case 'S':
			k := r.bytes()
			op(false, k, r.bytes())
		default:
			return errCorrupt
		}
	}
	if r.err != nil || len(r.b) != 0 {
		return errCorrupt
	}
	return nil
}

// damage is what a restore found wrong in the persisted bytes, and the revisions it
// may have cost: settleDamage makes sure the store's revision never goes back below
// one that was acknowledged, and that watches and continue tokens from before a
// lost change answer 410, so their clients relist.
type damage struct {
	errs    []error
	lastRev int64 // the newest revision an intact header of this store carried
	unknown int64 // damaged stretches since then whose revision is unknown
	upTo    int64 // changes up to this revision may be lost
	rewrite bool  // what was read must be written again as a snapshot: an older format, a snapshot missing
}

// maxReported caps the restore errors kept for hosts to show.
const maxReported = 50

func (d *damage) report(err error) {
	switch {
	case len(d.errs) < maxReported:
		d.errs = append(d.errs, err)
	case len(d.errs) == maxReported:
		d.errs = append(d.errs, errors.New("storage: more damage, not listed"))
	}
}

// seen notes an intact header carrying rev (0 for a legacy record: unknown).
func (d *damage) seen(rev int64) {
	if rev <= 0 {
		return
	}
	if d.unknown > 0 {
		d.upTo = max(d.upTo, rev-1)
		d.unknown = 0
	}
	d.lastRev = max(d.lastRev, rev)
}

// minCommitFrame is less than any commit's frame: a header and a record setting at
// least the object, its history entry and the revision.
const minCommitFrame = frameHeaderSize + 16

// lost notes a damaged piece: with its revision when its header survived, or else
// as many commits as its bytes could have held.
func (d *damage) lost(p piece) {
	if p.headerOK && p.rev > 0 {
		d.seen(p.rev)
		d.upTo = max(d.upTo, p.rev)
		return
	}
	d.unknown += max(1, p.n/minCommitFrame)
}

// finish settles damage of unknown revision at the end: it may have held commits
// after the last revision seen, each of which may have been acknowledged.
func (d *damage) finish() {
	if d.unknown > 0 {
		d.upTo = max(d.upTo, d.lastRev+d.unknown)
		d.unknown = 0
	}
}

// errDamaged marks a frame whose checksums hold but whose content is not what its
// place needs; the frame is skipped and reported like any damage.
type errDamaged string

func (e errDamaged) Error() string { return string(e) }

// restore rebuilds the database from the persister's snapshot and journal,
// skipping and reporting whatever is damaged or out of place (replay.go), and
// gives the store its identity and the place of its next journal frame. A
// journal that does not continue its snapshot is a *GapError.
func (s *Store) restore() (*damage, error) {
	d, l := &damage{}, &lineage{}
	err := s.cfg.Persister.Load(
		func(r io.Reader) error {
			// The snapshot goes into the empty database in one transaction
			// that begins by emptying it, so buntdb keeps no undo entry per
			// key; its parts are read in place, and the keys and values of
			// one a MemoryPersister holds share its memory (stable).
			var tx *buntdb.Tx
			stable := false
			if m, ok := r.(*inMemory); ok {
				stable = m.stable
			}
			err := s.loadSnapshot(r, d, l, func(b []byte) error {
				if tx == nil {
					var err error
					if tx, err = s.db.Begin(true); err != nil {
						return err
					}
					if err := tx.DeleteAll(); err != nil {
						return err
					}
				}
				return setSnapshotPart(tx, b, stable)
			})
			if tx == nil {
				return err
			}
			if err != nil {
				_ = tx.Rollback()
				return err
			}
			return tx.Commit()
		},
		func(r io.Reader) (int64, error) {
			sound, n, err := readFrames(r, d, "journal entry", true, l.damagedJournal, func(p piece) error {
				if err := l.journalFrame(p, d); err != nil {
					return err
				}
				rec, err := s.applyRecord(p.payload)
				if err != nil {
					return err
				}
				l.replayedFrame(p, rec.commits(p.rev))
				s.journaled++
				return nil
			})
			l.entries = n
			return sound, err
		})
	if err != nil {
		return nil, fmt.Errorf("storage: restore: %w", err)
	}
	if err := l.finish(d); err != nil {
		return nil, err
	}
	s.id, s.seq = l.store, max(l.last.seq, l.maxSeq)
	if s.id == 0 {
		// A new store, or one of a format before identities: its identity is
		// drawn now and anchored in a snapshot before any frame carries it.
		s.id, d.rewrite = newStoreID(), true
	}
	return d, nil
}

// snapshotPart hands set each key and value of a snapshot part (an encoded
// journal record that only sets keys), in place, once the whole part has
// decoded: a part that does not decode, or deletes a key, is damage and
// hands over nothing.
func snapshotPart(b []byte, set func(k, v []byte)) error {
	deletes := false
	if walkJournalRecord(b, func(int) {}, func(del bool, _, _ []byte) { deletes = deletes || del }) != nil {
		return errDamaged("the record does not decode")
	}
	if deletes {
		return errDamaged("a snapshot part deletes a key")
	}
	_ = walkJournalRecord(b, func(int) {}, func(_ bool, k, v []byte) { set(k, v) })
	return nil
}

// setSnapshotPart writes a snapshot part's keys in tx. With stable, b's
// memory never changes while the store lives, so the keys and values are
// strings over it, not copies.
func setSnapshotPart(tx *buntdb.Tx, b []byte, stable bool) error {
	str := func(b []byte) string { return string(b) }
	if stable {
		str = func(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
	}
	var err error
	if perr := snapshotPart(b, func(k, v []byte) {
		if err == nil {
			_, _, err = tx.Set(str(k), str(v), nil)
		}
	}); perr != nil {
		return perr
	}
	return err
}

// applyRecord writes the operations of an encoded journal record into the database.
func (s *Store) applyRecord(b []byte) (*journalRecord, error) {
	rec, err := decodeJournalRecord(b)
	if err != nil {
		return nil, errDamaged("the record does not decode")
	}
	return rec, s.db.Update(func(tx *buntdb.Tx) error { return rec.apply(tx) })
}

// readFrames hands every intact frame of r to apply and reports the rest, as
// "<what> N of M": damaged stretches, noted by damaged (which says whether the
// damage is this store's, costing its revisions) and frames apply refuses with
// errDamaged or errOutOfPlace (errCovered skips a frame without a word). With
// torn, an unfinished write at the very end is not damage (it was never
// acknowledged). It returns where such a write starts, or else the length of r,
// and the number of pieces read.
func readFrames(r io.Reader, d *damage, what string, torn bool, damaged func(piece) bool, apply func(piece) error) (int64, int, error) {
	type bad struct {
		p    piece
		what string // why, after "<what> N of M"
	}
	var bads []bad
	sc := newFrameScanner(r)
	sound := int64(-1)
	for {
		p, ok := sc.next()
		if !ok {
			break
		}
		if p.damage == "" {
			err := apply(p)
			var (
				dmg   errDamaged
				place errOutOfPlace
			)
			switch {
			case err == nil:
				d.seen(p.rev)
				continue
			case errors.Is(err, errCovered):
				continue
			case errors.As(err, &place):
				bads = append(bads, bad{p, string(place)})
				continue
			case !errors.As(err, &dmg):
				return 0, 0, err
			}
			p.damage, p.headerOK = string(dmg), true
		}
		if torn && p.torn {
			// Never acknowledged, so nobody saw its revision; yet it is not
			// given out again.
			if p.headerOK {
				d.lastRev = max(d.lastRev, p.rev)
			}
			sound = p.off
			continue
		}
		p.payload = nil
		if damaged(p) {
			d.lost(p)
		}
		bads = append(bads, bad{p, fmt.Sprintf("is damaged (%v); skipped", p)})
	}
	if sc.err != nil {
		return 0, 0, sc.err
	}
	for _, b := range bads {
		d.report(fmt.Errorf("storage: %s %d of %d %s", what, b.p.at, sc.pieces, b.what))
	}
	if sound < 0 {
		sound = sc.off
	}
	return sound, sc.pieces, nil
}

// buntdbSnapshot begins a snapshot buntdb wrote before frames existed: its first
// set command. (One changed byte must not make a framed snapshot look like one.)
var buntdbSnapshot = []byte("*3\r\n$3\r\nset\r\n")

// peekable is frames in memory that can be peeked at, as a bufio.Reader can.
type peekable struct{ *inMemory }

func (p peekable) Peek(n int) ([]byte, error) {
	rest := p.b[p.at:]
	if len(rest) < n {
		return rest, io.EOF
	}
	return rest[:n], nil
}

// loadSnapshot reads a snapshot written by writeSnapshot, or by buntdb before
// frames existed, handing each part's encoded record to apply.
func (s *Store) loadSnapshot(r io.Reader, d *damage, l *lineage, apply func([]byte) error) error {
	var br interface {
		io.Reader
		Peek(int) ([]byte, error)
	}
	if m, ok := r.(*inMemory); ok {
		br = peekable{m}
	} else {
		br = bufio.NewReader(r)
	}
	if head, _ := br.Peek(len(buntdbSnapshot)); bytes.Equal(head, buntdbSnapshot) {
		d.rewrite, l.snap, l.snapV1 = true, snapRead, true
		if err := s.db.Load(br); err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
		return s.db.View(func(tx *buntdb.Tx) error {
			l.base.rev = readInt(tx, revKey)
			return nil
		})
	}
	parts, ended := 0, false
	l.snap = snapUnreadable
	var frames io.Reader = br
	if p, ok := br.(peekable); ok {
		frames = p.inMemory // scanned in place
	}
	size, n, err := readFrames(frames, d, "snapshot part", false, l.damagedSnapshot, func(p piece) error {
		if err := l.snapshotFrame(p); err != nil {
			return err
		}
		switch p.kind {
		case frameSnapshotHead:
			return nil
		case frameSnapshotPart:
			parts++
			return apply(p.payload)
		case frameSnapshotEnd:
			want, k := binary.Uvarint(p.payload)
			if k <= 0 || want != uint64(parts) {
				d.report(fmt.Errorf("storage: the snapshot names %d parts, %d were read", want, parts))
			}
			ended = true
			return nil
		}
		return errDamaged(fmt.Sprintf("a frame of kind %q in a snapshot", p.kind))
	})
	if err != nil {
		return err
	}
	l.snapBytes = size
	switch {
	case n == 0:
		l.snap = snapNone // empty: there is no snapshot
	case !ended:
		d.report(errors.New("storage: the snapshot is incomplete: its end is missing"))
		d.upTo = max(d.upTo, d.lastRev)
	}
	return nil
}

// settleDamage, once the store has read its state back, keeps its promises over
// what the restore found: the revision continues above every one that may have
// been acknowledged, history is compacted past every change that may be lost (so
// a watch or continue token from before it answers 410 and its client relists),
// both journaled; and a restore from an older format, or of a new store, is
// snapshotted at once.
func (s *Store) settleDamage(d *damage) error {
	s.restoreErrors = d.errs
	d.finish()
	s.mu.Lock()
	var rec journalRecord
	if floor := max(d.upTo, d.lastRev); floor > s.rev {
		s.rev = floor
		rec.set(revKey, strconv.FormatInt(floor, 10))
	}
	_, seq, err := s.compactAndCommit(rec, d.upTo)
	s.mu.Unlock()
	if err == nil {
		err = s.awaitDurable(seq)
	}
	if err != nil || !d.rewrite {
		return err
	}
	return s.Snapshot()
}

// RestoreErrors lists the damage the store found in its persisted state at start
// and skipped, so hosts can show it.
func (s *Store) RestoreErrors() []error { return s.restoreErrors }

// snapshotPartBytes is about how much of the database one snapshot frame holds:
// damage to a snapshot costs the objects of the part it hits.
const snapshotPartBytes = 64 << 10

// writeSnapshot writes the whole database as frames: a head, parts of at most
// about snapshotPartBytes, and an end that counts them; every frame carries the
// store's identity, revision and the seq of its last journal frame. Called with
// s.mu held.
func (s *Store) writeSnapshot(w io.Writer) error {
	_, err := s.writeCountedSnapshot(w, true)
	return err
}

// writeCountedSnapshot is writeSnapshot, saying what it wrote; without
// history, the snapshot holds none and is compacted at its revision.
func (s *Store) writeCountedSnapshot(w io.Writer, history bool) (SnapshotInfo, error) {
	var info SnapshotInfo
	o := origin{store: s.id, seq: s.seq, rev: s.rev}
	if _, err := w.Write(appendFrame(nil, frameSnapshotHead, o, nil)); err != nil {
		return info, err
	}
	var (
		rec         journalRecord
		size, parts int
		err         error
		scratch     []byte // a part's frame, its room reused
	)
	flush := func() {
		if rec.empty() || err != nil {
			return
		}
		scratch = rec.appendFrame(scratch[:0], frameSnapshotPart, o)
		_, err = w.Write(scratch)
		rec.ops, size = rec.ops[:0], 0
		parts++
	}
	if verr := s.db.View(func(tx *buntdb.Tx) error {
		return tx.Ascend("", func(k, v string) bool {
			if !history {
				if strings.HasPrefix(k, historyPrefix) {
					return true
				}
				if k == compactedKey {
					return true // set below, at the revision
				}
			}
			info.count(k, v)
			rec.set(k, v)
			if size += len(k) + len(v); size >= snapshotPartBytes {
				flush()
			}
			return err == nil
		})
	}); verr != nil {
		return info, verr
	}
	if !history {
		v := strconv.FormatInt(s.rev, 10)
		info.count(compactedKey, v)
		rec.set(compactedKey, v)
	}
	flush()
	if err != nil {
		return info, err
	}
	_, err = w.Write(appendFrame(nil, frameSnapshotEnd, o, binary.AppendUvarint(nil, uint64(parts))))
	return info, err
}

// snapshotLocked writes the whole database as the persister's new snapshot.
// Called with s.mu held.
func (s *Store) snapshotLocked() error {
	return s.cfg.Persister.Snapshot(s.writeSnapshot)
}

// Snapshot compacts the journal into a snapshot now.
func (s *Store) Snapshot() error {
	if s.cfg.Persister == nil {
		return nil
	}
	// A snapshot replaces the journal: what is journaled must be durable and
	// applied first.
	err := s.settled(func() error {
		err := s.snapshotLocked()
		if err == nil {
			s.journaled = 0
		}
		return err
	})
	if errors.Is(err, ErrClosed) {
		return nil
	}
	return err
}

// settled runs fn with s.mu held once every commit queued so far is durable
// and applied (none left queued), or is ErrClosed once the store is.
func (s *Store) settled(fn func() error) error {
	for {
		if err := s.flush(); err != nil {
			return err
		}
		s.mu.Lock()
		if s.closed.Load() {
			s.mu.Unlock()
			return ErrClosed
		}
		if len(s.queue) == 0 {
			defer s.mu.Unlock()
			return fn()
		}
		s.mu.Unlock()
	}
}

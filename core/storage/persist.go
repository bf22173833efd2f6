package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/tidwall/buntdb"
)

// Persister makes the store durable. Each host brings its own: a file with fsync
// natively, IndexedDB in the browser, Durable Object storage at the edge. The store
// gives it opaque records: one per commit, and now and then a whole snapshot that
// replaces every record before it.
type Persister interface {
	// Load hands over the latest snapshot (snapshot is not called when there is none)
	// and then every journal record written after it, oldest first.
	Load(snapshot func(io.Reader) error, record func([]byte) error) error
	// Append durably records one commit. The commit is acknowledged only after it
	// returns nil; an error aborts the commit.
	Append(record []byte) error
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

func (r *journalRecord) encode() []byte {
	n := 8
	for _, op := range r.ops {
		n += 12 + len(op.key) + len(op.value)
	}
	b := make([]byte, 0, n)
	b = binary.AppendUvarint(b, uint64(len(r.ops)))
	for _, op := range r.ops {
		if op.del {
			b = append(b, 'D')
			b = appendBytes(b, []byte(op.key))
		} else {
			b = append(b, 'S')
			b = appendBytes(b, []byte(op.key))
			b = appendBytes(b, []byte(op.value))
		}
	}
	return b
}

func decodeJournalRecord(b []byte) (*journalRecord, error) {
	r := reader{b: b}
	n := r.uvarint()
	if r.err != nil || n > uint64(len(b)) {
		return nil, errCorrupt
	}
	rec := &journalRecord{ops: make([]journalOp, 0, n)}
	for i := uint64(0); i < n; i++ {
		if len(r.b) == 0 {
			return nil, errCorrupt
		}
		code := r.b[0]
		r.b = r.b[1:]
		switch code {
		case 'D':
			rec.del(string(r.bytes()))
		case 'S':
			k := string(r.bytes())
			rec.set(k, string(r.bytes()))
		default:
			return nil, errCorrupt
		}
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, errCorrupt
	}
	return rec, nil
}

// restore rebuilds the database from the persister's snapshot and journal. A record
// that does not decode is reported through the persister's own means and skipped.
func (s *Store) restore() error {
	var skipped []error
	err := s.cfg.Persister.Load(
		func(r io.Reader) error { return s.db.Load(r) },
		func(b []byte) error {
			rec, err := decodeJournalRecord(b)
			if err != nil {
				skipped = append(skipped, err)
				return nil
			}
			s.journaled++
			return s.db.Update(func(tx *buntdb.Tx) error { return rec.apply(tx) })
		})
	if err != nil {
		return fmt.Errorf("storage: restore: %w", err)
	}
	s.restoreErrors = skipped
	return nil
}

// RestoreErrors lists the journal records that could not be read at start and were
// skipped, so hosts can show them.
func (s *Store) RestoreErrors() []error { return s.restoreErrors }

// snapshotLocked writes the whole database as the persister's new snapshot.
// Called with s.mu held.
func (s *Store) snapshotLocked() error {
	return s.cfg.Persister.Snapshot(func(w io.Writer) error { return s.db.Save(w) })
}

// Snapshot compacts the journal into a snapshot now.
func (s *Store) Snapshot() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.Persister == nil || s.closed {
		return nil
	}
	if err := s.snapshotLocked(); err != nil {
		return err
	}
	s.journaled = 0
	return nil
}

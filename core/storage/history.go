package storage

import (
	"errors"
	"time"

	"github.com/tidwall/buntdb"
)

// HistoryEntry is one change history keeps, as History hands it over.
type HistoryEntry struct {
	Type EventType // ADDED, MODIFIED or DELETED
	Rev  int64
	Time time.Time // when it was committed
	Key  string
	// Object is the value after the change (for DELETED, the object as
	// deleted); Prev the value before it (nil for ADDED).
	Object, Prev []byte
}

// History hands fn the changes history keeps, newest first, from the one
// before revision before (0: from the newest), until fn returns false. It
// returns the revision its view had and the oldest revision still served
// (every change after it is kept). The values are fn's to keep.
func (s *Store) History(before int64, fn func(HistoryEntry) bool) (head, compacted int64, err error) {
	if s.closed.Load() {
		return 0, 0, ErrClosed
	}
	// The horizon, not the compacted key: changes past the history window are
	// not served even before a commit drops them.
	compacted = s.CompactedRevision()
	var corrupt error
	err = s.db.View(func(tx *buntdb.Tx) error {
		head = readInt(tx, revKey)
		last := head
		if before > 0 && before <= head {
			last = before - 1
		}
		return tx.DescendRange("", historyKey(last), historyKey(compacted), func(_, v string) bool {
			e, err := decodeHistory([]byte(v))
			if err != nil {
				corrupt = err
				return false
			}
			return fn(HistoryEntry{Type: e.Type, Rev: e.Rev, Time: e.time, Key: e.Key, Object: e.Object, Prev: e.Prev})
		})
	})
	if errors.Is(err, buntdb.ErrDatabaseClosed) {
		return 0, 0, ErrClosed
	}
	if err == nil {
		err = corrupt
	}
	return head, compacted, err
}

package storage

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// WriteSnapshot writes the store's whole state at its revision in the framed
// snapshot format a Persister keeps (frame.go: every frame checksummed), for
// a sandbox's export: what is committed is applied first, and writes wait
// while it is written. It returns the revision written.
func (s *Store) WriteSnapshot(w io.Writer) (int64, error) {
	for {
		if err := s.flush(); err != nil {
			return 0, err
		}
		s.mu.Lock()
		if s.closed.Load() {
			s.mu.Unlock()
			return 0, ErrClosed
		}
		if len(s.queue) == 0 {
			rev := s.rev
			err := s.writeSnapshot(w)
			s.mu.Unlock()
			return rev, err
		}
		s.mu.Unlock()
	}
}

// SnapshotInfo is what CheckSnapshot found in a snapshot.
type SnapshotInfo struct {
	Revision int64
	// Compacted is the revision the history it keeps starts after (a watch
	// from an earlier one is 410 Gone).
	Compacted      int64
	Objects, Bytes int64
}

// CheckSnapshot reads snapshot (WriteSnapshot's) into a store of its own and
// says what it holds, or why it cannot be used whole: damaged frames, a
// missing end, anything the store would skip on a restore.
func CheckSnapshot(snapshot []byte) (SnapshotInfo, error) {
	if len(snapshot) == 0 {
		return SnapshotInfo{}, errors.New("the snapshot is empty")
	}
	if bytes.HasPrefix(snapshot, buntdbSnapshot) {
		return SnapshotInfo{}, errors.New("the snapshot is of a format before frames")
	}
	st, err := Open(Config{Persister: NewMemoryPersister(snapshot)})
	if err != nil {
		return SnapshotInfo{}, err
	}
	defer st.Close()
	if errs := st.RestoreErrors(); len(errs) > 0 {
		return SnapshotInfo{}, fmt.Errorf("the snapshot is damaged: %w", errors.Join(errs...))
	}
	objects, size := st.Usage()
	return SnapshotInfo{Revision: st.Revision(), Compacted: st.CompactedRevision(), Objects: objects, Bytes: size}, nil
}

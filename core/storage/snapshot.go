package storage

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// WriteSnapshot writes the store's whole state at its revision in the framed
// snapshot format a Persister keeps (frame.go: every frame checksummed) into
// buf, for a sandbox's export: what is committed is applied first, and
// writes wait while it is written, so it goes to memory (grown once to
// about its size), never to a client that may read slowly. It says what it
// wrote, as CheckSnapshot reads it. Without history it holds none, and is
// compacted at its revision: a store restored from it answers a watch or an
// exact list from an earlier revision with 410 Gone.
func (s *Store) WriteSnapshot(buf *bytes.Buffer, history bool) (SnapshotInfo, error) {
	var info SnapshotInfo
	err := s.settled(func() (err error) {
		// The objects and history, their keys and lengths (under 96 bytes
		// each), and a frame's header per part (frame.go).
		size, n := s.usage.bytes, s.usage.objects
		if history {
			size, n = size+s.historyBytes, n+int64(len(s.history))
		}
		buf.Grow(int(size + n*96 + size/snapshotPartBytes*64 + 4096))
		info, err = s.writeCountedSnapshot(buf, history)
		return err
	})
	return info, err
}

// SnapshotInfo is what CheckSnapshot found in a snapshot.
type SnapshotInfo struct {
	Revision int64
	// Compacted is the revision the history it keeps starts after (a watch
	// from an earlier one is 410 Gone).
	Compacted      int64
	Objects, Bytes int64
}

// countBytes is count of a key and value read in place: only the
// revision's and the compaction's values are made strings.
func (info *SnapshotInfo) countBytes(k, v []byte) {
	if bytes.HasPrefix(k, []byte(objectPrefix)) {
		info.Objects++
		info.Bytes += int64(len(v))
	} else if string(k) == revKey || string(k) == compactedKey {
		info.count(string(k), string(v))
	}
}

// count adds a stored key to what a snapshot holds.
func (info *SnapshotInfo) count(k, v string) {
	switch {
	case strings.HasPrefix(k, objectPrefix):
		info.Objects++
		info.Bytes += int64(len(v))
	case k == revKey:
		info.Revision, _ = strconv.ParseInt(v, 10, 64)
	case k == compactedKey:
		info.Compacted, _ = strconv.ParseInt(v, 10, 64)
	}
}

// CheckSnapshot reads snapshot (WriteSnapshot's) whole, as a store's restore
// reads it but storing nothing, and says what it holds, or why it cannot be
// used whole: damaged or misplaced frames, a missing end, a record that does
// not decode, anything a restore would skip.
func CheckSnapshot(snapshot []byte) (SnapshotInfo, error) {
	if len(snapshot) == 0 {
		return SnapshotInfo{}, errors.New("the snapshot is empty")
	}
	if bytes.HasPrefix(snapshot, buntdbSnapshot) {
		return SnapshotInfo{}, errors.New("the snapshot is of a format before frames")
	}
	var info SnapshotInfo
	d, l := &damage{}, &lineage{}
	// A store of no state: only its reading of frames is used.
	err := (&Store{}).loadSnapshot(&inMemory{b: snapshot}, d, l, func(b []byte) error {
		return snapshotPart(b, info.countBytes)
	})
	if err == nil {
		err = l.finish(d)
	}
	if err == nil && l.snap != snapRead {
		err = errors.New("the snapshot holds no frame")
	}
	if err != nil {
		return SnapshotInfo{}, err
	}
	if len(d.errs) > 0 {
		return SnapshotInfo{}, fmt.Errorf("the snapshot is damaged: %w", errors.Join(d.errs...))
	}
	return info, nil
}

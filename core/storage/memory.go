package storage

import (
	"bytes"
	"io"
	"sync"
)

// MemoryPersister keeps a store's snapshot and journal in memory (a
// Persister): a native workshop sandbox without --data keeps its objects in
// one while it is unloaded (the store snapshots into it as it closes, and a
// new store loads from it), and an imported sandbox starts from one holding
// the export's snapshot. It outlives the stores it serves, one at a time;
// Close releases nothing.
type MemoryPersister struct {
	mu       sync.Mutex
	snapshot []byte // nil: none yet
	checked  bool   // snapshot is one CheckSnapshot read whole
	journal  []byte
}

// NewMemoryPersister is a MemoryPersister whose snapshot is snapshot (nil:
// an empty store). The persister keeps snapshot, and a store restored from
// it keeps strings over its memory: the caller must never change it.
func NewMemoryPersister(snapshot []byte) *MemoryPersister {
	return &MemoryPersister{snapshot: snapshot}
}

// NewCheckedMemoryPersister is NewMemoryPersister of a snapshot that
// CheckSnapshot has just read whole (an export export.ReadBytes accepted):
// the store restored from it does not compute its frames' checksums again,
// so an import reads the snapshot's bytes once for damage, not twice.
func NewCheckedMemoryPersister(snapshot []byte) *MemoryPersister {
	return &MemoryPersister{snapshot: snapshot, checked: true}
}

func (p *MemoryPersister) Load(snapshot func(io.Reader) error, journal func(io.Reader) (int64, error)) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.snapshot != nil {
		if err := snapshot(&inMemory{b: p.snapshot, stable: true, checked: p.checked}); err != nil {
			return err
		}
	}
	sound, err := journal(&inMemory{b: p.journal})
	if err != nil {
		return err
	}
	p.journal = p.journal[:min(sound, int64(len(p.journal)))]
	return nil
}

func (p *MemoryPersister) Append(frame []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.journal = append(p.journal, frame...)
	return nil
}

func (p *MemoryPersister) Sync() error { return nil }

func (p *MemoryPersister) Snapshot(write func(io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.snapshot, p.journal, p.checked = bytes.Clone(b.Bytes()), nil, false
	return nil
}

func (p *MemoryPersister) Close() error { return nil }

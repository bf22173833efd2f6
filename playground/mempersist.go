package main

import (
	"bytes"
	"io"
	"sync"
)

// memPersister keeps a store's snapshot and journal in memory
// (storage.Persister), so that a workshop sandbox without --data keeps its
// objects while it is unloaded: the store snapshots into it as it closes,
// and a new store loads from it. It outlives the stores it serves, one at a
// time; Close releases nothing.
type memPersister struct {
	mu       sync.Mutex
	snapshot []byte // nil: none yet
	journal  []byte
}

func (p *memPersister) Load(snapshot func(io.Reader) error, journal func(io.Reader) (int64, error)) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.snapshot != nil {
		if err := snapshot(bytes.NewReader(p.snapshot)); err != nil {
			return err
		}
	}
	sound, err := journal(bytes.NewReader(p.journal))
	if err != nil {
		return err
	}
	p.journal = p.journal[:min(sound, int64(len(p.journal)))]
	return nil
}

func (p *memPersister) Append(frame []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.journal = append(p.journal, frame...)
	return nil
}

func (p *memPersister) Sync() error { return nil }

func (p *memPersister) Snapshot(write func(io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.snapshot, p.journal = bytes.Clone(b.Bytes()), nil
	return nil
}

func (p *memPersister) Close() error { return nil }

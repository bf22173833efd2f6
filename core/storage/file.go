package storage

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log"
	"os"
	"path/filepath"
)

// FilePersister keeps a snapshot and a journal in a directory. Every Append is
// written and fsynced before it returns, so an acknowledged write survives a crash;
// a torn record at the end of the journal (a write that was never acknowledged) is
// cut off at the next start.
type FilePersister struct {
	dir     string
	journal *os.File
	// Logf reports records skipped at load; nil uses the standard logger.
	Logf func(format string, args ...any)
}

const (
	snapshotFile = "snapshot"
	journalFile  = "journal"
	frameHeader  = 8 // uint32 length, uint32 CRC-32C of the payload
	maxRecord    = 1 << 30
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// OpenFilePersister opens (creating it if needed) the data directory dir.
func OpenFilePersister(dir string) (*FilePersister, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &FilePersister{dir: dir}, nil
}

func (p *FilePersister) logf(format string, args ...any) {
	if p.Logf != nil {
		p.Logf(format, args...)
		return
	}
	log.Printf(format, args...)
}

// Load reads the snapshot, then the journal's records; it leaves the journal open
// for appending after the last whole record.
func (p *FilePersister) Load(snapshot func(io.Reader) error, record func([]byte) error) error {
	if f, err := os.Open(filepath.Join(p.dir, snapshotFile)); err == nil {
		err = snapshot(bufio.NewReader(f))
		f.Close()
		if err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(filepath.Join(p.dir, journalFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	good, err := readFrames(f, record, p.logf)
	if err != nil {
		f.Close()
		return err
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return err
	}
	p.journal = f
	return nil
}

// readFrames calls record for each intact frame and returns the offset after the
// last whole frame. A frame whose checksum fails is reported and skipped.
func readFrames(f *os.File, record func([]byte) error, logf func(string, ...any)) (int64, error) {
	r := bufio.NewReader(f)
	var off int64
	hdr := make([]byte, frameHeader)
	for {
		if _, err := io.ReadFull(r, hdr); err != nil {
			return off, nil // end, or a torn header
		}
		n := binary.LittleEndian.Uint32(hdr)
		sum := binary.LittleEndian.Uint32(hdr[4:])
		if n > maxRecord {
			logf("storage: journal record at offset %d has impossible length %d; ignoring the rest", off, n)
			return off, nil
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return off, nil // torn record: never acknowledged
		}
		off += frameHeader + int64(n)
		if crc32.Checksum(payload, castagnoli) != sum {
			logf("storage: journal record ending at offset %d is corrupt; skipped", off)
			continue
		}
		if err := record(payload); err != nil {
			return off, err
		}
	}
}

// Append writes one framed record and fsyncs it.
func (p *FilePersister) Append(rec []byte) error {
	if p.journal == nil {
		return errors.New("storage: journal not loaded")
	}
	frame := make([]byte, frameHeader, frameHeader+len(rec))
	binary.LittleEndian.PutUint32(frame, uint32(len(rec)))
	binary.LittleEndian.PutUint32(frame[4:], crc32.Checksum(rec, castagnoli))
	frame = append(frame, rec...)
	if _, err := p.journal.Write(frame); err != nil {
		return err
	}
	return p.journal.Sync()
}

// Snapshot writes a new snapshot beside the old one, renames it into place and
// empties the journal. A crash in between leaves records that are also in the
// snapshot; replaying them again is harmless.
func (p *FilePersister) Snapshot(write func(io.Writer) error) error {
	tmp := filepath.Join(p.dir, snapshotFile+".tmp")
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := write(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(p.dir, snapshotFile)); err != nil {
		return err
	}
	if d, err := os.Open(p.dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	if err := p.journal.Truncate(0); err != nil {
		return err
	}
	if _, err := p.journal.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return p.journal.Sync()
}

// Close closes the journal.
func (p *FilePersister) Close() error {
	if p.journal == nil {
		return nil
	}
	return p.journal.Close()
}

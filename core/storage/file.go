package storage

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FilePersister keeps a snapshot and a journal of frames in a directory. Append
// writes a frame; Sync fsyncs the journal, once for every frame written before
// it (the store's group commit), and only then is a write acknowledged, so an
// acknowledged write survives a crash. At start, an unfinished frame at the very
// end of the journal (a write that was never acknowledged) is cut off; nothing
// before it ever is: damaged frames stay where they are, reported by the store at
// every start until a snapshot replaces the journal.
//
// The directory has one writer: the persister holds its lock file from Open to
// Close (lockDir), and a second one on it fails at once, naming the holder's pid.
// Two writers would each append frames the other never reads, and each snapshot
// would fold away the other's journal.
type FilePersister struct {
	dir     string
	lock    *os.File
	journal *os.File
	size    int64 // of the journal: where the next frame goes
}

const (
	snapshotFile = "snapshot"
	journalFile  = "journal"
	lockFile     = "lock"
)

// OpenFilePersister opens (creating it if needed) the data directory dir and
// takes its lock.
func OpenFilePersister(dir string) (*FilePersister, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	return &FilePersister{dir: dir, lock: lock}, nil
}

// openLockFile opens (creating it) the lock file of dir.
func openLockFile(dir string) (*os.File, string, error) {
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	return f, path, err
}

// writePID records this process as the holder of the lock file f.
func writePID(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return err
}

// lockedError says that dir is in use, by the process whose pid its lock file
// at path names.
func lockedError(dir, path string) error {
	holder := "another process"
	if b, err := os.ReadFile(path); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			holder = fmt.Sprintf("process %d", pid)
		}
	}
	return fmt.Errorf("storage: the data directory %s is in use by %s, which holds its lock (%s); "+
		"one directory has one server: stop that one, or give this one another directory", dir, holder, path)
}

// Empty says whether the directory holds no store yet: no snapshot and no
// journal entry.
func (p *FilePersister) Empty() (bool, error) {
	for _, name := range []string{snapshotFile, journalFile} {
		st, err := os.Stat(filepath.Join(p.dir, name))
		if err == nil && st.Size() > 0 {
			return false, nil
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return false, err
		}
	}
	return true, nil
}

// Load reads the snapshot, then the journal; it leaves the journal open for
// appending after its last byte, an unfinished last frame cut off.
func (p *FilePersister) Load(snapshot func(io.Reader) error, journal func(io.Reader) (int64, error)) error {
	if f, err := os.Open(filepath.Join(p.dir, snapshotFile)); err == nil {
		err = snapshot(f)
		f.Close()
		if err != nil {
			return err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(filepath.Join(p.dir, journalFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	r, legacy, err := legacyJournal(bufio.NewReaderSize(f, readChunk))
	if err != nil {
		f.Close()
		return err
	}
	sound, err := journal(r)
	if legacy {
		sound = 1 << 62 // offsets in the converted stream are not the file's; the store snapshots next
	}
	if err == nil {
		err = p.keep(f, sound)
	}
	if err != nil {
		f.Close()
		return err
	}
	p.journal = f
	return nil
}

// keep cuts f to its first n bytes, when it is longer, and makes it the journal.
func (p *FilePersister) keep(f *os.File, n int64) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() > n {
		if err := f.Truncate(n); err != nil {
			return err
		}
	}
	p.size = min(n, st.Size())
	_, err = f.Seek(p.size, io.SeekStart)
	return err
}

// legacyJournal reads a journal written before frames (records framed by a
// uint32 length and a CRC-32C) as frames: one is when it does not start with a
// frame's magic and its first record checks. Any other journal passes as it is.
// The store snapshots after replaying legacy records, so this is read once.
func legacyJournal(r *bufio.Reader) (io.Reader, bool, error) {
	if head, _ := r.Peek(len(magicPrefix)); len(head) == 0 || bytes.Equal(head, magicPrefix) {
		return r, false, nil
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, false, err
	}
	record := func(b []byte) (n int, ok bool) {
		if len(b) < 8 {
			return 0, false
		}
		size := binary.LittleEndian.Uint32(b)
		if uint64(size) > uint64(len(b)-8) {
			return 0, false // the end, or a torn last record: never acknowledged
		}
		return 8 + int(size), crc32.Checksum(b[8:8+size], castagnoli) == binary.LittleEndian.Uint32(b[4:])
	}
	if _, ok := record(data); !ok {
		return bytes.NewReader(data), false, nil
	}
	var frames bytes.Buffer
	for n, ok := record(data); n > 0; n, ok = record(data) {
		if ok {
			frames.Write(LegacyFrame(data[8:n]))
		} else {
			frames.Write(data[:n]) // not a frame: the store reports it as damage
		}
		data = data[n:]
	}
	return &frames, true, nil
}

// Append writes one frame. A failed write is cut off again, so the next frame
// follows the last whole one.
func (p *FilePersister) Append(frame []byte) error {
	if p.journal == nil {
		return errors.New("storage: journal not loaded")
	}
	if _, err := p.journal.Write(frame); err != nil {
		_ = p.journal.Truncate(p.size)
		_, _ = p.journal.Seek(p.size, io.SeekStart)
		return err
	}
	p.size += int64(len(frame))
	return nil
}

// Sync makes every frame written so far durable.
func (p *FilePersister) Sync() error {
	if p.journal == nil {
		return errors.New("storage: journal not loaded")
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
	if p.journal == nil {
		// Before Load (an import into an empty directory): no journal is
		// open, and none may follow a snapshot written now.
		return removeIfExists(filepath.Join(p.dir, journalFile))
	}
	if err := p.journal.Truncate(0); err != nil {
		return err
	}
	if _, err := p.journal.Seek(0, io.SeekStart); err != nil {
		return err
	}
	p.size = 0
	return p.journal.Sync()
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// Close closes the journal and lets the directory's lock go. It may be called
// more than once.
func (p *FilePersister) Close() error {
	var err error
	if p.journal != nil {
		err = p.journal.Close()
		p.journal = nil
	}
	if p.lock != nil {
		err = errors.Join(err, p.lock.Close())
		p.lock = nil
	}
	return err
}

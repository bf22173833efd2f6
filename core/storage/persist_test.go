package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The journal and snapshot under damage, on both kinds of host persister: a byte
// stream (FilePersister, natively) and separate entries (entryPersister, which
// stores them as the browser's IndexedDB and the edge's Durable Object storage do,
// and hands them back as wasm/bridge does).

// entryPersister keeps each journal entry apart, as IndexedDB and Durable Object
// storage do.
type entryPersister struct {
	snapshot []byte
	entries  [][]byte
}

func (p *entryPersister) Load(snapshot func(io.Reader) error, journal func(io.Reader) (int64, error)) error {
	if p.snapshot != nil {
		if err := snapshot(bytes.NewReader(p.snapshot)); err != nil {
			return err
		}
	}
	rs := make([]io.Reader, len(p.entries))
	for i, e := range p.entries {
		rs[i] = bytes.NewReader(e)
	}
	_, err := journal(io.MultiReader(rs...))
	return err
}
func (p *entryPersister) Append(e []byte) error {
	p.entries = append(p.entries, append([]byte(nil), e...))
	return nil
}
func (p *entryPersister) Sync() error { return nil }
func (p *entryPersister) Snapshot(write func(io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	p.snapshot, p.entries = b.Bytes(), nil
	return nil
}
func (p *entryPersister) Close() error { return nil }

// writeRecords opens a store on p, writes n keys (one commit each) and closes it.
// It returns the revision of each key's commit.
func writeRecords(t testing.TB, p Persister, n int) []int64 {
	t.Helper()
	s, err := Open(Config{Persister: p, SnapshotEvery: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	revs := make([]int64, n)
	for i := range revs {
		revs[i] = put(t, s, recordKey(i), recordValue(i))
	}
	s.Close()
	return revs
}

func recordKey(i int) string   { return fmt.Sprintf("k/%03d", i) }
func recordValue(i int) string { return fmt.Sprintf(`{"data":{"i":"%d"}}`, i) }

// journalFrames splits a journal written by writeRecords into its frames' offsets.
func journalFrames(t testing.TB, data []byte) [][2]int {
	t.Helper()
	var out [][2]int
	for off := 0; off < len(data); {
		h, ok := parseFrameHeader(data[off:])
		if !ok {
			t.Fatalf("no frame at %d", off)
		}
		out = append(out, [2]int{off, off + h.size + h.length})
		off += h.size + h.length
	}
	return out
}

// restored is what a store opened after damage shows.
type restored struct {
	s      *Store
	values map[string]string
	errs   []error
}

func reopen(t testing.TB, p Persister) restored {
	t.Helper()
	s, err := Open(Config{Persister: p, SnapshotEvery: 1 << 30})
	if err != nil {
		t.Fatalf("open after damage: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	res, err := s.List(ListOptions{Prefix: "k/"})
	if err != nil {
		t.Fatal(err)
	}
	r := restored{s: s, values: map[string]string{}, errs: s.RestoreErrors()}
	for _, it := range res.Items {
		r.values[it.Key] = it.Value
	}
	return r
}

// damages are the ways a stored frame gets hurt, applied to frame [start, end) of data.
var damages = []struct {
	name string
	hurt func(data []byte, start, end int) []byte
}{
	{"length+1", func(d []byte, s, _ int) []byte { d[s+13]++; return d }},
	{"length-1", func(d []byte, s, _ int) []byte { d[s+13]--; return d }},
	{"length-huge", func(d []byte, s, _ int) []byte { d[s+16] = 0x7f; return d }},
	{"payload-byte", func(d []byte, s, e int) []byte { d[(s+frameHeaderSize+e)/2] ^= 0x20; return d }},
	{"payload-sum", func(d []byte, s, _ int) []byte { d[s+17] ^= 1; return d }},
	{"header-sum", func(d []byte, s, _ int) []byte { d[s+frameHeaderSize-2] ^= 0xff; return d }},
	{"store", func(d []byte, s, _ int) []byte { d[s+22] ^= 0x10; return d }},
	{"seq", func(d []byte, s, _ int) []byte { d[s+30] ^= 0x01; return d }},
	{"magic", func(d []byte, s, _ int) []byte { d[s] = 'x'; return d }},
	{"revision", func(d []byte, s, _ int) []byte { d[s+6] ^= 4; return d }},
	{"bytes-removed", func(d []byte, s, e int) []byte { return append(d[:s+10:s+10], d[s+30:]...) }},
	{"bytes-inserted", func(d []byte, s, _ int) []byte {
		return append(d[:s+frameHeaderSize+2:s+frameHeaderSize+2], append([]byte("XXXXXXX"), d[s+frameHeaderSize+2:]...)...)
	}},
	{"zeroed", func(d []byte, s, e int) []byte { clear(d[s+3 : e-1]); return d }},
}

// checkDamageRestore checks a restore after frame victim of n was damaged: every
// other record is back, the damage is reported, the revision continues above every
// acknowledged one, and a watch from before the lost change answers 410.
func checkDamageRestore(t *testing.T, r restored, revs []int64, victim int) {
	t.Helper()
	for i := range revs {
		v, ok := r.values[recordKey(i)]
		if i == victim {
			if ok {
				t.Errorf("the damaged record %d came back as %q", i, v)
			}
			continue
		}
		if v != recordValue(i) {
			t.Errorf("record %d: got %q (present %v), want %q", i, v, ok, recordValue(i))
		}
	}
	if len(r.errs) == 0 || !strings.Contains(r.errs[0].Error(), "is damaged") {
		t.Errorf("restore errors: %v", r.errs)
	}
	last := revs[len(revs)-1]
	if got := r.s.Revision(); got < last {
		t.Errorf("revision went back from %d to %d", last, got)
	}
	if rev := put(t, r.s, "k/next", "x"); rev <= last {
		t.Errorf("the next write got revision %d, not above the acknowledged %d", rev, last)
	}
	if victim > 0 {
		if _, err := r.s.Watch(WatchOptions{Prefix: "k/", Since: revs[victim-1]}); !errors.Is(err, ErrCompacted) {
			t.Errorf("a watch from before the lost change: %v, want ErrCompacted", err)
		}
	}
	if _, err := r.s.Watch(WatchOptions{Prefix: "k/", Since: revs[len(revs)-1]}); victim < len(revs)-1 && err != nil {
		t.Errorf("a watch from after the lost change: %v", err)
	}
}

// TestPLAY_8_JournalDamageSkippedAlone: on the native file journal, damage to one
// record at the start, middle or end (its length, payload, checksums, magic;
// bytes removed, inserted or zeroed) costs that record alone; the journal is never
// cut before an intact record, and revisions never go back.
func TestPLAY_8_JournalDamageSkippedAlone(t *testing.T) {
	const n = 40
	for _, dmg := range damages {
		for _, victim := range []int{0, n / 2, n - 1} {
			t.Run(fmt.Sprintf("%s/record-%d", dmg.name, victim), func(t *testing.T) {
				dir := t.TempDir()
				p, _ := OpenFilePersister(dir)
				revs := writeRecords(t, p, n)
				path := filepath.Join(dir, journalFile)
				data, _ := os.ReadFile(path)
				frames := journalFrames(t, data)
				if len(frames) != n {
					t.Fatalf("%d frames for %d commits", len(frames), n)
				}
				data = dmg.hurt(data, frames[victim][0], frames[victim][1])
				os.WriteFile(path, data, 0o644)
				intactEnd := int64(frames[n-1][1] + len(data) - frames[n-1][1]) // every byte after the damage is intact
				if victim == n-1 {
					intactEnd = int64(frames[victim][0])
				}

				p, _ = OpenFilePersister(dir)
				r := reopen(t, p)
				checkDamageRestore(t, r, revs, victim)
				st, _ := os.Stat(path)
				if st.Size() < intactEnd {
					t.Errorf("journal cut to %d bytes, before intact data up to %d", st.Size(), intactEnd)
				}
			})
		}
	}
}

// TestPLAY_2_EntryJournalDamageSkippedAlone: the same damage in a host that keeps
// entries apart (the browser's IndexedDB, the edge's Durable Object storage).
func TestPLAY_2_EntryJournalDamageSkippedAlone(t *testing.T) {
	const n = 40
	for _, dmg := range damages {
		for _, victim := range []int{0, n / 2, n - 1} {
			t.Run(fmt.Sprintf("%s/entry-%d", dmg.name, victim), func(t *testing.T) {
				p := &entryPersister{}
				revs := writeRecords(t, p, n)
				e := p.entries[victim]
				p.entries[victim] = dmg.hurt(append([]byte(nil), e...), 0, len(e))
				checkDamageRestore(t, reopen(t, p), revs, victim)
			})
		}
	}
}

// TestPLAY_2_DamagedTailRevisionsDoNotGoBack: when the last entries are damaged
// beyond reading their revision, the store still continues above them.
func TestPLAY_2_DamagedTailRevisionsDoNotGoBack(t *testing.T) {
	p := &entryPersister{}
	revs := writeRecords(t, p, 10)
	for _, i := range []int{8, 9} {
		clear(p.entries[i][:frameHeaderSize])
	}
	r := reopen(t, p)
	if len(r.errs) != 1 || !strings.Contains(r.errs[0].Error(), "no intact frame header") {
		t.Fatalf("restore errors: %v", r.errs) // one stretch: nothing marks where entry 9 began
	}
	if rev := put(t, r.s, "k/next", "x"); rev <= revs[9] {
		t.Fatalf("next revision %d reuses one up to %d", rev, revs[9])
	}
	// The settled revision is journaled: a second restart agrees, and reports the
	// same damage again until a snapshot replaces the journal.
	r.s.Close()
	r2 := reopen(t, p)
	if got := r2.s.Revision(); got <= revs[9] {
		t.Fatalf("after a second restart revision %d", got)
	}
	if len(r2.errs) != 1 {
		t.Fatalf("second restart reports %v", r2.errs)
	}
	if err := r2.s.Snapshot(); err != nil {
		t.Fatal(err)
	}
	r2.s.Close()
	if r3 := reopen(t, p); len(r3.errs) != 0 || len(r3.values) != 9 {
		t.Fatalf("after a snapshot: errors %v, %d values", r3.errs, len(r3.values))
	}
}

// TestPLAY_8_TornLastWriteCut: an unfinished last frame (a write that was never
// acknowledged: the header whole and the payload short, or less than a header, or
// zeros a file system left) is cut off silently; a new write follows the last
// whole frame and does not reuse the torn one's revision.
func TestPLAY_8_TornLastWriteCut(t *testing.T) {
	for _, tc := range []struct {
		name string
		tail func(frame []byte) []byte
	}{
		{"short-payload", func(f []byte) []byte { return f[:len(f)-3] }},
		{"short-header", func(f []byte) []byte { return f[:frameHeaderSize-4] }},
		{"zeros", func(f []byte) []byte { return make([]byte, 512) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p, _ := OpenFilePersister(dir)
			revs := writeRecords(t, p, 5)
			path := filepath.Join(dir, journalFile)
			data, _ := os.ReadFile(path)
			var rec journalRecord
			rec.set(objectPrefix+"k/torn", "never acknowledged")
			torn := tc.tail(rec.frame(frameJournal, origin{rev: revs[4] + 1}))
			os.WriteFile(path, append(data, torn...), 0o644)

			p, _ = OpenFilePersister(dir)
			r := reopen(t, p)
			if len(r.errs) != 0 || len(r.values) != 5 {
				t.Fatalf("errors %v, values %v", r.errs, r.values)
			}
			// Cut back to the last whole frame; what follows is whole frames (the
			// restore journals that the torn revision is not given out again).
			after, _ := os.ReadFile(path)
			if !bytes.HasPrefix(after, data) {
				t.Fatal("the journal before the torn write changed")
			}
			journalFrames(t, after[len(data):])
			if rev := put(t, r.s, "k/next", "x"); rev <= revs[4] {
				t.Fatalf("next revision %d", rev)
			}
		})
	}
}

// TestPLAY_8_SnapshotDamageConfined: a changed byte inside an object of the
// snapshot costs the part of the snapshot it hit, reported; every other part
// loads, and nothing damaged is ever served.
func TestPLAY_8_SnapshotDamageConfined(t *testing.T) {
	for _, host := range []string{"file", "entries"} {
		t.Run(host, func(t *testing.T) {
			dir := t.TempDir()
			var p Persister = &entryPersister{}
			if host == "file" {
				p, _ = OpenFilePersister(dir)
			}
			s, err := Open(Config{Persister: p})
			if err != nil {
				t.Fatal(err)
			}
			big := strings.Repeat("v", 20<<10)
			for i := 0; i < 40; i++ {
				put(t, s, recordKey(i), `{"i":"`+fmt.Sprint(i)+`","pad":"`+big+`"}`)
			}
			last := s.Revision()
			if err := s.Snapshot(); err != nil {
				t.Fatal(err)
			}
			s.Close()
			snap := func() []byte {
				if host == "file" {
					b, _ := os.ReadFile(filepath.Join(dir, snapshotFile))
					return b
				}
				return p.(*entryPersister).snapshot
			}()
			// The current object, not its copy in history.
			at := bytes.Index(snap, []byte(objectPrefix+recordKey(17)))
			if at >= 0 {
				at += bytes.Index(snap[at:], []byte(`{"i":"17"`))
			}
			if at < 0 {
				t.Fatal("object not found in the snapshot")
			}
			snap[at+2] = 'X' // inside the object's JSON
			if host == "file" {
				os.WriteFile(filepath.Join(dir, snapshotFile), snap, 0o644)
				p, _ = OpenFilePersister(dir)
			}
			r := reopen(t, p)
			if !strings.Contains(fmt.Sprint(r.errs), "of 22 is damaged (82086 bytes") {
				t.Fatalf("restore errors %v", r.errs)
			}
			if _, ok := r.values[recordKey(17)]; ok {
				t.Fatal("the damaged object was served")
			}
			if len(r.values) < 30 {
				t.Fatalf("only %d of 40 objects survived one damaged byte", len(r.values))
			}
			for k, v := range r.values {
				if !strings.HasPrefix(v, `{"i":"`) {
					t.Fatalf("%s holds %.40q", k, v)
				}
			}
			if r.s.Revision() < last {
				t.Fatalf("revision %d < %d", r.s.Revision(), last)
			}
		})
	}
}

// TestPLAY_8_LegacyJournalRead: a data directory from before frames (records
// framed by length and CRC, a buntdb snapshot) is read once and rewritten in
// frames.
func TestPLAY_8_LegacyJournalRead(t *testing.T) {
	dir := t.TempDir()
	var legacy []byte
	for i := 0; i < 3; i++ {
		var rec journalRecord
		rec.set(objectPrefix+recordKey(i), recordValue(i))
		rec.set(revKey, fmt.Sprint(i+1))
		payload := rec.frame(frameJournal, origin{})[frameHeaderSize:]
		legacy = binary.LittleEndian.AppendUint32(legacy, uint32(len(payload)))
		legacy = binary.LittleEndian.AppendUint32(legacy, crc32.Checksum(payload, castagnoli))
		legacy = append(legacy, payload...)
	}
	os.WriteFile(filepath.Join(dir, journalFile), legacy, 0o644)
	p, _ := OpenFilePersister(dir)
	r := reopen(t, p)
	if len(r.values) != 3 || r.s.Revision() != 3 || len(r.errs) != 0 {
		t.Fatalf("values %v, revision %d, errors %v", r.values, r.s.Revision(), r.errs)
	}
	snap, _ := os.ReadFile(filepath.Join(dir, snapshotFile))
	if !bytes.HasPrefix(snap, frameMagic) {
		t.Fatal("no framed snapshot after reading a legacy journal")
	}
	if st, _ := os.Stat(filepath.Join(dir, journalFile)); st.Size() != 0 {
		t.Fatalf("legacy journal left: %d bytes", st.Size())
	}
}

// FuzzJournalDamage damages a journal of frames anywhere: overwriting, removing or
// inserting bytes. Every record wholly outside the damage comes back, nothing else
// appears, and the revision never goes below the last intact record's; only whole
// frames removed from the start (a journal that does not continue its snapshot)
// make the store refuse to start.
func FuzzJournalDamage(f *testing.F) {
	f.Add(uint16(0), uint16(4), byte(0), []byte{0xff})
	f.Add(uint16(300), uint16(40), byte(1), []byte{})
	f.Add(uint16(90), uint16(0), byte(2), []byte("kpf\x01J"))
	f.Add(uint16(1000), uint16(100), byte(0), []byte{0, 0, 0, 0, 0, 0, 0, 0})
	f.Add(uint16(13), uint16(1), byte(0), []byte{1})
	f.Fuzz(func(t *testing.T, at, n uint16, mode byte, with []byte) {
		p := &entryPersister{}
		revs := writeRecords(t, p, 12)
		data := bytes.Join(p.entries, nil)
		whole := bytes.Clone(data)
		bounds := journalFrames(t, data)
		start := int(at) % (len(data) + 1)
		end := min(len(data), start+int(n))
		switch mode % 3 {
		case 0: // overwrite
			for i := start; i < end && len(with) > 0; i++ {
				data[i] = with[(i-start)%len(with)]
			}
			if len(with) == 0 {
				end = start
			}
		case 1: // remove
			data = append(data[:start:start], data[end:]...)
		case 2: // insert
			data = append(data[:start:start], append(append([]byte(nil), with...), data[start:]...)...)
			end = start + min(1, len(with))
		}
		damaged := &entryPersister{snapshot: p.snapshot, entries: [][]byte{data}}
		s, err := Open(Config{Persister: damaged})
		if err != nil {
			// Whole frames cut from the start leave a journal that does not
			// continue the snapshot, and no damage to account for it.
			var gap *GapError
			if !errors.As(err, &gap) || !slices.ContainsFunc(bounds, func(b [2]int) bool { return bytes.Equal(data, whole[b[0]:]) }) {
				t.Fatalf("open after damage [%d,%d): %v", start, end, err)
			}
			return
		}
		s.Close()
		r := reopen(t, damaged)
		var lastIntact int64
		for i, b := range bounds {
			hurt := start < b[1] && end > b[0] || (mode%3 == 2 && start > b[0] && start < b[1])
			v, ok := r.values[recordKey(i)]
			if !hurt {
				lastIntact = revs[i]
				if v != recordValue(i) {
					t.Fatalf("record %d outside the damage [%d,%d) lost: %q, %v", i, start, end, v, r.errs)
				}
			} else if ok && v != recordValue(i) {
				t.Fatalf("record %d came back as %q", i, v)
			}
		}
		if len(r.values) > len(bounds) {
			t.Fatalf("%d values from %d records", len(r.values), len(bounds))
		}
		if got := r.s.Revision(); got < lastIntact {
			t.Fatalf("revision %d below the last intact record's %d", got, lastIntact)
		}
	})
}

// gatePersister holds every Sync until the test lets it go, and counts them.
type gatePersister struct {
	entryPersister
	gate  chan struct{}
	syncs atomic.Int64
}

func (p *gatePersister) Sync() error {
	<-p.gate
	p.syncs.Add(1)
	return nil
}

// TestPLAY_2_GroupCommit: a commit is answered, shown to readers and sent to
// watchers only once a Sync covers it; writers meanwhile write on it; one Sync
// covers every commit journaled before it.
func TestPLAY_2_GroupCommit(t *testing.T) {
	p := &gatePersister{gate: make(chan struct{})}
	s, err := Open(Config{Persister: p, SnapshotEvery: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.Watch(WatchOptions{Prefix: "k/", Since: s.Revision()})
	if err != nil {
		t.Fatal(err)
	}
	const writers = 8
	done := make(chan int64, writers)
	for i := 0; i < writers; i++ {
		go func() {
			rev, _, err := s.Mutate("k/counter", func(cur []byte, rev int64) (Change, error) {
				n, _ := strconv.Atoi(string(cur))
				return Change{Op: Put, Value: []byte(strconv.Itoa(n + 1))}, nil
			})
			if err != nil {
				t.Error(err)
			}
			done <- rev
		}()
	}
	// Every writer journals (each on the one before), none is answered.
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.mu.Lock()
		n := len(s.queue)
		s.mu.Unlock()
		if n == writers {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d commits journaled", n, writers)
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case rev := <-done:
		t.Fatalf("a write at %d was answered before it was durable", rev)
	default:
	}
	if _, ok := s.Get("k/counter"); ok {
		t.Fatal("a reader saw a commit that is not durable")
	}
	if res, _ := s.List(ListOptions{Prefix: "k/"}); len(res.Items) != 0 {
		t.Fatalf("a list showed %v", res.Items)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	if ev, err := w.Next(ctx); err == nil {
		t.Fatalf("a watcher got %v before it was durable", ev)
	}
	cancel()
	close(p.gate)
	for i := 0; i < writers; i++ {
		<-done
	}
	if v, _ := s.Get("k/counter"); string(v) != strconv.Itoa(writers) {
		t.Fatalf("counter %q after %d increments", v, writers)
	}
	for i := 1; i <= writers; i++ {
		ev, err := w.Next(context.Background())
		if err != nil || string(ev.Object) != strconv.Itoa(i) {
			t.Fatalf("event %d: %v %v", i, ev, err)
		}
	}
	if n := p.syncs.Load(); n >= writers {
		t.Fatalf("%d syncs for %d commits journaled together", n, writers)
	}
}

// syncedPersister keeps journal entries apart and loses, as a host that
// stops does, every entry no Sync made durable; it counts the Syncs.
type syncedPersister struct {
	entryPersister
	durable int // entries a Sync covered
	syncs   int
}

func (p *syncedPersister) Sync() error {
	p.durable, p.syncs = len(p.entries), p.syncs+1
	return nil
}

// crash is what a host finds after stopping: the durable entries only.
func (p *syncedPersister) crash() *entryPersister {
	return &entryPersister{snapshot: p.snapshot, entries: p.entries[:p.durable]}
}

// TestPLAY_2_Settling: while a store settles (a sandbox's start), commits
// are applied at once, seen by readers and watchers, without a Sync each;
// Settle makes them all durable in one; afterwards each commit waits for
// its own again. A host that stops before Settle starts without them.
func TestPLAY_2_Settling(t *testing.T) {
	p := &syncedPersister{}
	s, err := Open(Config{Persister: p, SnapshotEvery: 1 << 30, Settling: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	opened := p.syncs
	w, err := s.Watch(WatchOptions{Prefix: "k/", Since: s.Revision()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	put := func(k string) int64 {
		rev, _, err := s.Mutate(k, func([]byte, int64) (Change, error) { return Change{Op: Put, Value: []byte(`{"k":"` + k + `"}`)}, nil })
		if err != nil {
			t.Fatal(err)
		}
		return rev
	}
	var last int64
	for i := range 50 {
		last = put(fmt.Sprintf("k/%02d", i))
	}
	if p.syncs != opened {
		t.Fatalf("%d Syncs while settling, want none", p.syncs-opened)
	}
	if v, ok := s.Get("k/49"); !ok || string(v) != `{"k":"k/49"}` || s.Revision() != last {
		t.Fatalf("a settling commit is not read back: %q %v, revision %d of %d", v, ok, s.Revision(), last)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for i := range 50 {
		if e, err := w.Next(ctx); err != nil || e.Key != fmt.Sprintf("k/%02d", i) {
			t.Fatalf("watch event %d: %+v %v", i, e, err)
		}
	}
	if lost, err := Open(Config{Persister: p.crash()}); err != nil || lost.Revision() >= last {
		t.Fatalf("a host stopped before Settle kept revision %d of %d (%v)", lost.Revision(), last, err)
	} else {
		lost.Close()
	}
	if err := s.Settle(); err != nil || p.syncs != opened+1 {
		t.Fatalf("Settle: %v, %d Syncs", err, p.syncs-opened)
	}
	kept, err := Open(Config{Persister: p.crash()})
	if err != nil || kept.Revision() != last {
		t.Fatalf("after Settle a stopped host keeps revision %d, want %d (%v)", kept.Revision(), last, err)
	}
	kept.Close()
	put("k/after")
	if p.syncs != opened+2 {
		t.Fatalf("a commit after Settle made %d Syncs, want 1", p.syncs-opened-1)
	}
}

package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// ROB-4: replay proves the order and origin of every frame. Damage no checksum
// sees (a frame repeated, frames swapped, a frame of another store, a snapshot
// gone) is reported and never rolls an object back, brings in another store's
// object or empties the store without a word; on both kinds of host.

// replayHost is persisted state the tests take apart: a data directory, or the
// entries a browser or edge host keeps.
type replayHost interface {
	persister(t *testing.T) Persister
	snapshot(t *testing.T) []byte // nil when there is none
	setSnapshot(t *testing.T, b []byte)
	journal(t *testing.T) [][]byte // its frames, in order
	setJournal(t *testing.T, frames [][]byte)
}

type fileHost struct{ dir string }

func (h fileHost) persister(t *testing.T) Persister {
	t.Helper()
	p, err := OpenFilePersister(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (h fileHost) snapshot(t *testing.T) []byte {
	b, err := os.ReadFile(filepath.Join(h.dir, snapshotFile))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (h fileHost) setSnapshot(t *testing.T, b []byte) {
	path := filepath.Join(h.dir, snapshotFile)
	if b == nil {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func (h fileHost) journal(t *testing.T) [][]byte {
	data, err := os.ReadFile(filepath.Join(h.dir, journalFile))
	if err != nil {
		t.Fatal(err)
	}
	var frames [][]byte
	for _, b := range journalFrames(t, data) {
		frames = append(frames, data[b[0]:b[1]])
	}
	return frames
}

func (h fileHost) setJournal(t *testing.T, frames [][]byte) {
	if err := os.WriteFile(filepath.Join(h.dir, journalFile), bytes.Join(frames, nil), 0o644); err != nil {
		t.Fatal(err)
	}
}

type entryHost struct{ p *entryPersister }

func (h entryHost) persister(*testing.T) Persister           { return h.p }
func (h entryHost) snapshot(*testing.T) []byte               { return h.p.snapshot }
func (h entryHost) setSnapshot(_ *testing.T, b []byte)       { h.p.snapshot = b }
func (h entryHost) journal(*testing.T) [][]byte              { return h.p.entries }
func (h entryHost) setJournal(_ *testing.T, frames [][]byte) { h.p.entries = frames }

// eachHost runs test on a data directory and on a host of entries.
func eachHost(t *testing.T, test func(t *testing.T, newHost func() replayHost)) {
	t.Run("file", func(t *testing.T) {
		test(t, func() replayHost { return fileHost{t.TempDir()} })
	})
	t.Run("entries", func(t *testing.T) {
		test(t, func() replayHost { return entryHost{&entryPersister{}} })
	})
}

// writeOn opens a store on h, puts each key=value in its own commit and closes it.
func writeOn(t *testing.T, h replayHost, cfg Config, kvs ...string) {
	t.Helper()
	cfg.Persister = h.persister(t)
	if cfg.SnapshotEvery == 0 {
		cfg.SnapshotEvery = 1 << 30
	}
	s, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		put(t, s, k, v)
	}
	s.Close()
}

// wantReported fails unless some restore error contains each of want.
func wantReported(t *testing.T, errs []error, want ...string) {
	t.Helper()
	t.Logf("restore errors: %v", errs)
	all := fmt.Sprint(errs)
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("restore errors %v do not say %q", errs, w)
		}
	}
}

// TestROB_4_DuplicatedFrameDoesNotRollBack: an older frame repeated at the end of
// the journal is reported and skipped; the object keeps its newest value.
func TestROB_4_DuplicatedFrameDoesNotRollBack(t *testing.T) {
	eachHost(t, func(t *testing.T, newHost func() replayHost) {
		h := newHost()
		writeOn(t, h, Config{}, "k/a=1", "k/b=x", "k/a=2")
		j := h.journal(t)
		h.setJournal(t, append(j, j[0]))
		r := reopen(t, h.persister(t))
		if v := r.values["k/a"]; v != "2" {
			t.Errorf("k/a rolled back to %q", v)
		}
		if v := r.values["k/b"]; v != "x" {
			t.Errorf("k/b is %q", v)
		}
		wantReported(t, r.errs, "journal entry 4 of 4 repeats")
	})
}

// TestROB_4_SwappedFramesLeaveNoOldValue: of two frames swapped, the older one,
// now after the newer, is reported and skipped: the object keeps the newer value.
func TestROB_4_SwappedFramesLeaveNoOldValue(t *testing.T) {
	eachHost(t, func(t *testing.T, newHost func() replayHost) {
		h := newHost()
		writeOn(t, h, Config{}, "k/a=1", "k/a=2", "k/b=x")
		j := h.journal(t)
		j[0], j[1] = j[1], j[0]
		h.setJournal(t, j)
		r := reopen(t, h.persister(t))
		if v := r.values["k/a"]; v != "2" {
			t.Errorf("k/a holds the old value %q", v)
		}
		if v := r.values["k/b"]; v != "x" {
			t.Errorf("k/b is %q", v)
		}
		wantReported(t, r.errs, "journal entry 2 of 3 comes after a newer one")
		// The lost change is not served from history: a watch from before it is
		// told to relist.
		if _, err := r.s.Watch(WatchOptions{Prefix: "k/", Since: 0}); err == nil {
			t.Error("a watch from before the skipped change is served")
		}
	})
}

// TestROB_4_ForeignFrameRefused: a frame of another store's journal spliced into
// this one's is reported and skipped: its object never appears.
func TestROB_4_ForeignFrameRefused(t *testing.T) {
	eachHost(t, func(t *testing.T, newHost func() replayHost) {
		h, other := newHost(), newHost()
		writeOn(t, h, Config{}, "k/a=1", "k/b=1", "k/c=1")
		writeOn(t, other, Config{}, "k/a=foreign", "k/z=foreign")
		j, f := h.journal(t), other.journal(t)
		h.setJournal(t, [][]byte{j[0], f[1], j[1], f[0], j[2]})
		r := reopen(t, h.persister(t))
		for k, v := range r.values {
			if v == "foreign" {
				t.Errorf("%s holds another store's value", k)
			}
		}
		if len(r.values) != 3 {
			t.Errorf("values %v", r.values)
		}
		wantReported(t, r.errs, "journal entry 2 of 5 belongs to another store", "journal entry 4 of 5 belongs to another store")
	})
}

// TestROB_4_MissingSnapshotNamesTheGap: a journal that starts after a snapshot
// that is gone (or holds no intact frame) does not make an almost empty store:
// the store refuses to start and names the revisions that are missing, and it
// leaves the persisted state as it found it.
func TestROB_4_MissingSnapshotNamesTheGap(t *testing.T) {
	for _, how := range []string{"missing", "unreadable"} {
		t.Run(how, func(t *testing.T) {
			eachHost(t, func(t *testing.T, newHost func() replayHost) {
				h := newHost()
				var kvs []string
				for i := range 120 {
					kvs = append(kvs, fmt.Sprintf("k/%03d=%d", i, i))
				}
				writeOn(t, h, Config{SnapshotEvery: 50}, kvs...)
				snap := h.snapshot(t)
				if snap == nil {
					t.Fatal("no snapshot after 120 commits")
				}
				if how == "missing" {
					h.setSnapshot(t, nil)
				} else {
					h.setSnapshot(t, bytes.Repeat([]byte{0xa5}, len(snap)))
				}
				j := h.journal(t)
				first, _ := parseFrameHeader(j[0])
				p := h.persister(t)
				s, err := Open(Config{Persister: p})
				if err == nil {
					res, _ := s.List(ListOptions{Prefix: "k/"})
					s.Close()
					t.Fatalf("started with %d of 120 objects, restore errors %v", len(res.Items), s.RestoreErrors())
				}
				p.Close()
				t.Log(err)
				want := fmt.Sprintf("revisions 1 to %d", first.rev-1)
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name the gap (%s)", err, want)
				}
				if got := h.journal(t); len(got) != len(j) {
					t.Errorf("the journal went from %d to %d frames", len(j), len(got))
				}
			})
		})
	}
}

// TestROB_4_SnapshotHeadDamageCostsItsPart: a damaged first byte of the snapshot
// (which a 2-bit change turns into the older format's first byte) costs the
// snapshot's head frame, reported, and every object still loads.
func TestROB_4_SnapshotHeadDamageCostsItsPart(t *testing.T) {
	eachHost(t, func(t *testing.T, newHost func() replayHost) {
		h := newHost()
		var kvs []string
		for i := range 40 {
			kvs = append(kvs, fmt.Sprintf("k/%03d=%d", i, i))
		}
		writeOn(t, h, Config{SnapshotEvery: 40}, kvs...)
		snap := h.snapshot(t)
		if snap == nil {
			t.Fatal("no snapshot")
		}
		snap[0] ^= 0x41 // 'k' → '*'
		h.setSnapshot(t, snap)
		r := reopen(t, h.persister(t))
		if len(r.values) != 40 {
			t.Errorf("%d of 40 objects", len(r.values))
		}
		wantReported(t, r.errs, "snapshot part 1 of")
	})
}

// TestROB_4_FramesTheSnapshotHoldsSkipped: a crash between writing a snapshot
// and emptying the journal leaves frames the snapshot holds at the journal's
// start; they are skipped without a word and nothing after them is lost.
func TestROB_4_FramesTheSnapshotHoldsSkipped(t *testing.T) {
	eachHost(t, func(t *testing.T, newHost func() replayHost) {
		h := newHost()
		writeOn(t, h, Config{}, "k/a=1", "k/b=1", "k/a=2")
		before := h.journal(t)
		p := h.persister(t)
		s, err := Open(Config{Persister: p, SnapshotEvery: 1 << 30})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Snapshot(); err != nil {
			t.Fatal(err)
		}
		put(t, s, "k/b", "2")
		s.Close()
		h.setJournal(t, append(before, h.journal(t)...))
		r := reopen(t, h.persister(t))
		if len(r.errs) != 0 || r.values["k/a"] != "2" || r.values["k/b"] != "2" {
			t.Fatalf("values %v, errors %v", r.values, r.errs)
		}
	})
}

// TestROB_4_MissingFramesReported: frames gone from the middle of the journal
// (no damage in their place) are reported by number and revision, and history
// is compacted past them.
func TestROB_4_MissingFramesReported(t *testing.T) {
	eachHost(t, func(t *testing.T, newHost func() replayHost) {
		h := newHost()
		writeOn(t, h, Config{}, "k/a=1", "k/b=1", "k/c=1", "k/d=1", "k/e=1")
		j := h.journal(t)
		h.setJournal(t, append(j[:1:1], j[3:]...))
		r := reopen(t, h.persister(t))
		if len(r.values) != 3 {
			t.Errorf("values %v", r.values)
		}
		wantReported(t, r.errs, "frames 2 to 3 are missing before journal entry 2 of 3 (revisions 2 to 3)")
		if _, err := r.s.Watch(WatchOptions{Prefix: "k/", Since: 2}); err == nil {
			t.Error("a watch from before the missing changes is served")
		}
		if _, err := r.s.Watch(WatchOptions{Prefix: "k/", Since: 3}); err != nil {
			t.Errorf("a watch from after them: %v", err)
		}
	})
}

// TestROB_4_OlderSnapshotNamesTheGap: a snapshot older than the journal's first
// frame (an old copy put back) is a gap too: the store refuses to start.
func TestROB_4_OlderSnapshotNamesTheGap(t *testing.T) {
	eachHost(t, func(t *testing.T, newHost func() replayHost) {
		h := newHost()
		var kvs []string
		for i := range 30 {
			kvs = append(kvs, fmt.Sprintf("k/%03d=%d", i, i))
		}
		writeOn(t, h, Config{SnapshotEvery: 10}, kvs[:12]...)
		old := h.snapshot(t)
		writeOn(t, h, Config{SnapshotEvery: 10}, kvs[12:25]...) // a snapshot at 20, the journal 21 to 25
		h.setSnapshot(t, old)
		p := h.persister(t)
		s, err := Open(Config{Persister: p})
		if err == nil {
			s.Close()
			t.Fatal("started on a snapshot older than the journal")
		}
		p.Close()
		t.Log(err)
		var gap *GapError
		if !errors.As(err, &gap) || gap.Snapshot != "older" || gap.From != 11 || gap.To != 20 {
			t.Fatalf("%#v", err)
		}
	})
}

// appendFrameV1 appends a frame as version 1 wrote it: no store, no seq.
func appendFrameV1(dst []byte, kind byte, rev int64, payload []byte) []byte {
	h := make([]byte, frameHeaderSizeV1)
	copy(h, "kpf\x01")
	h[4] = kind
	binary.LittleEndian.PutUint64(h[5:], uint64(rev))
	binary.LittleEndian.PutUint32(h[13:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(h[17:], crc32.Checksum(payload, castagnoli))
	binary.LittleEndian.PutUint32(h[21:], crc32.Checksum(h[:21], castagnoli))
	return append(append(dst, h...), payload...)
}

// recordV1 is a version-1 frame of a commit setting key (an object) to value at rev.
func recordV1(kind byte, rev int64, kvs ...string) []byte {
	var rec journalRecord
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		rec.set(objectPrefix+k, v)
	}
	rec.set(revKey, strconv.FormatInt(rev, 10))
	return appendFrameV1(nil, kind, rev, rec.frame(kind, origin{})[frameHeaderSize:])
}

// TestROB_4_VersionOneFramesReadOnce: a snapshot and journal of frames written
// before store identities are read, checked for order as far as their
// revisions allow, and rewritten at once as a snapshot of this version.
func TestROB_4_VersionOneFramesReadOnce(t *testing.T) {
	snapshotV1 := func() []byte {
		b := appendFrameV1(nil, frameSnapshotHead, 3, nil)
		b = append(b, recordV1(frameSnapshotPart, 3, "k/0=0", "k/1=0", "k/2=0")...)
		return appendFrameV1(b, frameSnapshotEnd, 3, binary.AppendUvarint(nil, 1))
	}
	journalV1 := [][]byte{recordV1(frameJournal, 4, "k/1=mid"), recordV1(frameJournal, 5, "k/1=new", "k/3=new")}
	eachHost(t, func(t *testing.T, newHost func() replayHost) {
		t.Run("read", func(t *testing.T) {
			h := newHost()
			h.setSnapshot(t, snapshotV1())
			h.setJournal(t, journalV1)
			r := reopen(t, h.persister(t))
			want := map[string]string{"k/0": "0", "k/1": "new", "k/2": "0", "k/3": "new"}
			if fmt.Sprint(r.values) != fmt.Sprint(want) || len(r.errs) != 0 || r.s.Revision() != 5 {
				t.Fatalf("values %v, revision %d, errors %v", r.values, r.s.Revision(), r.errs)
			}
			r.s.Close()
			if !bytes.HasPrefix(h.snapshot(t), frameMagic) || len(h.journal(t)) != 0 {
				t.Fatal("not rewritten in this version's frames")
			}
			r = reopen(t, h.persister(t))
			if fmt.Sprint(r.values) != fmt.Sprint(want) || len(r.errs) != 0 {
				t.Fatalf("after the rewrite: values %v, errors %v", r.values, r.errs)
			}
		})
		t.Run("older-frame-repeated", func(t *testing.T) {
			h := newHost()
			h.setSnapshot(t, snapshotV1())
			h.setJournal(t, append(journalV1[:2:2], journalV1[0]))
			r := reopen(t, h.persister(t))
			if r.values["k/1"] != "new" {
				t.Errorf("k/1 rolled back to %q", r.values["k/1"])
			}
			wantReported(t, r.errs, "journal entry 3 of 3 comes after a newer one (revision 4 after revision 5)")
		})
		t.Run("snapshot-missing", func(t *testing.T) {
			h := newHost()
			h.setJournal(t, journalV1)
			p := h.persister(t)
			s, err := Open(Config{Persister: p})
			if err == nil {
				s.Close()
				t.Fatal("started without the snapshot the journal continues")
			}
			p.Close()
			wantReported(t, []error{err}, "the snapshot is missing and the journal starts at revision 4: revisions 1 to 3 are lost")
		})
	})
}

// replayFixture is what FuzzReplayOrderAndOrigin takes apart: this store's
// journal frames (ours[i] is frame i+1, at revision i+1; each sets the counter
// k/c and its own witness k/wNN to its number), its snapshots after frames 2 and
// 4, and another store's frames (setting k/c and k/fNN to "f…").
type replayFixture struct {
	ours, foreign [][]byte
	snapshots     map[int][]byte
}

const fuzzFrames = 10

func newReplayFixture(t testing.TB) replayFixture {
	p := &entryPersister{}
	s, err := Open(Config{Persister: p})
	if err != nil {
		t.Fatal(err)
	}
	id := s.id
	s.Close()
	frame := func(store uint64, i int, kvs ...string) []byte {
		var rec journalRecord
		for _, kv := range kvs {
			k, v, _ := strings.Cut(kv, "=")
			rec.set(objectPrefix+k, v)
		}
		rec.set(revKey, strconv.Itoa(i))
		return rec.frame(frameJournal, origin{store: store, seq: int64(i), rev: int64(i)})
	}
	fx := replayFixture{snapshots: map[int][]byte{}}
	other := newStoreID()
	for i := 1; i <= fuzzFrames; i++ {
		fx.ours = append(fx.ours, frame(id, i, fmt.Sprintf("k/c=%d", i), fmt.Sprintf("k/w%02d=%d", i, i)))
		fx.foreign = append(fx.foreign, frame(other, i, fmt.Sprintf("k/c=f%d", i), fmt.Sprintf("k/f%02d=f", i)))
	}
	for _, k := range []int{2, 4} {
		q := &entryPersister{snapshot: p.snapshot, entries: fx.ours[:k]}
		s, err := Open(Config{Persister: q, SnapshotEvery: 1 << 30})
		if err != nil || len(s.RestoreErrors()) > 0 {
			t.Fatal(err, s.RestoreErrors())
		}
		if err := s.Snapshot(); err != nil {
			t.Fatal(err)
		}
		s.Close()
		fx.snapshots[k] = q.snapshot
	}
	return fx
}

// FuzzReplayOrderAndOrigin takes a snapshot after frame 4 and a journal of
// frames 5 to 10 apart by a program of 4-byte steps (op, x, y, z): frames
// swapped, repeated, removed, this store's frames put anywhere (those the
// snapshot holds too), another store's frames spliced in, entries joined, bytes
// of an entry or of the snapshot damaged, the snapshot dropped or replaced by an
// older one. Whatever the program, a restore either starts or refuses with the
// gap (or, without a snapshot, the mix of stores) it names; when it starts, and
// some intact frame (of the snapshot or the journal) is this store's:
//
//   - no object of the other store is there;
//   - no value goes back: every witness present is of a frame no newer than the
//     counter's, and the counter's own witness is there;
//   - nothing is lost silently: with no restore error, every frame up to the
//     newest one present (in the journal or the snapshot) is applied;
//   - the revision is not below the counter.
func FuzzReplayOrderAndOrigin(f *testing.F) {
	fx := newReplayFixture(f)
	for _, seed := range [][]byte{
		{1, 0, 6, 0},                         // the oldest journal frame repeated at the end
		{0, 0, 1, 0},                         // two frames swapped
		{2, 3, 2, 0},                         // another store's frame spliced in
		{6, 0, 0, 0},                         // the snapshot dropped
		{0x46, 2, 0, 0},                      // the snapshot's first byte: 'k' ^ 0x41 = '*'
		{6, 1, 0, 0},                         // an older snapshot
		{5, 1, 0, 0},                         // a frame the snapshot holds, before the journal
		{3, 2, 0, 0},                         // a frame removed
		{0x24, 1, 0, 30},                     // a damaged header
		{7, 0, 0, 0, 7, 0, 0, 0, 1, 0, 5, 0}, // entries joined, one repeated
		{6, 0, 0, 0, 5, 0, 0, 0, 5, 1, 1, 0, 5, 2, 2, 0, 5, 3, 3, 0}, // no snapshot, the journal from frame 1
		{6, 0, 0, 0, 2, 0, 0, 0},                                     // no snapshot, another store's frame first
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, program []byte) {
		snap, snapAt, snapHurt := bytes.Clone(fx.snapshots[4]), 4, false
		var entries [][]byte
		for _, e := range fx.ours[4:] {
			entries = append(entries, bytes.Clone(e))
		}
		insert := func(at int, e []byte) {
			at %= len(entries) + 1
			entries = append(entries[:at], append([][]byte{bytes.Clone(e)}, entries[at:]...)...)
		}
		for ; len(program) >= 4; program = program[4:] {
			op, x, y, z := program[0], int(program[1]), int(program[2]), int(program[3])
			n, pos, mask := len(entries), y<<8|z, op&0xf8|1
			switch op % 8 {
			case 0:
				if n > 0 {
					entries[x%n], entries[y%n] = entries[y%n], entries[x%n]
				}
			case 1:
				if n > 0 {
					insert(y, entries[x%n])
				}
			case 2:
				insert(y, fx.foreign[x%fuzzFrames])
			case 3:
				if n > 0 {
					entries = append(entries[:x%n], entries[x%n+1:]...)
				}
			case 4:
				if n > 0 {
					e := entries[x%n]
					e[pos%len(e)] ^= mask
				}
			case 5:
				insert(y, fx.ours[x%fuzzFrames])
			case 6:
				switch x % 3 {
				case 0:
					snap, snapAt = nil, 0
				case 1:
					snap, snapAt, snapHurt = bytes.Clone(fx.snapshots[2]), 2, false
				case 2:
					if snap != nil {
						snap[pos%len(snap)] ^= mask
						snapHurt = true
					}
				}
			case 7:
				if n > 1 {
					i := x % (n - 1)
					entries = append(entries[:i], append([][]byte{append(entries[i], entries[i+1]...)}, entries[i+2:]...)...)
				}
			}
		}
		present := func(i int) bool {
			if !snapHurt && i <= snapAt {
				return true
			}
			for _, e := range entries {
				if bytes.Contains(e, fx.ours[i-1]) {
					return true
				}
			}
			return false
		}

		s, err := Open(Config{Persister: &entryPersister{snapshot: snap, entries: entries}, SnapshotEvery: 1 << 30})
		if err != nil {
			var gap *GapError
			switch {
			case errors.As(err, &gap):
				for i := max(1, gap.From); i <= gap.To && i <= fuzzFrames; i++ {
					if present(int(i)) {
						t.Fatalf("%v, but frame %d is there", err, i)
					}
				}
			case strings.Contains(err.Error(), "more than one store"):
				if snap != nil && !snapHurt {
					t.Fatalf("%v, with the snapshot intact", err)
				}
			default:
				t.Fatal(err)
			}
			return
		}
		defer s.Close()
		res, err := s.List(ListOptions{Prefix: "k/"})
		if err != nil {
			t.Fatal(err)
		}
		values := map[string]string{}
		for _, it := range res.Items {
			values[it.Key] = it.Value
		}
		errs := s.RestoreErrors()
		if (snap == nil || snapHurt) && !slices.ContainsFunc(fx.ours, func(f []byte) bool {
			return slices.ContainsFunc(entries, func(e []byte) bool { return bytes.Contains(e, f) })
		}) {
			return // no frame says which store this is: the other one's frames are all there is
		}
		c := 0
		if v, ok := values["k/c"]; ok {
			if c, err = strconv.Atoi(v); err != nil {
				t.Fatalf("k/c holds %q, another store's (errors %v)", v, errs)
			}
			if values[fmt.Sprintf("k/w%02d", c)] != v {
				t.Fatalf("k/c is %d without its witness: %v", c, values)
			}
		}
		for k, v := range values {
			if strings.HasPrefix(k, "k/f") {
				t.Fatalf("another store's %s is there", k)
			}
			if i, ok := strings.CutPrefix(k, "k/w"); ok {
				if n, _ := strconv.Atoi(i); strconv.Itoa(n) != v || n > c {
					t.Fatalf("%s=%s with the counter at %d: a value went back (errors %v)", k, v, c, errs)
				}
			}
		}
		if s.Revision() < int64(c) {
			t.Fatalf("revision %d below frame %d's", s.Revision(), c)
		}
		if len(errs) > 0 {
			return
		}
		newest := 0
		for i := 1; i <= fuzzFrames; i++ {
			if present(i) {
				newest = i
			}
		}
		if c != newest {
			t.Fatalf("with no error reported the counter is at %d, frame %d is there", c, newest)
		}
		for i := 1; i <= c; i++ {
			if _, ok := values[fmt.Sprintf("k/w%02d", i)]; !ok {
				t.Fatalf("with no error reported frame %d is lost: %v", i, values)
			}
		}
	})
}

// TestROB_4_SnapshotPartOfAnotherSnapshotSkipped: a part of an older snapshot, or
// of another store's, spliced into the snapshot is reported and skipped; the
// snapshot's own parts load.
func TestROB_4_SnapshotPartOfAnotherSnapshotSkipped(t *testing.T) {
	eachHost(t, func(t *testing.T, newHost func() replayHost) {
		h, other := newHost(), newHost()
		writeOn(t, h, Config{SnapshotEvery: 2}, "k/a=1", "k/b=1")
		older := h.snapshot(t)
		writeOn(t, h, Config{SnapshotEvery: 2}, "k/a=2", "k/b=2")
		writeOn(t, other, Config{SnapshotEvery: 1}, "k/z=foreign")
		frames := func(b []byte) [][]byte {
			var out [][]byte
			for _, f := range journalFrames(t, b) {
				out = append(out, b[f[0]:f[1]])
			}
			return out
		}
		snap, old, foreign := frames(h.snapshot(t)), frames(older), frames(other.snapshot(t))
		h.setSnapshot(t, bytes.Join([][]byte{snap[0], old[1], snap[1], foreign[1], snap[2]}, nil))
		r := reopen(t, h.persister(t))
		if r.values["k/a"] != "2" || r.values["k/b"] != "2" || len(r.values) != 2 {
			t.Errorf("values %v", r.values)
		}
		wantReported(t, r.errs, "snapshot part 2 of 5 belongs to another snapshot", "snapshot part 4 of 5 belongs to another store")
	})
}

// TestROB_4_SnapshotPartThatDeletes: a snapshot part only sets keys; one
// that deletes a key is damage, on restore as in CheckSnapshot: it writes
// nothing and is named, and the parts around it are read.
func TestROB_4_SnapshotPartThatDeletes(t *testing.T) {
	var rec journalRecord
	rec.set(objectPrefix+"k/1", "1")
	rec.del(objectPrefix + "k/0")
	snapshot := func() []byte {
		b := appendFrameV1(nil, frameSnapshotHead, 3, nil)
		b = append(b, recordV1(frameSnapshotPart, 3, "k/0=0")...)
		b = appendFrameV1(b, frameSnapshotPart, 3, rec.frame(frameSnapshotPart, origin{})[frameHeaderSize:])
		b = append(b, recordV1(frameSnapshotPart, 3, "k/2=2")...)
		return appendFrameV1(b, frameSnapshotEnd, 3, binary.AppendUvarint(nil, 3))
	}
	eachHost(t, func(t *testing.T, newHost func() replayHost) {
		h := newHost()
		h.setSnapshot(t, snapshot())
		r := reopen(t, h.persister(t))
		defer r.s.Close()
		want := map[string]string{"k/0": "0", "k/2": "2"}
		if fmt.Sprint(r.values) != fmt.Sprint(want) || !strings.Contains(fmt.Sprint(r.errs), "a snapshot part deletes a key") {
			t.Fatalf("values %v, errors %v", r.values, r.errs)
		}
	})
	if _, err := CheckSnapshot(snapshot()); err == nil || !strings.Contains(err.Error(), "a snapshot part deletes a key") {
		t.Fatalf("CheckSnapshot: %v", err)
	}
}

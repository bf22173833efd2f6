package storage

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"
)

// FuzzPeekHistory: reading a history entry in place (peekHistory, what a
// list at an old revision reads; peekHistoryTime, what an opening store
// reads) agrees with decoding it whole, and refuses what decodeHistory
// refuses.
func FuzzPeekHistory(f *testing.F) {
	for _, e := range []*Event{
		{Type: Added, Key: "core/configmaps/default/a", Rev: 7, Object: []byte(`{"a":1}`), time: time.Unix(0, 12345)},
		{Type: Modified, Key: "apps/deployments/x/web", Rev: 1 << 40, Object: []byte(`{"b":2}`), Prev: []byte(`{"b":1}`), time: time.Unix(1e9, 0)},
		{Type: Deleted, Key: "core/nodes/n", Rev: 3, Object: []byte(`{}`), Prev: []byte(`{"c":3}`)},
	} {
		f.Add(encodeHistory(e))
	}
	f.Add([]byte{})
	f.Add([]byte("M\x02"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := decodeHistory(b)
		typ, key, prev, perr := peekHistory(string(b))
		if (err != nil) != (perr != nil) {
			t.Fatalf("decode: %v, peek: %v", err, perr)
		}
		if err != nil {
			return
		}
		if typ != e.Type || key != e.Key || prev != string(e.Prev) {
			t.Fatalf("peek %q %q %q, decode %q %q %q", typ, key, prev, e.Type, e.Key, e.Prev)
		}
		if rev, at, err := peekHistoryTime(string(b)); err != nil || rev != e.Rev || !at.Equal(e.time) {
			t.Fatalf("peek time: %d %v %v, decode %d %v", rev, at, err, e.Rev, e.time)
		}
	})
}

// TestLEARN_5_History: History hands over the changes kept, newest first,
// from before a revision, and stops at the compacted one.
func TestLEARN_5_History(t *testing.T) {
	s, err := Open(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var revs []int64
	for i, v := range []string{"1", "2", "3", "4"} {
		op := Put
		if i == 3 {
			op = Delete
		}
		rev, _, err := s.Mutate("k", func([]byte, int64) (Change, error) { return Change{Op: op, Value: []byte(v)}, nil })
		if err != nil {
			t.Fatal(err)
		}
		revs = append(revs, rev)
	}
	var got []HistoryEntry
	head, compacted, err := s.History(revs[3], func(e HistoryEntry) bool { got = append(got, e); return true })
	if err != nil || head != revs[3] || compacted != 0 || len(got) != 3 {
		t.Fatalf("history before %d: head %d compacted %d %v: %+v", revs[3], head, compacted, err, got)
	}
	for i, want := range []struct {
		typ       EventType
		obj, prev string
	}{{Modified, "3", "2"}, {Modified, "2", "1"}, {Added, "1", ""}} {
		if g := got[i]; g.Type != want.typ || string(g.Object) != want.obj || string(g.Prev) != want.prev || g.Rev != revs[2-i] || g.Key != "k" || g.Time.IsZero() {
			t.Errorf("entry %d: %+v, want %+v", i, g, want)
		}
	}
	if _, err := s.Compact(revs[1]); err != nil {
		t.Fatal(err)
	}
	got = nil
	_, compacted, _ = s.History(0, func(e HistoryEntry) bool { got = append(got, e); return len(got) < 10 })
	if compacted != revs[1] || len(got) != 2 || got[0].Type != Deleted || got[1].Rev != revs[2] {
		t.Errorf("after compacting to %d: compacted %d, %+v", revs[1], compacted, got)
	}
}

// TestLEARN_6_RestoreFromMemory: a store restored from a snapshot in
// memory, checked or not, holds what was written (objects, revision,
// history); goes on writing and snapshots again; and an unchecked
// snapshot's damage is still found.
func TestLEARN_6_RestoreFromMemory(t *testing.T) {
	src, err := Open(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for i, k := range []string{"a", "b", "c", "b", "a"} {
		op := Put
		if i == 4 {
			op = Delete
		}
		if _, _, err := src.Mutate(k, func([]byte, int64) (Change, error) {
			return Change{Op: op, Value: []byte(fmt.Sprintf(`{"v":%d}`, i))}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	var snap bytes.Buffer
	info, err := src.WriteSnapshot(&snap, true)
	if err != nil {
		t.Fatal(err)
	}
	if checked, err := CheckSnapshot(snap.Bytes()); err != nil || checked != info {
		t.Fatalf("check %+v %v, wrote %+v", checked, err, info)
	}
	history := func(s *Store) (out []string) {
		if _, _, err := s.History(s.Revision()+1, func(e HistoryEntry) bool {
			out = append(out, fmt.Sprintf("%s %d %s %s<-%s", e.Type, e.Rev, e.Key, e.Object, e.Prev))
			return true
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	want := history(src)
	for name, p := range map[string]*MemoryPersister{
		"checked":   NewCheckedMemoryPersister(bytes.Clone(snap.Bytes())),
		"unchecked": NewMemoryPersister(bytes.Clone(snap.Bytes())),
	} {
		t.Run(name, func(t *testing.T) {
			s, err := Open(Config{Persister: p})
			if err != nil {
				t.Fatal(err)
			}
			if s.Revision() != 5 || len(s.RestoreErrors()) > 0 {
				t.Fatalf("revision %d, damage %v", s.Revision(), s.RestoreErrors())
			}
			for k, v := range map[string]string{"b": `{"v":3}`, "c": `{"v":2}`} {
				if got, ok := s.Get(k); !ok || string(got) != v {
					t.Errorf("%s: %q %v, want %q", k, got, ok, v)
				}
			}
			if _, ok := s.Get("a"); ok {
				t.Error("a was deleted")
			}
			if got := history(s); !slices.Equal(got, want) {
				t.Errorf("history %q, want %q", got, want)
			}
			if _, _, err := s.Mutate("d", func([]byte, int64) (Change, error) { return Change{Op: Put, Value: []byte(`{}`)}, nil }); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			again, err := Open(Config{Persister: p})
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			if _, ok := again.Get("d"); !ok || again.Revision() != 6 || len(again.RestoreErrors()) > 0 {
				t.Errorf("after a write and a close: revision %d, d there: %v, damage %v", again.Revision(), ok, again.RestoreErrors())
			}
		})
	}
	t.Run("unchecked damage", func(t *testing.T) {
		b := bytes.Clone(snap.Bytes())
		b[len(b)/2] ^= 0x40
		s, err := Open(Config{Persister: NewMemoryPersister(b)})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if len(s.RestoreErrors()) == 0 {
			t.Error("a flipped byte in an unchecked snapshot was not found")
		}
	})
}

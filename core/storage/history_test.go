package storage

import (
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

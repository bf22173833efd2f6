package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kubeplay/core/clock"
)

func open(t *testing.T, cfg Config) *Store {
	t.Helper()
	s, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func put(t testing.TB, s *Store, key, value string) int64 {
	t.Helper()
	rev, _, err := s.Mutate(key, func([]byte, int64) (Change, error) { return Change{Op: Put, Value: []byte(value)}, nil })
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

func del(t *testing.T, s *Store, key string) int64 {
	t.Helper()
	rev, _, err := s.Mutate(key, func(cur []byte, _ int64) (Change, error) { return Change{Op: Delete, Value: cur}, nil })
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

func values(t *testing.T, s *Store, opts ListOptions) []string {
	t.Helper()
	res, err := s.List(opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range res.Items {
		out = append(out, it.Key+"="+it.Value)
	}
	return out
}

func TestStore_RevisionsAndListAtRevision(t *testing.T) {
	s := open(t, Config{})
	r1 := put(t, s, "a/1", "one")
	r2 := put(t, s, "a/2", "two")
	r3 := put(t, s, "a/1", "uno")
	r4 := del(t, s, "a/2")
	put(t, s, "b/1", "other prefix")
	if !(r1 < r2 && r2 < r3 && r3 < r4) || s.Revision() != r4+1 {
		t.Fatalf("revisions %d %d %d %d, store %d", r1, r2, r3, r4, s.Revision())
	}
	// A Keep changes nothing.
	if rev, _, _ := s.Mutate("a/1", func([]byte, int64) (Change, error) { return Change{Op: Keep}, nil }); rev != s.Revision() {
		t.Fatal("Keep moved the revision")
	}
	if _, _, err := s.Mutate("a/9", func(cur []byte, _ int64) (Change, error) { return Change{Op: Delete}, nil }); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete of a missing key: %v", err)
	}
	want := map[int64][]string{
		r1: {"a/1=one"},
		r2: {"a/1=one", "a/2=two"},
		r3: {"a/1=uno", "a/2=two"},
		r4: {"a/1=uno"},
		0:  {"a/1=uno"},
	}
	for rev, w := range want {
		if got := values(t, s, ListOptions{Prefix: "a/", Rev: rev}); !slices.Equal(got, w) {
			t.Errorf("list at %d: %v, want %v", rev, got, w)
		}
	}
	// Pages at a revision.
	res, err := s.List(ListOptions{Prefix: "a/", Rev: r3, Limit: 1})
	if err != nil || len(res.Items) != 1 || !res.More || res.Remaining != 1 || res.Rev != r3 {
		t.Fatalf("page: %+v %v", res, err)
	}
	if got := values(t, s, ListOptions{Prefix: "a/", Rev: r3, After: "a/1"}); !slices.Equal(got, []string{"a/2=two"}) {
		t.Fatalf("after: %v", got)
	}
	if _, err := s.List(ListOptions{Rev: s.Revision() + 1}); !errors.Is(err, ErrFutureRevision) {
		t.Fatalf("future: %v", err)
	}
	if _, err := s.Compact(r2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(ListOptions{Prefix: "a/", Rev: r1}); !errors.Is(err, ErrCompacted) {
		t.Fatalf("compacted: %v", err)
	}
	if got := values(t, s, ListOptions{Prefix: "a/", Rev: r3}); !slices.Equal(got, want[r3]) {
		t.Fatalf("list after compaction at %d: %v", r3, got)
	}
}

func TestStore_HistoryBounds(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	s := open(t, Config{HistoryLimit: 10, HistoryWindow: time.Minute, Clock: clk})
	for i := 0; i < 50; i++ {
		put(t, s, fmt.Sprintf("k/%d", i%5), fmt.Sprint(i))
	}
	if c := s.CompactedRevision(); c < 40-1 || c > s.Revision() {
		t.Fatalf("count cap: compacted %d at revision %d", c, s.Revision())
	}
	// Past the window, a single commit drops the old entries (a few at a time).
	clk.Step(2 * time.Minute)
	for i := 0; i < 5; i++ {
		put(t, s, "k/x", fmt.Sprint(i))
	}
	if _, err := s.Watch(WatchOptions{Prefix: "k/", Since: s.Revision() - 6}); !errors.Is(err, ErrCompacted) {
		t.Fatalf("watch before the window: %v", err)
	}
	if w, err := s.Watch(WatchOptions{Prefix: "k/", Since: s.Revision() - 2}); err != nil {
		t.Fatalf("watch inside the window: %v", err)
	} else {
		w.Stop()
	}
}

// Past the window, a watch from before it is refused at once, however many
// old changes wait for commits to drop them, and with no commit since.
func TestStore_WindowWithoutCommits(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	s := open(t, Config{HistoryWindow: time.Minute, Clock: clk})
	for i := 0; i < 100; i++ {
		put(t, s, fmt.Sprintf("k/%d", i), "v")
	}
	from := s.Revision() - 50
	clk.Step(2 * time.Minute)
	if _, err := s.Watch(WatchOptions{Prefix: "k/", Since: from}); !errors.Is(err, ErrCompacted) {
		t.Fatalf("watch from before the window: %v", err)
	}
	if _, err := s.List(ListOptions{Prefix: "k/", Rev: from}); !errors.Is(err, ErrCompacted) {
		t.Fatalf("list at a revision before the window: %v", err)
	}
	if c := s.CompactedRevision(); c != s.Revision() {
		t.Fatalf("compacted %d, want %d", c, s.Revision())
	}
	w, err := s.Watch(WatchOptions{Prefix: "k/", Since: s.Revision()})
	if err != nil {
		t.Fatalf("watch from now: %v", err)
	}
	w.Stop()
}

func TestStore_WatchDeliversInOrderAndFilters(t *testing.T) {
	s := open(t, Config{Attrs: func(_ string, v []byte) Attrs { return Attrs{Labels: map[string]string{"v": string(v)}} }})
	put(t, s, "a/1", "red")
	start := s.Revision()
	w, err := s.Watch(WatchOptions{Prefix: "a/", Since: start, Filter: func(a Attrs) bool { return a.Labels["v"] == "red" }})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	put(t, s, "a/2", "blue") // never matches: not seen
	put(t, s, "a/1", "blue") // stops matching: DELETED with the last matching state, as kube
	put(t, s, "a/1", "red")  // matches again: ADDED
	put(t, s, "b/1", "red")  // other prefix
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var got []string
	for i := 0; i < 2; i++ {
		e, err := w.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %s %s", e.Type, e.Key, e.Object))
	}
	if !slices.Equal(got, []string{"DELETED a/1 red", "ADDED a/1 red"}) {
		t.Fatalf("events %v", got)
	}
}

func TestStore_SlowWatcherIsClosed(t *testing.T) {
	s := open(t, Config{WatchBuffer: 5})
	w, err := s.Watch(WatchOptions{Prefix: "", Since: s.Revision()})
	if err != nil {
		t.Fatal(err)
	}
	// Writers never wait for the watcher.
	for i := 0; i < 20; i++ {
		put(t, s, "k", fmt.Sprint(i))
	}
	if s.Watchers() != 0 {
		t.Fatal("slow watcher still registered")
	}
	ctx := context.Background()
	var err2 error
	for n := 0; n < 10 && err2 == nil; n++ {
		_, err2 = w.Next(ctx)
	}
	if !errors.Is(err2, ErrWatcherTooSlow) {
		t.Fatalf("slow watcher ended with %v", err2)
	}
}

func TestStore_FilePersisterRestores(t *testing.T) {
	dir := t.TempDir()
	openFile := func() *Store {
		p, err := OpenFilePersister(dir)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Open(Config{Persister: p, SnapshotEvery: 7})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := openFile()
	for i := 0; i < 20; i++ {
		put(t, s, fmt.Sprintf("k/%02d", i), fmt.Sprint(i))
	}
	del(t, s, "k/03")
	rev := s.Revision()
	before := values(t, s, ListOptions{Prefix: "k/"})
	atRev := values(t, s, ListOptions{Prefix: "k/", Rev: rev - 5})
	s.Close()
	if _, err := os.Stat(filepath.Join(dir, "snapshot")); err != nil {
		t.Fatalf("no snapshot after SnapshotEvery commits: %v", err)
	}

	// A torn record at the end (a write that was never acknowledged) is cut off.
	j, err := os.OpenFile(filepath.Join(dir, "journal"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	j.Write([]byte{200, 0, 0, 0, 1, 2, 3, 4, 'S', 1})
	j.Close()

	s = openFile()
	defer s.Close()
	if s.Revision() != rev {
		t.Fatalf("restored revision %d, want %d", s.Revision(), rev)
	}
	if got := values(t, s, ListOptions{Prefix: "k/"}); !slices.Equal(got, before) {
		t.Fatalf("restored %v\nwant %v", got, before)
	}
	// History survives too: lists at older revisions and watches from them.
	if got := values(t, s, ListOptions{Prefix: "k/", Rev: rev - 5}); !slices.Equal(got, atRev) {
		t.Fatalf("restored list at %d: %v, want %v", rev-5, got, atRev)
	}
	// Revisions keep increasing after a restart.
	if r := put(t, s, "k/new", "x"); r != rev+1 {
		t.Fatalf("revision after restart %d, want %d", r, rev+1)
	}
}

// A watcher that does not read is closed once the objects it lags behind pass
// WatchBufferBytes, before WatchBuffer events: it pins no more than that.
func TestK8S_WATCH_7_SlowWatcherBoundedByBytes(t *testing.T) {
	s := open(t, Config{WatchBuffer: 1000, WatchBufferBytes: 10 << 10})
	w, err := s.Watch(WatchOptions{Prefix: "k/", Since: s.Revision()})
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 4<<10)
	for i := 0; i < 5; i++ {
		put(t, s, fmt.Sprintf("k/%d", i), big)
	}
	if s.Watchers() != 0 {
		t.Fatal("the watcher holding 20 KiB was not dropped")
	}
	var err2 error
	for n := 0; n < 10 && err2 == nil; n++ {
		_, err2 = w.Next(context.Background())
	}
	if !errors.Is(err2, ErrWatcherTooSlow) {
		t.Fatalf("ended with %v", err2)
	}
	// A reader that keeps up is never dropped.
	w2, _ := s.Watch(WatchOptions{Prefix: "k/", Since: s.Revision()})
	for i := 0; i < 20; i++ {
		put(t, s, fmt.Sprintf("k/%d", i), big)
		if _, err := w2.Next(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// History is compacted by size as well as by count and age, so large objects
// written fast cannot grow memory without bound.
func TestStore_HistoryBoundedByBytes(t *testing.T) {
	s := open(t, Config{HistoryBytes: 64 << 10})
	big := strings.Repeat("x", 8<<10)
	first := put(t, s, "k/0", big)
	for i := 1; i < 40; i++ {
		put(t, s, "k/0", big)
	}
	if s.CompactedRevision() < first {
		t.Fatalf("compacted %d: history kept every change", s.CompactedRevision())
	}
	if _, err := s.Watch(WatchOptions{Prefix: "k/", Since: first}); !errors.Is(err, ErrCompacted) {
		t.Fatalf("watch from the first change: %v", err)
	}
	if s.Revision()-s.CompactedRevision() > 8 {
		t.Fatalf("%d changes retained, more than 64 KiB of 16 KiB entries", s.Revision()-s.CompactedRevision())
	}
}

// Concurrent read-modify-write on one key: every increment lands (no lost
// update), each commit has its own revision, and a function that lost the race
// ran again on the newer value. On many keys, a value computed for a revision that
// moved on is restamped with the one it got.
func TestStore_OptimisticMutateNoLostUpdate(t *testing.T) {
	stamp := func(v []byte, rev int64) ([]byte, error) {
		_, rest, _ := strings.Cut(string(v), ";")
		return []byte(fmt.Sprintf("%d;%s", rev, rest)), nil
	}
	s := open(t, Config{Restamp: stamp})
	const writers, each = 8, 50
	var calls atomic.Int64
	var wg sync.WaitGroup
	revs := make(chan int64, writers*each*2)
	for w := 0; w < writers; w++ {
		wg.Add(2)
		go func() { // all on one key
			defer wg.Done()
			for i := 0; i < each; i++ {
				rev, _, err := s.Mutate("k/counter", func(cur []byte, rev int64) (Change, error) {
					calls.Add(1)
					n := 0
					if cur != nil {
						_, num, _ := strings.Cut(string(cur), ";")
						n, _ = strconv.Atoi(num)
					}
					return Change{Op: Put, Value: []byte(fmt.Sprintf("%d;%d", rev, n+1))}, nil
				})
				if err != nil {
					t.Error(err)
					return
				}
				revs <- rev
			}
		}()
		go func() { // each on its own keys
			defer wg.Done()
			for i := 0; i < each; i++ {
				key := fmt.Sprintf("k/w%d-%d", w, i)
				rev, stored, err := s.Mutate(key, func(cur []byte, rev int64) (Change, error) {
					return Change{Op: Put, Value: []byte(fmt.Sprintf("%d;x", rev))}, nil
				})
				if err != nil {
					t.Error(err)
					return
				}
				if want := fmt.Sprintf("%d;x", rev); string(stored) != want {
					t.Errorf("%s stored %q at revision %d", key, stored, rev)
				}
				revs <- rev
			}
		}()
	}
	wg.Wait()
	close(revs)
	seen := map[int64]bool{}
	for r := range revs {
		if seen[r] {
			t.Fatalf("two commits at revision %d", r)
		}
		seen[r] = true
	}
	v, _ := s.Get("k/counter")
	if _, n, _ := strings.Cut(string(v), ";"); n != strconv.Itoa(writers*each) {
		t.Fatalf("counter %s after %d increments", v, writers*each)
	}
	if calls.Load() < writers*each {
		t.Fatalf("%d calls", calls.Load())
	}
	t.Logf("%d increments took %d calls of the function", writers*each, calls.Load())
}

// TestK8S_RV_2_CacheRevision: a cached list answers at its resource's last
// change, or the revision the store had when it opened (where kube's caches
// start too), never below the compacted revision; a consistent one brings its
// resource's cache, and no other, to the store's revision.
func TestK8S_RV_2_CacheRevision(t *testing.T) {
	dir := t.TempDir()
	openFile := func() *Store {
		p, err := OpenFilePersister(dir)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Open(Config{Persister: p, Collection: groupPlural})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cached := func(s *Store, prefix string, mode CacheRead, notOlderThan int64) int64 {
		t.Helper()
		res, err := s.List(ListOptions{Prefix: prefix, Cache: mode, NotOlderThan: notOlderThan})
		if err != nil {
			t.Fatal(err)
		}
		return res.Rev
	}
	s := openFile()
	a := put(t, s, "g/as/ns/1", "x")
	put(t, s, "g/bs/ns/1", "y")
	if got := cached(s, "g/as/ns/", CacheAny, 0); got != a {
		t.Errorf("as at any revision: %d, want their last change %d", got, a)
	}
	s.Close()
	s = openFile()
	defer s.Close()
	opened := s.Revision()
	if got := cached(s, "g/as/", CacheAny, 0); got != opened {
		t.Errorf("reopened, as at any revision: %d, want the revision at open %d", got, opened)
	}
	b := put(t, s, "g/bs/ns/2", "z")
	if got := cached(s, "g/as/", CacheConsistent, 0); got != b {
		t.Errorf("consistent: %d, want the store's %d", got, b)
	}
	c := put(t, s, "g/bs/ns/3", "w")
	if got := cached(s, "g/as/", CacheAny, 0); got != b {
		t.Errorf("after a consistent list: %d, want %d", got, b)
	}
	if got := cached(s, "g/as/", CacheAny, c); got != c {
		t.Errorf("not older than %d: %d", c, got)
	}
	d := put(t, s, "g/bs/ns/4", "v")
	// The progress notification reached the cache that asked for it alone
	// (kube-apiserver 1.32.13: a consistent list of Secrets moves their
	// cache's revision, not that of Pods or StorageClasses).
	if got := cached(s, "g/cs/", CacheAny, 0); got != opened {
		t.Errorf("another resource after the progress as asked for: %d, want the revision at open %d", got, opened)
	}
	if got := cached(s, "g/bs/", CacheConsistent, 0); got != d {
		t.Errorf("consistent, the cache up to date: %d, want %d", got, d)
	}
	if got := cached(s, "g/as/", CacheAny, 0); got != c {
		t.Errorf("a consistent list of another resource moved as' cache: %d, want %d", got, c)
	}
	if _, err := s.Compact(d); err != nil {
		t.Fatal(err)
	}
	if got := cached(s, "g/as/", CacheAny, 0); got != d {
		t.Errorf("after compacting to %d: %d", d, got)
	}
}

// groupPlural is the collection of a key laid out as the registry lays them
// out (GROUP/PLURAL/...): its first two segments.
func groupPlural(key string) string {
	parts := strings.SplitN(key, "/", 3)
	if len(parts) < 2 {
		return key
	}
	return parts[0] + "/" + parts[1]
}

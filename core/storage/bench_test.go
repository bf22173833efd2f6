package storage

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// slowPersister takes 5 ms to make journal entries durable, as a slow disk or
// IndexedDB under load does.
type slowPersister struct{ entryPersister }

func (p *slowPersister) Append(e []byte) error { return nil }
func (p *slowPersister) Sync() error {
	time.Sleep(5 * time.Millisecond)
	return nil
}
func (p *slowPersister) Snapshot(write func(io.Writer) error) error { return write(io.Discard) }

// BenchmarkListWhileSlowAppend lists 1,000 current objects while a writer keeps
// committing through a persister that takes 5 ms per entry, against the floor of
// the same list with no writer. A journal write should not hold up readers of
// current objects: the ratio is ~1 when it does not.
func BenchmarkListWhileSlowAppend(b *testing.B) {
	s, err := Open(Config{Persister: &slowPersister{}, SnapshotEvery: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := 0; i < 1000; i++ {
		if _, _, err := s.Mutate(fmt.Sprintf("k/%04d", i), func([]byte, int64) (Change, error) {
			return Change{Op: Put, Value: []byte(`{"v":1}`)}, nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	list := func() time.Duration {
		start := time.Now()
		if res, err := s.List(ListOptions{Prefix: "k/"}); err != nil || len(res.Items) != 1000 {
			b.Fatalf("list: %d, %v", len(res.Items), err)
		}
		return time.Since(start)
	}
	var floor time.Duration
	for i := 0; i < 50; i++ {
		floor += list()
	}
	floor /= 50

	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; !stop.Load(); i++ {
			_, _, _ = s.Mutate(fmt.Sprintf("k/%04d", i%1000), func([]byte, int64) (Change, error) {
				return Change{Op: Put, Value: []byte(fmt.Sprintf(`{"v":%d}`, i))}, nil
			})
		}
	}()
	time.Sleep(20 * time.Millisecond)
	b.ResetTimer()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		total += list()
	}
	b.StopTimer()
	stop.Store(true)
	<-done
	b.ReportMetric(float64(total)/float64(b.N)/float64(floor), "x-idle-list")
}

// discardPersister journals nowhere: what a commit costs the store itself.
type discardPersister struct{ entryPersister }

func (p *discardPersister) Append([]byte) error { return nil }

// BenchmarkCommitJournaled commits 1 KiB objects through a persister that keeps
// nothing (framing, queueing and group commit, no I/O), against the floor of the
// same commits in a store without a persister, in alternating rounds of the same
// run: the ratio is what journaling costs a write.
func BenchmarkCommitJournaled(b *testing.B) {
	value := []byte(`{"data":{"v":"` + strings.Repeat("x", 1000) + `"}}`)
	commits := func(s *Store, n int) time.Duration {
		start := time.Now()
		for i := 0; i < n; i++ {
			if _, _, err := s.Mutate(fmt.Sprintf("k/%04d", i%1000), func([]byte, int64) (Change, error) {
				return Change{Op: Put, Value: value}, nil
			}); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start)
	}
	floorStore, err := Open(Config{SnapshotEvery: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	defer floorStore.Close()
	s, err := Open(Config{Persister: &discardPersister{}, SnapshotEvery: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const round = 500
	var floor, total time.Duration
	b.ResetTimer()
	for done := 0; done < b.N; done += round {
		n := min(round, b.N-done)
		b.StopTimer()
		floor += commits(floorStore, n)
		b.StartTimer()
		total += commits(s, n)
	}
	b.StopTimer()
	b.ReportMetric(float64(total)/float64(floor), "x-in-memory")
}

package controllers

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"kubeplay/core/clock"
)

// queueRun runs q with a sync that reports each key and fails while fail
// says so; the test reads the keys synced from the channel returned.
func queueRun(t *testing.T, q *Queue, fail func(key string) bool) <-chan string {
	t.Helper()
	synced := make(chan string)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		q.Run(ctx, func(_ context.Context, key string) error {
			synced <- key
			if fail(key) {
				return errors.New("failed")
			}
			return nil
		})
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return synced
}

func expectSync(t *testing.T, synced <-chan string, want string) {
	t.Helper()
	select {
	case key := <-synced:
		if key != want {
			t.Fatalf("synced %q, want %q", key, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%q not synced", want)
	}
}

func expectNone(t *testing.T, synced <-chan string) {
	t.Helper()
	select {
	case key := <-synced:
		t.Fatalf("synced %q, want nothing", key)
	case <-time.After(20 * time.Millisecond):
	}
}

// waitTimer waits until the queue has armed its timer on clk.
func waitTimer(t *testing.T, clk *clock.Fake) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); clk.Waiters() == 0; time.Sleep(100 * time.Microsecond) {
		if time.Now().After(deadline) {
			t.Fatal("the queue armed no timer")
		}
	}
}

// TestSIM_1_QueueAsClientGosWorkqueue: a key added twice waits once; a sync
// that fails comes back
// after client-go's backoff (5 ms, then 10 ms), one that succeeds resets it;
// AddAfter brings a key back later, and a sync drops what was due later;
// settled, the queue holds no timer.
func TestSIM_1_QueueAsClientGosWorkqueue(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	q := NewQueue(clk)
	q.Add("a")
	q.Add("a")
	var failing atomic.Bool
	failing.Store(true)
	synced := queueRun(t, q, func(key string) bool { return key == "bad" && failing.Load() })
	expectSync(t, synced, "a")
	expectNone(t, synced)

	q.Add("bad")
	expectSync(t, synced, "bad")
	waitTimer(t, clk)
	clk.Step(4 * time.Millisecond)
	expectNone(t, synced)
	clk.Step(time.Millisecond)
	expectSync(t, synced, "bad")
	waitTimer(t, clk)
	clk.Step(9 * time.Millisecond)
	expectNone(t, synced)
	failing.Store(false)
	clk.Step(time.Millisecond)
	expectSync(t, synced, "bad") // succeeds: backoff reset, nothing due
	for deadline := time.Now().Add(10 * time.Second); q.Pending() != 0 || clk.Waiters() != 0; time.Sleep(100 * time.Microsecond) {
		if time.Now().After(deadline) {
			t.Fatalf("settled: %d pending, %d timers", q.Pending(), clk.Waiters())
		}
	}

	q.AddAfter("later", time.Minute)
	waitTimer(t, clk)
	clk.Step(59 * time.Second)
	expectNone(t, synced)
	q.Add("later") // synced now: what was due later is dropped
	expectSync(t, synced, "later")
	clk.Step(time.Minute)
	expectNone(t, synced)
}

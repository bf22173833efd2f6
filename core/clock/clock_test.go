package clock

import (
	"context"
	"testing"
	"time"
)

func fired(c <-chan time.Time) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func TestFakeTimersTickersAndTimeouts(t *testing.T) {
	start := time.Unix(100, 0)
	f := NewFake(start)
	timer := f.NewTimer(2 * time.Second)
	ticker := f.NewTicker(time.Second)
	stopped := f.NewTimer(time.Second)
	if !stopped.Stop() || stopped.Stop() {
		t.Fatal("Stop reports whether it stopped a pending timer")
	}
	ctx, cancel := WithTimeout(context.Background(), f, 3*time.Second)
	defer cancel()
	if f.Waiters() != 3 {
		t.Fatalf("%d waiters", f.Waiters())
	}
	f.Step(time.Second)
	if fired(timer.C()) || !fired(ticker.C()) || fired(stopped.C()) {
		t.Fatal("after 1s only the ticker fires")
	}
	f.Step(time.Second)
	if !fired(timer.C()) || !fired(ticker.C()) {
		t.Fatal("after 2s the timer and the ticker fire")
	}
	if ctx.Err() != nil {
		t.Fatal("timed out early")
	}
	f.Step(5 * time.Second) // ticks nobody takes are dropped
	if !fired(ticker.C()) || fired(ticker.C()) {
		t.Fatal("a ticker holds one tick")
	}
	<-ctx.Done()
	if got := f.Now(); !got.Equal(start.Add(7 * time.Second)) {
		t.Fatalf("now %v", got)
	}
	ticker.Stop()
	if f.Waiters() != 0 {
		t.Fatalf("%d waiters left", f.Waiters())
	}
}

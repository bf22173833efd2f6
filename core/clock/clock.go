// Package clock owns the core's sense of time: the wall clock, and a fake one that
// tests move by hand. Watch deadlines and bookmarks, the controllers' resyncs and
// retries, and the store's history window read it, so the queueing and timing
// logic can be tested exactly and without sleeping, as k8s.io/utils/clock lets
// kube's own packages be.
package clock

import (
	"context"
	"sort"
	"sync"
	"time"
)

// Clock tells the time and makes timers.
type Clock interface {
	Now() time.Time
	// NewTimer fires once, d from now.
	NewTimer(d time.Duration) Timer
	// NewTicker fires every d.
	NewTicker(d time.Duration) Ticker
}

// Timer is a one-shot timer.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

// Ticker is a repeating timer.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

// Real is the wall clock.
var Real Clock = realClock{}

type realClock struct{}

func (realClock) Now() time.Time                   { return time.Now() }
func (realClock) NewTimer(d time.Duration) Timer   { return realTimer{time.NewTimer(d)} }
func (realClock) NewTicker(d time.Duration) Ticker { return realTicker{time.NewTicker(d)} }

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time { return t.t.C }
func (t realTimer) Stop() bool          { return t.t.Stop() }

type realTicker struct{ t *time.Ticker }

func (t realTicker) C() <-chan time.Time { return t.t.C }
func (t realTicker) Stop()               { t.t.Stop() }

// Fake is a clock that moves only when told to (Step, Set). Its timers and
// tickers fire, in time order, as it passes them.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	waiter []*fakeWaiter
}

type fakeWaiter struct {
	at     time.Time
	period time.Duration // 0 for a timer
	ch     chan time.Time
	fake   *Fake
}

// NewFake is a fake clock at t.
func NewFake(t time.Time) *Fake { return &Fake{now: t} }

// Now is the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Step moves the clock on by d, firing what comes due.
func (f *Fake) Step(d time.Duration) { f.Set(f.Now().Add(d)) }

// Set moves the clock to t (never back), firing what comes due.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for {
		sort.Slice(f.waiter, func(i, j int) bool { return f.waiter[i].at.Before(f.waiter[j].at) })
		if len(f.waiter) == 0 || f.waiter[0].at.After(t) {
			break
		}
		w := f.waiter[0]
		f.now = w.at
		select {
		case w.ch <- w.at:
		default: // a tick nobody took is dropped, as time.Ticker drops it
		}
		if w.period > 0 {
			w.at = w.at.Add(w.period)
		} else {
			f.waiter = f.waiter[1:]
		}
	}
	if t.After(f.now) {
		f.now = t
	}
}

// Waiters is how many timers and tickers are pending: a test can wait until the
// code it drives has armed one before stepping.
func (f *Fake) Waiters() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiter)
}

func (f *Fake) add(d, period time.Duration) *fakeWaiter {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := &fakeWaiter{at: f.now.Add(d), period: period, ch: make(chan time.Time, 1), fake: f}
	if period == 0 && d <= 0 {
		w.ch <- f.now // due already: fires at once, as time.NewTimer's does
		return w
	}
	f.waiter = append(f.waiter, w)
	return w
}

func (f *Fake) remove(w *fakeWaiter) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, x := range f.waiter {
		if x == w {
			f.waiter = append(f.waiter[:i], f.waiter[i+1:]...)
			return true
		}
	}
	return false
}

// NewTimer is a fake timer.
func (f *Fake) NewTimer(d time.Duration) Timer { return fakeTimer{f.add(d, 0)} }

// NewTicker is a fake ticker.
func (f *Fake) NewTicker(d time.Duration) Ticker {
	if d <= 0 {
		panic("clock: non-positive interval for NewTicker")
	}
	return fakeTicker{f.add(d, d)}
}

type fakeTimer struct{ w *fakeWaiter }

func (t fakeTimer) C() <-chan time.Time { return t.w.ch }
func (t fakeTimer) Stop() bool          { return t.w.fake.remove(t.w) }

type fakeTicker struct{ w *fakeWaiter }

func (t fakeTicker) C() <-chan time.Time { return t.w.ch }
func (t fakeTicker) Stop()               { t.w.fake.remove(t.w) }

// WithTimeout is context.WithTimeout on clk: ctx is cancelled d from now by clk.
// On the wall clock it is context.WithTimeout itself (a runtime timer, no
// goroutine: a server holds one per open watch).
func WithTimeout(ctx context.Context, clk Clock, d time.Duration) (context.Context, context.CancelFunc) {
	if clk == Real {
		return context.WithTimeout(ctx, d)
	}
	ctx, cancel := context.WithCancel(ctx)
	t := clk.NewTimer(d)
	go func() {
		select {
		case <-t.C():
			cancel()
		case <-ctx.Done():
			t.Stop()
		}
	}()
	return ctx, cancel
}

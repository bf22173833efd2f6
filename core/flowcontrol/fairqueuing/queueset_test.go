package fairqueuing

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"kubeplay/core/clock"
)

// noMetrics observes nothing.
type noMetrics struct{}

func (noMetrics) SetCurrentR(float64)             {}
func (noMetrics) AdvanceEpoch()                   {}
func (noMetrics) AddWaiting(time.Time, float64)   {}
func (noMetrics) AddExecuting(time.Time, float64) {}
func (noMetrics) AddSeats(time.Time, float64)     {}
func (noMetrics) SetDemand(time.Time, float64)    {}
func (noMetrics) Flow(string) FlowMetrics         { return noFlowMetrics{} }

type noFlowMetrics struct{}

func (noFlowMetrics) Reject(Rejection)            {}
func (noFlowMetrics) AddWaiting(float64, float64) {}
func (noFlowMetrics) ObserveQueueLength(int)      {}
func (noFlowMetrics) AddExecuting(float64)        {}
func (noFlowMetrics) AddExecutingSeats(float64)   {}
func (noFlowMetrics) NoAccommodation()            {}

func newTestQueueSet(t *testing.T, clk clock.Clock, cfg QueuingConfig, limit int) *QueueSet {
	t.Helper()
	qs := NewQueueSet(clk, noMetrics{})
	if err := qs.Configure(cfg, limit); err != nil {
		t.Fatal(err)
	}
	return qs
}

// flowLoad is one flow of a simulation: how many requests it keeps outstanding.
type flowLoad struct {
	name        string
	outstanding int
	service     time.Duration
}

// simulate keeps each flow's requests outstanding in qs (resubmitting each as
// it completes) for steps completions, on clk, and counts dispatches per flow.
// Requests are one seat each; each step finishes the request that has
// executed longest.
func simulate(t *testing.T, qs *QueueSet, clk *clock.Fake, flows []flowLoad, steps int) map[string]int {
	t.Helper()
	type running struct {
		flow    int
		release chan struct{}
		done    chan struct{}
	}
	started := make(chan *running, 1024)
	submit := func(f int) {
		r := &running{flow: f, release: make(chan struct{}), done: make(chan struct{})}
		req, why := qs.StartRequest(context.Background(), WorkEstimate{InitialSeats: 1}, HashFlowID("fs", flows[f].name), "fs", flows[f].name, nil)
		if req == nil {
			t.Fatalf("%s rejected: %s", flows[f].name, why)
		}
		go func() {
			req.Finish(time.Minute, func() {
				started <- r
				<-r.release
			})
			close(r.done)
		}()
	}
	for f, fl := range flows {
		for i := 0; i < fl.outstanding; i++ {
			submit(f)
		}
	}
	counts := map[string]int{}
	var executing []*running
	for len(executing) < qs.limit {
		r := <-started
		executing = append(executing, r)
		counts[flows[r.flow].name]++
	}
	for i := 0; i < steps; i++ {
		r := executing[0]
		executing = executing[1:]
		clk.Step(flows[r.flow].service)
		close(r.release)
		<-r.done
		submit(r.flow)
		next := <-started
		executing = append(executing, next)
		counts[flows[next.flow].name]++
	}
	for _, r := range executing {
		close(r.release)
	}
	return counts
}

// distinctQueues are two flow names whose one-queue hands differ.
func distinctQueues(d *Dealer, a string) string {
	qa := d.DealIntoHand(HashFlowID("fs", a), nil)[0]
	for i := 0; ; i++ {
		b := "mouse-" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		if d.DealIntoHand(HashFlowID("fs", b), nil)[0] != qa {
			return b
		}
	}
}

// TestAPF_6_MouseNotStarved: one elephant flow keeps 50 requests outstanding,
// one mouse flow 1, on the same level of two seats (one queue per flow); every
// mouse request completes and the mouse gets its fair share of the dispatches,
// within 20%. Fair is max-min: the lesser of an equal split and what the flow
// asks. A mouse with one request at a time asks for one dispatch in three here
// (its next request waits for a seat to free, then holds it for two
// completions); with more outstanding than its half, it gets half.
func TestAPF_6_MouseNotStarved(t *testing.T) {
	for _, c := range []struct {
		outstanding int
		fair        float64
	}{{1, 1.0 / 3}, {5, 0.5}} {
		clk := clock.NewFake(time.Unix(1_700_000_000, 0))
		qs := newTestQueueSet(t, clk, QueuingConfig{Name: "global-default", Queues: 64, HandSize: 1, QueueLengthLimit: 100}, 2)
		mouse := distinctQueues(qs.dealer, "elephant")
		counts := simulate(t, qs, clk, []flowLoad{{"elephant", 50, 10 * time.Millisecond}, {mouse, c.outstanding, 10 * time.Millisecond}}, 400)
		share := float64(counts[mouse]) / float64(counts[mouse]+counts["elephant"])
		if math.Abs(share-c.fair) > c.fair*0.2 {
			t.Errorf("mouse with %d outstanding: share %.3f of %v, fair is %.3f", c.outstanding, share, counts, c.fair)
		}
		t.Logf("mouse with %d outstanding: dispatches %v, share %.3f (fair %.3f)", c.outstanding, counts, share, c.fair)
	}
}

// TestAPF_6_TimeoutAndCancel: a queued request that waits past its limit is
// rejected as time-out; one whose client goes away leaves its queue as
// cancelled; neither takes a seat, and the queue's next request goes on.
func TestAPF_6_TimeoutAndCancel(t *testing.T) {
	clk := clock.NewFake(time.Unix(1_700_000_000, 0))
	qs := newTestQueueSet(t, clk, QueuingConfig{Name: "l", Queues: 4, HandSize: 1, QueueLengthLimit: 10}, 1)
	start := func(ctx context.Context) *Request {
		r, why := qs.StartRequest(ctx, WorkEstimate{InitialSeats: 1}, HashFlowID("fs", "u"), "fs", "u", nil)
		if r == nil {
			t.Fatalf("rejected: %s", why)
		}
		return r
	}
	release := make(chan struct{})
	holding := start(context.Background())
	held := make(chan bool)
	go func() { held <- holding.Finish(time.Second, func() { <-release }) }()

	timedOut := start(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := start(ctx)
	results := make(chan [2]any, 2)
	go func() { results <- [2]any{"timeout", timedOut.Finish(time.Second, func() {})} }()
	go func() { results <- [2]any{"cancel", cancelled.Finish(time.Minute, func() {})} }()
	for clk.Waiters() < 2 { // both wait on their limit's timer
		time.Sleep(time.Millisecond)
	}
	cancel()
	clk.Step(time.Second)
	for range 2 {
		if r := <-results; r[1] != false {
			t.Errorf("%s: executed", r[0])
		}
	}
	if timedOut.Rejection() != RejectTimeout || cancelled.Rejection() != RejectCancelled {
		t.Errorf("reasons %q, %q", timedOut.Rejection(), cancelled.Rejection())
	}
	// The seat is still the first request's; the next request waits for it.
	next := start(context.Background())
	close(release)
	if !<-held || !next.Finish(time.Second, func() {}) {
		t.Error("the first or the next request did not execute")
	}
	st := qs.State()
	if st.TimedOut != 1 || st.Cancelled != 1 || st.Rejected != 2 || st.Waiting != 0 || st.SeatsInUse != 0 {
		t.Errorf("counts: timed out %d, cancelled %d, rejected %d, waiting %d, seats %d", st.TimedOut, st.Cancelled, st.Rejected, st.Waiting, st.SeatsInUse)
	}
}

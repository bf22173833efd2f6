package fairqueuing

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	fq "k8s.io/apiserver/pkg/util/flowcontrol/fairqueuing"
	"k8s.io/apiserver/pkg/util/flowcontrol/fairqueuing/queueset"
	kubeclock "k8s.io/apiserver/pkg/util/flowcontrol/fairqueuing/testing/eventclock"
	kubemetrics "k8s.io/apiserver/pkg/util/flowcontrol/metrics"
	kuberequest "k8s.io/apiserver/pkg/util/flowcontrol/request"
	"k8s.io/apiserver/pkg/util/shufflesharding"

	"kubeplay/core/clock"
)

// Differential tests against k8s.io/apiserver's own flow control packages (a
// test-only dependency): the same inputs must give the same hands, the same
// rejections and the same dispatch order.

// TestAPF_6_ShuffleShardingHandsAsKube deals hands for many hashes and shapes
// with kube's dealer and kubeplay's.
func TestAPF_6_ShuffleShardingHandsAsKube(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	shapes := [][2]int{{128, 6}, {64, 8}, {16, 4}, {1, 1}, {8, 8}, {1 << 10, 6}, {7, 3}, {64, 6}}
	for _, s := range shapes {
		kd, err := shufflesharding.NewDealer(s[0], s[1])
		if err != nil {
			t.Fatal(err)
		}
		d, err := NewDealer(s[0], s[1])
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2000; i++ {
			h := rng.Uint64()
			if i < 10 {
				h = HashFlowID("global-default", fmt.Sprint("user-", i))
			}
			want := kd.DealIntoHand(h, nil)
			if got := d.DealIntoHand(h, nil); !slices.Equal(got, want) {
				t.Fatalf("deck %d hand %d hash %x: got %v, kube %v", s[0], s[1], h, got, want)
			}
		}
	}
	// kube's errors for bad shapes, word for word.
	for _, s := range [][2]int{{0, 1}, {4, 8}, {1 << 27, 1}, {128, 10}} {
		_, kerr := shufflesharding.NewDealer(s[0], s[1])
		_, err := NewDealer(s[0], s[1])
		if kerr == nil || err == nil || kerr.Error() != err.Error() {
			t.Errorf("deck %d hand %d: got %v, kube %v", s[0], s[1], err, kerr)
		}
	}
}

// arrival is one request of a dispatch scenario.
type arrival struct {
	flow    string
	at      time.Duration // after the start
	service time.Duration // how long it executes once dispatched
	seats   uint64        // 0 is 1
}

func (a arrival) work() uint64 { return max(a.seats, 1) }

// scenario is a level's queuing and limit, and what arrives.
type scenario struct {
	qc       QueuingConfig
	limit    int
	arrivals []arrival
}

// outcome is what a queue set made of a scenario: the requests it
// rejected, and those it dispatched, in steps (those that started together,
// at once on arrival or when a request finished, by index).
type outcome struct {
	rejected []int
	steps    [][]int
}

// run plays a scenario's requests: each arrives (the clock stepping to its
// arrival) and is admitted by start, or rejected (nil); then the request
// that has executed longest finishes, one at a time, the clock stepping by
// its service time, until all have run. executing is how many requests the
// queue set says execute.
func (sc scenario) run(start func(i int, a arrival, exec func()) (finish func() bool, admitted bool), executing func() int, step func(time.Duration), setTime func(time.Duration)) outcome {
	var out outcome
	started := make(chan int, len(sc.arrivals))
	release := make([]chan struct{}, len(sc.arrivals))
	finished := make(chan int, len(sc.arrivals))
	for i, a := range sc.arrivals {
		setTime(a.at)
		release[i] = make(chan struct{})
		finish, ok := start(i, a, func() {
			started <- i
			<-release[i]
		})
		if !ok {
			out.rejected = append(out.rejected, i)
			continue
		}
		go func() {
			finish()
			finished <- i
		}()
	}
	var running []int // oldest first
	wait := func() {
		var batch []int
		for n := executing(); len(running)+len(batch) < n; {
			batch = append(batch, <-started)
		}
		slices.Sort(batch)
		if len(batch) > 0 {
			out.steps = append(out.steps, batch)
		}
		running = append(running, batch...)
	}
	wait()
	for len(running) > 0 {
		i := running[0]
		running = running[1:]
		step(sc.arrivals[i].service)
		close(release[i])
		<-finished
		wait()
	}
	return out
}

// kubeOutcome runs the scenario through kube's queueset.
func kubeOutcome(t *testing.T, sc scenario) outcome {
	start := time.Unix(1_700_000_000, 0)
	clk, _ := kubeclock.NewFake(start, 0, nil)
	labels := []string{"differential"}
	factory := queueset.NewQueueSetFactory(clk)
	qsc, err := factory.BeginConstruction(fq.QueuingConfig{Name: "differential", DesiredNumQueues: sc.qc.Queues, QueueLengthLimit: sc.qc.QueueLengthLimit, HandSize: sc.qc.HandSize},
		kubemetrics.RatioedGaugeVecPhasedElementPair(kubemetrics.PriorityLevelConcurrencyGaugeVec, 1, 1, labels),
		kubemetrics.PriorityLevelExecutionSeatsGaugeVec.NewForLabelValuesSafe(0, 1, labels),
		kubemetrics.ApiserverSeatDemands.NewForLabelValuesSafe(0, 1, labels))
	if err != nil {
		t.Fatal(err)
	}
	qs := qsc.Complete(fq.DispatchingConfig{ConcurrencyLimit: sc.limit, ConcurrencyDenominator: sc.limit})
	return sc.run(func(i int, a arrival, exec func()) (func() bool, bool) {
		req, _ := qs.StartRequest(context.Background(), &kuberequest.WorkEstimate{InitialSeats: a.work()}, HashFlowID("fs", a.flow), a.flow, "fs", i, nil, nil)
		if req == nil {
			return nil, false
		}
		return func() bool { return req.Finish(exec) }, true
	}, func() int { return qs.Dump(false).Executing },
		func(d time.Duration) { clk.SetTime(clk.Now().Add(d)) },
		func(at time.Duration) { clk.SetTime(start.Add(at)) })
}

// ourOutcome runs the same scenario through kubeplay's QueueSet.
func ourOutcome(t *testing.T, sc scenario) outcome {
	start := time.Unix(1_700_000_000, 0)
	clk := clock.NewFake(start)
	qs := newTestQueueSet(t, clk, sc.qc, sc.limit)
	return sc.run(func(i int, a arrival, exec func()) (func() bool, bool) {
		req, _ := qs.StartRequest(context.Background(), WorkEstimate{InitialSeats: a.work()}, HashFlowID("fs", a.flow), "fs", a.flow, nil)
		if req == nil {
			return nil, false
		}
		return func() bool { return req.Finish(time.Minute, exec) }, true
	}, func() int { return qs.State().Executing }, clk.Step,
		func(at time.Duration) { clk.Set(start.Add(at)) })
}

// randomArrivals are n requests of six flows, arriving 0 to 2 ms apart,
// served 1 to 20 ms, of 1 to maxSeats seats.
func randomArrivals(rng *rand.Rand, n, maxSeats int) []arrival {
	var as []arrival
	at := time.Duration(0)
	for i := 0; i < n; i++ {
		at += time.Duration(rng.Intn(3)) * time.Millisecond
		as = append(as, arrival{flow: fmt.Sprint("flow-", rng.Intn(6)), at: at, service: time.Duration(1+rng.Intn(20)) * time.Millisecond,
			seats: uint64(1 + rng.Intn(maxSeats))})
	}
	return as
}

// TestAPF_6_DispatchOrderAsKube queues the same requests in kube's queueset and
// in kubeplay's and compares what is rejected and the order requests are
// dispatched in: fair queuing by virtual finish time, shuffle sharding, the
// round robin that breaks ties, the correction by actual service times, the
// queue length limit, and requests of several seats (a wide one waits for
// its seats; one wider than the limit goes alone).
func TestAPF_6_DispatchOrderAsKube(t *testing.T) {
	scenarios := map[string]scenario{}
	// An elephant with 30 requests and two mice, one queue each way.
	var elephant []arrival
	for i := 0; i < 30; i++ {
		elephant = append(elephant, arrival{flow: "elephant", at: time.Duration(i) * time.Millisecond, service: 10 * time.Millisecond})
		if i%10 == 5 {
			elephant = append(elephant, arrival{flow: "mouse-" + fmt.Sprint(i), at: time.Duration(i) * time.Millisecond, service: 2 * time.Millisecond})
		}
	}
	scenarios["elephant and mice"] = scenario{QueuingConfig{Name: "d", Queues: 8, HandSize: 3, QueueLengthLimit: 100}, 2, elephant}
	for seed := int64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewSource(seed))
		as := randomArrivals(rng, 60, 1)
		queues, hand := []int{4, 16, 64}[seed%3], []int{2, 3, 6}[seed%3]
		scenarios[fmt.Sprint("random ", seed)] = scenario{QueuingConfig{Name: "d", Queues: queues, HandSize: hand, QueueLengthLimit: 100}, 1 + int(seed%3), as}
	}
	// Short queues: bursts past the queue length limit are rejected.
	for seed := int64(7); seed <= 9; seed++ {
		rng := rand.New(rand.NewSource(seed))
		scenarios[fmt.Sprint("queue-full ", seed)] = scenario{QueuingConfig{Name: "d", Queues: 8, HandSize: 2, QueueLengthLimit: 3}, 2, randomArrivals(rng, 40, 1)}
	}
	// Requests of 1 to 4 seats on 3 or 4 seats.
	for seed := int64(10); seed <= 13; seed++ {
		rng := rand.New(rand.NewSource(seed))
		scenarios[fmt.Sprint("wide ", seed)] = scenario{QueuingConfig{Name: "d", Queues: 8, HandSize: 2, QueueLengthLimit: 50}, 3 + int(seed%2), randomArrivals(rng, 40, 4)}
	}
	for name, sc := range scenarios {
		t.Run(name, func(t *testing.T) {
			want := kubeOutcome(t, sc)
			got := ourOutcome(t, sc)
			if !slices.Equal(got.rejected, want.rejected) {
				t.Errorf("rejected\n got %v\nkube %v", got.rejected, want.rejected)
			}
			if !slices.EqualFunc(got.steps, want.steps, slices.Equal) {
				t.Errorf("dispatch order\n got %v\nkube %v", got.steps, want.steps)
			}
			if len(want.rejected) == 0 && strings.HasPrefix(name, "queue-full") {
				t.Error("the scenario rejects nothing: it tests no rejection")
			}
			t.Logf("%d rejected, %d dispatched in %d steps", len(want.rejected), len(sc.arrivals)-len(want.rejected), len(want.steps))
		})
	}
}

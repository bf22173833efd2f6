package flowcontrol

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
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
// test-only dependency): the same inputs must give the same hands and the same
// dispatch order.

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
		d, err := newDealer(s[0], s[1])
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2000; i++ {
			h := rng.Uint64()
			if i < 10 {
				h = hashFlowID("global-default", fmt.Sprint("user-", i))
			}
			want := kd.DealIntoHand(h, nil)
			if got := d.dealIntoHand(h, nil); !slices.Equal(got, want) {
				t.Fatalf("deck %d hand %d hash %x: got %v, kube %v", s[0], s[1], h, got, want)
			}
		}
	}
	// kube's errors for bad shapes, word for word.
	for _, s := range [][2]int{{0, 1}, {4, 8}, {1 << 27, 1}, {128, 10}} {
		_, kerr := shufflesharding.NewDealer(s[0], s[1])
		_, err := newDealer(s[0], s[1])
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
}

// kubeOrder runs the scenario through kube's queueset: all requests arrive
// (the clock stepping to each arrival), then whatever executes longest ago
// finishes, one at a time, the clock stepping by its service time; the order
// in which requests start is the answer.
func kubeOrder(t *testing.T, qc queuingConfig, limit int, arrivals []arrival) []int {
	start := time.Unix(1_700_000_000, 0)
	clk, _ := kubeclock.NewFake(start, 0, nil)
	labels := []string{"differential"}
	factory := queueset.NewQueueSetFactory(clk)
	qsc, err := factory.BeginConstruction(fq.QueuingConfig{Name: "differential", DesiredNumQueues: qc.queues, QueueLengthLimit: qc.queueLengthLimit, HandSize: qc.handSize},
		kubemetrics.RatioedGaugeVecPhasedElementPair(kubemetrics.PriorityLevelConcurrencyGaugeVec, 1, 1, labels),
		kubemetrics.PriorityLevelExecutionSeatsGaugeVec.NewForLabelValuesSafe(0, 1, labels),
		kubemetrics.ApiserverSeatDemands.NewForLabelValuesSafe(0, 1, labels))
	if err != nil {
		t.Fatal(err)
	}
	qs := qsc.Complete(fq.DispatchingConfig{ConcurrencyLimit: limit, ConcurrencyDenominator: limit})
	started := make(chan int, len(arrivals))
	release := make([]chan struct{}, len(arrivals))
	finished := make(chan int, len(arrivals))
	for i, a := range arrivals {
		clk.SetTime(start.Add(a.at))
		release[i] = make(chan struct{})
		req, _ := qs.StartRequest(context.Background(), &kuberequest.WorkEstimate{InitialSeats: 1}, hashFlowID("fs", a.flow), a.flow, "fs", i, nil, nil)
		if req == nil {
			t.Fatalf("kube rejected request %d", i)
		}
		go func() {
			req.Finish(func() {
				started <- i
				<-release[i]
			})
			finished <- i
		}()
	}
	return driveOrder(len(arrivals), limit, arrivals, started, release, finished, func(d time.Duration) { clk.SetTime(clk.Now().Add(d)) })
}

// driveOrder finishes the oldest executing request until all ran, and returns
// the order requests started in.
func driveOrder(n, limit int, arrivals []arrival, started chan int, release []chan struct{}, finished chan int, step func(time.Duration)) []int {
	var order, executing []int
	for len(order) < min(limit, n) {
		i := <-started
		order, executing = append(order, i), append(executing, i)
	}
	// Those first dispatched at once, at arrival; their order is by arrival.
	slices.Sort(order)
	slices.Sort(executing)
	for len(executing) > 0 {
		i := executing[0]
		executing = executing[1:]
		step(arrivals[i].service)
		close(release[i])
		<-finished
		if len(order) < n {
			j := <-started
			order, executing = append(order, j), append(executing, j)
		}
	}
	return order
}

// ourOrder runs the same scenario through kubeplay's queueSet.
func ourOrder(t *testing.T, qc queuingConfig, limit int, arrivals []arrival) []int {
	start := time.Unix(1_700_000_000, 0)
	clk := clock.NewFake(start)
	qs := newQueueSet(clk, newMetricSet(clk).level(clk, "differential"))
	if err := qs.configure(qc, limit); err != nil {
		t.Fatal(err)
	}
	started := make(chan int, len(arrivals))
	release := make([]chan struct{}, len(arrivals))
	finished := make(chan int, len(arrivals))
	for i, a := range arrivals {
		clk.Set(start.Add(a.at))
		release[i] = make(chan struct{})
		req, why := qs.startRequest(context.Background(), workEstimate{InitialSeats: 1}, hashFlowID("fs", a.flow), "fs", a.flow, requestDetail{})
		if req == nil {
			t.Fatalf("rejected request %d: %s", i, why)
		}
		go func() {
			req.finish(time.Minute, func() {
				started <- i
				<-release[i]
			})
			finished <- i
		}()
	}
	return driveOrder(len(arrivals), limit, arrivals, started, release, finished, clk.Step)
}

// TestAPF_6_DispatchOrderAsKube queues the same requests in kube's queueset and
// in kubeplay's and compares the order they are dispatched in: fair queuing by
// virtual finish time, shuffle sharding, the round robin that breaks ties and
// the correction by actual service times.
func TestAPF_6_DispatchOrderAsKube(t *testing.T) {
	scenarios := map[string]struct {
		qc       queuingConfig
		limit    int
		arrivals []arrival
	}{}
	// An elephant with 30 requests and two mice, one queue each way.
	var elephant []arrival
	for i := 0; i < 30; i++ {
		elephant = append(elephant, arrival{flow: "elephant", at: time.Duration(i) * time.Millisecond, service: 10 * time.Millisecond})
		if i%10 == 5 {
			elephant = append(elephant, arrival{flow: "mouse-" + fmt.Sprint(i), at: time.Duration(i) * time.Millisecond, service: 2 * time.Millisecond})
		}
	}
	scenarios["elephant and mice"] = struct {
		qc       queuingConfig
		limit    int
		arrivals []arrival
	}{queuingConfig{name: "d", queues: 8, handSize: 3, queueLengthLimit: 100}, 2, elephant}
	for seed := int64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var as []arrival
		at := time.Duration(0)
		for i := 0; i < 60; i++ {
			at += time.Duration(rng.Intn(3)) * time.Millisecond
			as = append(as, arrival{flow: fmt.Sprint("flow-", rng.Intn(6)), at: at, service: time.Duration(1+rng.Intn(20)) * time.Millisecond})
		}
		queues, hand := []int{4, 16, 64}[seed%3], []int{2, 3, 6}[seed%3]
		scenarios[fmt.Sprint("random ", seed)] = struct {
			qc       queuingConfig
			limit    int
			arrivals []arrival
		}{queuingConfig{name: "d", queues: queues, handSize: hand, queueLengthLimit: 100}, 1 + int(seed%3), as}
	}
	for name, sc := range scenarios {
		t.Run(name, func(t *testing.T) {
			want := kubeOrder(t, sc.qc, sc.limit, sc.arrivals)
			got := ourOrder(t, sc.qc, sc.limit, sc.arrivals)
			if !slices.Equal(got, want) {
				t.Fatalf("dispatch order\n got %v\nkube %v", got, want)
			}
		})
	}
}

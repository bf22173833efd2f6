package flowcontrol

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"kubeplay/core/clock"
	"kubeplay/core/flowcontrol/bootstrap"
	"kubeplay/core/flowcontrol/fairqueuing"
	"kubeplay/core/object"
	"kubeplay/core/request"
	"kubeplay/core/web"
)

// newTestController is a Controller with kube's bootstrap configuration (as
// if read from the API) on a fake clock.
func newTestController(t *testing.T, seats int) (*Controller, *clock.Fake) {
	clk := clock.NewFake(time.Unix(1_700_000_000, 0))
	c := New(Config{ServerConcurrencyLimit: seats, Clock: clk})
	c.digestBootstrap()
	return c, clk
}

// digestBootstrap digests kube's bootstrap objects, given uids, as if they had
// been read from the API.
func (c *Controller) digestBootstrap() {
	read := func(kind string) []object.Object {
		var out []object.Object
		for _, o := range append(bootstrap.Mandatory(kind), bootstrap.Suggested(kind)...) {
			object.Meta(o)["uid"] = "uid-" + object.MetaString(o, "name")
			out = append(out, o)
		}
		return out
	}
	c.digest(read(bootstrap.PriorityLevelConfiguration), read(bootstrap.FlowSchema))
}

// TestAPF_5_SeatsAsKube: with kube's 600 seats, every level's nominal, lower
// and upper seats are kube-apiserver 1.32.13's (testdata/kube-metrics.txt),
// and so are the current seats it derived with the exempt level's one
// executing request as the only demand.
func TestAPF_5_SeatsAsKube(t *testing.T) {
	c, clk := newTestController(t, 600)
	c.levels["exempt"].metrics.demand.set(1)
	clk.Step(borrowingAdjustmentPeriod)
	c.levels["exempt"].metrics.demand.set(0)
	c.mu.Lock()
	c.updateBorrowingLocked()
	c.mu.Unlock()
	var b strings.Builder
	if err := c.metrics.reg.write(&b); err != nil {
		t.Fatal(err)
	}
	ours := b.String()
	kube := map[string]string{ // from testdata/kube-metrics.txt
		"nominal": "catch-all 13, exempt 0, global-default 49, leader-election 25, node-high 98, system 74, workload-high 98, workload-low 245",
		"lower":   "catch-all 13, exempt 0, global-default 24, leader-election 25, node-high 73, system 50, workload-high 49, workload-low 24",
		"upper":   "catch-all 613, exempt 600, global-default 649, leader-election 625, node-high 698, system 674, workload-high 698, workload-low 845",
		"current": "catch-all 30, exempt 1, global-default 56, leader-election 58, node-high 170, system 117, workload-high 114, workload-low 56",
	}
	for which, list := range kube {
		for _, pair := range strings.Split(list, ", ") {
			name, v, _ := strings.Cut(pair, " ")
			line := "apiserver_flowcontrol_" + which + `_limit_seats{priority_level="` + name + `"} ` + v + "\n"
			if !strings.Contains(ours, line) {
				t.Errorf("kube has %s", strings.TrimSpace(line))
			}
		}
	}
}

// TestAPF_5_AdjustByHandStartsAPeriod: an adjustment made by hand (the
// tutorials' /debug/kubeplay/apf/adjust) starts a whole period, so the load a
// tutorial plays next is measured by the adjustment it asks for, not cut in
// two by the periodic one.
func TestAPF_5_AdjustByHandStartsAPeriod(t *testing.T) {
	c, clk := newTestController(t, 60)
	c.adjusted = clk.Now()
	clk.Step(6 * time.Second)
	c.mu.Lock()
	c.adjustBorrowingLocked() // by hand, 6 s into the period
	c.mu.Unlock()
	byHand := c.adjusted
	clk.Step(4 * time.Second) // the old period's end
	if wait := c.borrowingDue(); wait != 6*time.Second || c.adjusted != byHand {
		t.Errorf("at the old period's end: adjusted at %v (by hand at %v), next in %v; want no adjustment, next in 6s", c.adjusted, byHand, wait)
	}
	clk.Step(6 * time.Second)
	if wait := c.borrowingDue(); wait != borrowingAdjustmentPeriod || !c.adjusted.Equal(clk.Now()) {
		t.Errorf("a period after the adjustment by hand: adjusted at %v (now %v), next in %v; want adjusted now, next in %v", c.adjusted, clk.Now(), wait, borrowingAdjustmentPeriod)
	}
}

// TestAPF_5_Borrowing: an idle level lends its seats to a busy one, within
// both levels' bounds, and takes them back when its own demand returns.
func TestAPF_5_Borrowing(t *testing.T) {
	c, clk := newTestController(t, 60)
	busy, idle := c.levels["global-default"], c.levels["workload-low"]
	adjust := func() {
		clk.Step(borrowingAdjustmentPeriod)
		c.mu.Lock()
		c.updateBorrowingLocked()
		c.mu.Unlock()
	}
	check := func(when string) {
		sum := 0
		for _, l := range c.levels {
			if !l.exempt {
				sum += l.currentCL
			}
			if !l.exempt && (l.currentCL < l.minCL || l.currentCL > l.maxCL) {
				t.Errorf("%s: %s has %d seats, outside [%d, %d]", when, l.name, l.currentCL, l.minCL, l.maxCL)
			}
		}
		if sum != c.nominalSum-c.levels["exempt"].currentCL {
			t.Errorf("%s: %d seats allotted of %d", when, sum, c.nominalSum)
		}
	}
	t.Logf("nominal: global-default %d [%d, %d], workload-low %d [%d, %d]", busy.nominal, busy.minCL, busy.maxCL, idle.nominal, idle.minCL, idle.maxCL)
	// global-default wants 30 seats for a while; workload-low wants none.
	busy.metrics.demand.set(30)
	idle.metrics.demand.set(0)
	for i := 0; i < 3; i++ {
		adjust()
	}
	check("busy")
	if busy.currentCL <= busy.nominal || idle.currentCL != idle.minCL {
		t.Fatalf("borrowing: global-default %d seats (nominal %d), workload-low %d (lower bound %d)", busy.currentCL, busy.nominal, idle.currentCL, idle.minCL)
	}
	lent := busy.currentCL
	// workload-low's own demand returns: it takes its seats back.
	idle.metrics.demand.set(float64(idle.nominal))
	adjust()
	check("returned")
	if idle.currentCL < idle.nominal || busy.currentCL >= lent {
		t.Fatalf("taking back: workload-low %d seats (nominal %d), global-default %d (was %d)", idle.currentCL, idle.nominal, busy.currentCL, lent)
	}
}

// TestAPF_7_WorkEstimates: a list costs a seat per 100 objects (kube's formula
// per how the list is served), at most the level's share; a watch only when
// it asks for initial events; a write to what ten or more watches watch holds
// final seats afterwards.
func TestAPF_7_WorkEstimates(t *testing.T) {
	c, _ := newTestController(t, 600)
	c.cfg.ObjectCount = func(group, resource string) int64 { return 550 }
	l := c.levels["global-default"] // nominal 49: at most ceil(0.15×49)=8 seats
	fm := l.metrics.flow("global-default")
	estimate := func(method, path string) fairqueuing.WorkEstimate {
		r, err := web.NewRequest(context.Background(), method, "http://x"+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c.estimateWork(r, request.ParseRequestInfo(r), l, fm)
	}
	for _, cs := range []struct {
		path  string
		seats uint64
	}{
		{"/api/v1/configmaps", 6},                        // from the cache: 550 objects
		{"/api/v1/configmaps?limit=100&continue=abc", 2}, // from storage: 2×limit
		{"/api/v1/configmaps?labelSelector=a%3Db&limit=100&resourceVersionMatch=Exact&resourceVersion=5", 7}, // 550+100
		{"/api/v1/configmaps?resourceVersion=9&resourceVersionMatch=Exact", 8},                               // 2×550, capped at 8
		{"/api/v1/configmaps/one", 1},
		{"/api/v1/configmaps?watch=1", 1},
		{"/api/v1/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan", 6},
	} {
		if got := estimate("GET", cs.path); got.InitialSeats != cs.seats {
			t.Errorf("%s: %d seats, want %d", cs.path, got.InitialSeats, cs.seats)
		}
	}
	// Writes: nine watchers cost nothing extra; 25 cost 3 final seats for 5 ms.
	for i := 0; i < 25; i++ {
		u, _ := url.Parse("http://x/api/v1/namespaces/default/configmaps?watch=1")
		r := &web.Request{URL: u}
		if i < 9 {
			c.watches.register(&request.RequestInfo{Resource: "configmaps", Namespace: "default", Verb: "watch"}, r)
		}
		if i == 9 {
			if we := estimate("POST", "/api/v1/namespaces/default/configmaps"); we.FinalSeats != 0 {
				t.Errorf("9 watchers: %+v", we)
			}
		}
		if i >= 9 {
			c.watches.register(&request.RequestInfo{Resource: "configmaps", Verb: "watch"}, r)
		}
	}
	we := estimate("PUT", "/api/v1/namespaces/default/configmaps/x")
	if we.InitialSeats != 1 || we.FinalSeats != 3 || we.AdditionalLatency != 5*time.Millisecond {
		t.Errorf("25 watchers: %+v", we)
	}
}

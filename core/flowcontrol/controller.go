// Package flowcontrol owns API Priority and Fairness (APF): the filter in the
// handler chain that classifies every request by the FlowSchemas into a
// priority level and a flow, estimates its work in seats, and then dispatches,
// queues (fair queuing with shuffle sharding) or rejects it (429) by the level's
// configuration; the controller that keeps that configuration in step with the
// FlowSchema and PriorityLevelConfiguration objects (an API client of the core,
// like kube's config consumer) and maintains the mandatory and suggested
// objects (like kube's config producer); the periodic borrowing of seats
// between levels; and what makes it observable: the response headers, kube's
// metrics at /metrics, kube's debug dumps under
// /debug/api_priority_and_fairness/ and a JSON view for the playground at
// /debug/kubeplay/apf.
//
// The queueing math runs on an injected clock, so tests drive it exactly. It
// does not import the server: the filter reads core/request's RequestInfo and
// core/auth's user, and the controller reads and writes through a handler.
package flowcontrol

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"kubeplay/core/auth"
	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/flowcontrol/bootstrap"
	"kubeplay/core/object"
	"kubeplay/core/web"
)

// Config configures a Controller.
type Config struct {
	// ServerConcurrencyLimit is the seats shared by the non-exempt priority
	// levels: kube's --max-requests-inflight plus
	// --max-mutating-requests-inflight (kube's default 600; the sandbox's 60,
	// so that queues and borrowing show).
	ServerConcurrencyLimit int
	// RequestWaitLimit is how long a request may wait in its queue (default 15s:
	// a quarter of kube's one-minute request timeout).
	RequestWaitLimit time.Duration
	// ObjectCount is how many objects of a resource are stored, for the work
	// estimate of a list; nil counts none.
	ObjectCount func(apiGroup, resource string) int64
	// Clock is the queueing math's time; nil is the wall clock.
	Clock clock.Clock
}

// Annotations and headers of kubeplay's simulated work time.
const (
	// SimulatedWorkAnnotation on a PriorityLevelConfiguration makes every request
	// of the level hold its seats this long (a Go duration, at most
	// MaxSimulatedWork) before it is served.
	SimulatedWorkAnnotation = "kubeplay.dev/simulated-work"
	// SimulatedWorkHeader does the same for one request, overriding its level's.
	SimulatedWorkHeader = "X-Kubeplay-Simulated-Work"
	// MaxSimulatedWork caps a simulated work time.
	MaxSimulatedWork = 30 * time.Second
)

// fieldManagerProducer and fieldManagerConsumer are how kube's ensurer and
// configuration consumer name themselves in managedFields.
const (
	fieldManagerProducer = "api-priority-and-fairness-config-producer-v1"
	fieldManagerConsumer = "api-priority-and-fairness-config-consumer-v1"
)

const (
	flowSchemasPath    = "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas"
	priorityLevelsPath = "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations"
	// ensurePeriod is how often the mandatory and suggested objects are checked.
	ensurePeriod = time.Minute
	// statusRetry is how soon a status write that failed is tried again.
	statusRetry = 200 * time.Millisecond
	// maxSeatsPercent is the share of a level's nominal seats one request may
	// take (kube's priorityLevelMaxSeatsPercent).
	maxSeatsPercent = 0.15
)

// level is one priority level's configuration and state.
type level struct {
	name, uid string
	exempt    bool
	shares    int64
	lendable  int64  // percent
	borrowing *int64 // percent; nil: as much as the server has
	queuing   queuingConfig
	simulated time.Duration

	nominal, minCL, maxCL, currentCL int
	maxSeats                         uint64
	target                           float64
	stats                            seatDemandStats
	quiescing                        bool

	qs      *queueSet
	metrics *levelMetrics
	dropped *droppedRequests
}

// Controller is API Priority and Fairness: the filter and its configuration.
type Controller struct {
	cfg     Config
	clock   clock.Clock
	metrics *metricSet
	watches watchTracker
	kinds   *requestKinds

	mu          sync.RWMutex
	flowSchemas []*flowSchema // in matching order
	levels      map[string]*level
	nominalSum  int
	fairFrac    float64
	digestedRVs map[string]int64 // the resourceVersion of each object digested, by path
	digested    chan struct{}    // closed, and replaced, at every digest
	adjusted    time.Time        // when borrowing was last adjusted, by the period or by hand
	ready       chan struct{}    // closed once the bootstrap objects are all in effect

	handler web.Handler    // what Start runs through; the load is sent there too
	client  *client.Client // the controller's own, on handler

	cancel context.CancelFunc
	done   sync.WaitGroup
}

// New is API Priority and Fairness with the mandatory configuration, until
// Start reads the objects.
func New(cfg Config) *Controller {
	if cfg.ServerConcurrencyLimit <= 0 {
		cfg.ServerConcurrencyLimit = 600
	}
	if cfg.RequestWaitLimit <= 0 {
		cfg.RequestWaitLimit = 15 * time.Second
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real
	}
	c := &Controller{cfg: cfg, clock: cfg.Clock, metrics: newMetricSet(cfg.Clock), levels: map[string]*level{}, digested: make(chan struct{}), ready: make(chan struct{}),
		watches: watchTracker{counts: map[watchID]int{}}}
	c.kinds = newRequestKinds(c.clock, c.metrics)
	c.digest(nil, nil)
	return c
}

// loopbackUser is kube-apiserver's own identity for its loopback client.
var loopbackUser = auth.APIServer

// Start runs the configuration controller through h (the whole handler, so its
// requests are classified too: as system:masters, exempt) until Stop: it
// creates and maintains the mandatory and suggested objects, follows the
// FlowSchemas and PriorityLevelConfigurations, and adjusts borrowing.
func (c *Controller) Start(h web.Handler) {
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	c.mu.Lock()
	cl := client.New(h, loopbackUser, "kube-apiserver/v1.32.13 (kubeplay) apf")
	c.handler, c.client = h, cl
	c.mu.Unlock()
	wake := make(chan struct{}, 1)
	poke := func(object.Object) {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	handler := client.Handler{Add: poke, Update: func(_, o object.Object) { poke(o) }, Delete: poke}
	fsInf := client.NewInformer(cl, flowSchemasPath, handler, nil, c.clock)
	plInf := client.NewInformer(cl, priorityLevelsPath, handler, nil, c.clock)
	c.done.Add(3)
	go func() { defer c.done.Done(); fsInf.Run(ctx) }()
	go func() { defer c.done.Done(); plInf.Run(ctx) }()
	go func() {
		defer c.done.Done()
		for _, s := range []<-chan struct{}{fsInf.Synced(), plInf.Synced()} {
			select {
			case <-s:
			case <-ctx.Done():
				return
			}
		}
		c.run(ctx, cl, fsInf, plInf, wake)
	}()
}

// Stop ends what Start began.
func (c *Controller) Stop() {
	if c.cancel != nil {
		c.cancel()
		c.done.Wait()
	}
}

// run is the controller's one worker: it ensures the bootstrap objects at
// start and every minute, digests the configuration whenever an object
// changes (as kube's does, on its informers' events only: a digest adjusts
// borrowing too, and would otherwise cut a period short), and adjusts
// borrowing every period.
func (c *Controller) run(ctx context.Context, cl *client.Client, fsInf, plInf *client.Informer, wake chan struct{}) {
	ensure := c.clock.NewTicker(ensurePeriod)
	defer ensure.Stop()
	// Borrowing is adjusted a period after the last adjustment, so one made
	// by hand (POST /debug/kubeplay/apf/adjust) starts a whole period.
	c.mu.Lock()
	c.adjusted = c.clock.Now()
	c.mu.Unlock()
	borrow := c.clock.NewTimer(borrowingAdjustmentPeriod)
	defer func() { borrow.Stop() }()
	c.ensure(ctx, cl, fsInf, plInf)
	var due <-chan time.Time // after a status write that failed
	digest := true
	for {
		if digest {
			digest = false
			if !c.writeStatuses(ctx, cl, c.digest(plInf.List(), fsInf.List())) {
				due = c.clock.NewTimer(statusRetry).C()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-due:
			due, digest = nil, true
		case <-wake:
			digest = true
		case <-ensure.C():
			c.ensure(ctx, cl, fsInf, plInf)
			digest = c.quiescing() // a drained level is forgotten at a digest
		case <-borrow.C():
			borrow = c.clock.NewTimer(c.borrowingDue())
			digest = c.quiescing()
		}
	}
}

// quiescing says whether a deleted level is still kept to drain.
func (c *Controller) quiescing() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, l := range c.levels {
		if l.quiescing {
			return true
		}
	}
	return false
}

// parseLevel reads a stored PriorityLevelConfiguration; nil when its spec is
// broken in a way validation would not let through.
func parseLevel(obj object.Object) *level {
	spec, _ := obj["spec"].(map[string]any)
	l := &level{name: object.MetaString(obj, "name"), uid: object.MetaString(obj, "uid")}
	if d, err := time.ParseDuration(object.StringMap(object.Meta(obj), "annotations")[SimulatedWorkAnnotation]); err == nil && d > 0 {
		l.simulated = min(d, MaxSimulatedWork)
	}
	switch spec["type"] {
	case "Exempt":
		l.exempt = true
		l.queuing = queuingConfig{name: l.name, queues: -1}
		l.shares = object.Int(object.Path(spec, "exempt", "nominalConcurrencyShares"))
		l.lendable = object.Int(object.Path(spec, "exempt", "lendablePercent"))
	case "Limited":
		lim, _ := spec["limited"].(map[string]any)
		l.shares = object.Int(lim["nominalConcurrencyShares"])
		l.lendable = object.Int(lim["lendablePercent"])
		if v, ok := lim["borrowingLimitPercent"]; ok && v != nil {
			b := object.Int(v)
			l.borrowing = &b
		}
		l.queuing = queuingConfig{name: l.name}
		if q, ok := object.Path(lim, "limitResponse", "queuing").(map[string]any); ok && object.Path(lim, "limitResponse", "type") == "Queue" {
			l.queuing.queues = int(object.Int(q["queues"]))
			l.queuing.handSize = int(object.Int(q["handSize"]))
			l.queuing.queueLengthLimit = int(object.Int(q["queueLengthLimit"]))
			if _, err := newDealer(l.queuing.queues, l.queuing.handSize); err != nil {
				return nil
			}
		}
	default:
		return nil
	}
	if l.exempt != (l.name == bootstrap.Exempt) {
		return nil // kube copes with no level switching between exempt and not
	}
	return l
}

// statusUpdate is a FlowSchema whose Dangling condition must change.
type statusUpdate struct {
	obj       object.Object
	condition map[string]any
}

// digest replaces the configuration with the objects': the levels (keeping the
// queues of those that stay, draining those that go), the FlowSchemas whose
// level exists (plus the mandatory ones when missing), and each level's seats.
// It returns the FlowSchema statuses to write.
func (c *Controller) digest(plObjs, fsObjs []object.Object) []statusUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	levels := map[string]*level{}
	for _, o := range plObjs {
		if l := parseLevel(o); l != nil {
			levels[l.name] = c.adopt(l)
		}
	}
	var updates []statusUpdate
	var fss []*flowSchema
	for _, o := range fsObjs {
		fs := parseFlowSchema(o)
		_, found := levels[fs.level]
		if u := danglingUpdate(o, fs.level, !found, c.clock.Now()); u != nil {
			updates = append(updates, *u)
		}
		if found {
			fss = append(fss, fs)
		}
	}
	sortFlowSchemas(fss)
	if !slices.ContainsFunc(fss, func(fs *flowSchema) bool { return fs.name == bootstrap.Exempt }) {
		fss = append([]*flowSchema{mandatorySchema(bootstrap.Exempt)}, fss...)
	}
	if !slices.ContainsFunc(fss, func(fs *flowSchema) bool { return fs.name == bootstrap.CatchAll }) {
		fss = append(fss, mandatorySchema(bootstrap.CatchAll))
	}
	for name, old := range c.levels {
		if levels[name] != nil {
			continue
		}
		if name == bootstrap.Exempt || name == bootstrap.CatchAll || !old.qs.idle() {
			old.quiescing = name != bootstrap.Exempt && name != bootstrap.CatchAll
			levels[name] = old // kept to drain, or supplied as mandatory
			continue
		}
		c.forgetLevel(name)
	}
	for _, name := range []string{bootstrap.Exempt, bootstrap.CatchAll} {
		if levels[name] == nil {
			for _, o := range bootstrap.Mandatory(bootstrap.PriorityLevelConfiguration) {
				if object.MetaString(o, "name") == name {
					levels[name] = c.adopt(parseLevel(o))
				}
			}
		}
	}
	c.flowSchemas, c.levels = fss, levels
	c.finishLocked()
	c.digestedRVs = make(map[string]int64, len(plObjs)+len(fsObjs))
	for _, o := range plObjs {
		c.digestedRVs[priorityLevelsPath+"/"+object.MetaString(o, "name")] = object.Int(object.Meta(o)["resourceVersion"])
	}
	for _, o := range fsObjs {
		c.digestedRVs[flowSchemasPath+"/"+object.MetaString(o, "name")] = object.Int(object.Meta(o)["resourceVersion"])
	}
	close(c.digested)
	c.digested = make(chan struct{})
	if c.bootstrappedLocked(plObjs, fsObjs) {
		select {
		case <-c.ready:
		default:
			close(c.ready)
		}
	}
	return updates
}

// bootstrappedLocked says whether every mandatory and suggested object is
// among the objects digested: the configuration kube-apiserver is ready with.
func (c *Controller) bootstrappedLocked(plObjs, fsObjs []object.Object) bool {
	for kind, objs := range map[string][]object.Object{bootstrap.PriorityLevelConfiguration: plObjs, bootstrap.FlowSchema: fsObjs} {
		have := map[string]bool{}
		for _, o := range objs {
			have[object.MetaString(o, "name")] = true
		}
		for _, b := range append(bootstrap.Mandatory(kind), bootstrap.Suggested(kind)...) {
			if !have[object.MetaString(b, "name")] {
				return false
			}
		}
	}
	return true
}

// Ready is closed once the mandatory and suggested configuration objects exist
// and are in effect (kube-apiserver's readiness waits for the same, its
// priority-and-fairness-config-producer post-start hook).
func (c *Controller) Ready() <-chan struct{} { return c.ready }

// waitDigested waits, at most limit, until the configuration in effect
// includes every FlowSchema and PriorityLevelConfiguration as the API has them
// now, so every write acknowledged before the call. (The two kinds arrive on
// two watches: a FlowSchema can be seen before the level written just before
// it, so the newest resourceVersion seen says too little.)
func (c *Controller) waitDigested(ctx context.Context, limit time.Duration) {
	ctx, cancel := clock.WithTimeout(ctx, c.clock, limit)
	defer cancel()
	c.mu.RLock()
	cl := c.client
	c.mu.RUnlock()
	if cl == nil {
		return
	}
	want := map[string]int64{}
	for _, path := range []string{priorityLevelsPath, flowSchemasPath} {
		list, err := cl.Get(ctx, path)
		if err != nil {
			return
		}
		items, _ := list["items"].([]any)
		for _, it := range items {
			o, _ := it.(map[string]any)
			want[path+"/"+object.MetaString(o, "name")] = object.Int(object.Meta(o)["resourceVersion"])
		}
	}
	for {
		c.mu.RLock()
		next, done := c.digested, true
		for key, rv := range want {
			if c.digestedRVs[key] < rv {
				done = false
				break
			}
		}
		c.mu.RUnlock()
		if done {
			return
		}
		select {
		case <-next:
		case <-ctx.Done():
			return
		}
	}
}

// adopt gives l the queues and metrics of the level of its name, or new ones.
func (c *Controller) adopt(l *level) *level {
	if old := c.levels[l.name]; old != nil {
		l.qs, l.metrics, l.stats, l.currentCL, l.dropped = old.qs, old.metrics, old.stats, old.currentCL, old.dropped
		l.nominal, l.minCL, l.maxCL = old.nominal, old.minCL, old.maxCL
		return l
	}
	l.metrics = c.metrics.level(c.clock, l.name)
	l.qs = newQueueSet(c.clock, l.metrics)
	l.dropped = &droppedRequests{retryAfter: 1}
	l.currentCL = -1 // new: set from its nominal below
	return l
}

// forgetLevel drops the metrics of a level that is gone.
func (c *Controller) forgetLevel(name string) {
	for _, f := range c.metrics.reg.families {
		f.drop(plLabel, name)
	}
}

func mandatorySchema(name string) *flowSchema {
	for _, o := range bootstrap.Mandatory(bootstrap.FlowSchema) {
		if object.MetaString(o, "name") == name {
			return parseFlowSchema(o)
		}
	}
	panic("no mandatory FlowSchema " + name)
}

// finishLocked divides the server's seats among the levels by their shares
// and sets each level's bounds, then adjusts borrowing.
func (c *Controller) finishLocked() {
	var shareSum float64
	for _, l := range c.levels {
		shareSum += float64(l.shares)
	}
	c.nominalSum = 0
	maxWaiting := 0
	serverCL := c.cfg.ServerConcurrencyLimit
	for _, l := range c.levels {
		cl := 0
		if shareSum > 0 {
			cl = int(math.Ceil(float64(serverCL) * float64(l.shares) / shareSum))
		}
		lendable := int(math.Round(float64(cl) * float64(l.lendable) / 100))
		borrowing := serverCL
		if l.borrowing != nil {
			borrowing = int(math.Round(float64(cl) * float64(*l.borrowing) / 100))
		}
		l.nominal, l.minCL, l.maxCL = cl, cl-lendable, cl+borrowing
		m := c.metrics
		m.nominal.with(c.clock, l.name).set(float64(cl))
		m.lower.with(c.clock, l.name).set(float64(l.minCL))
		m.upper.with(c.clock, l.name).set(float64(l.maxCL))
		c.nominalSum += cl
		l.maxSeats = 0
		if l.queuing.queues > 0 {
			maxWaiting += l.queuing.queues * l.queuing.queueLengthLimit
			l.maxSeats = uint64(math.Max(1, math.Min(math.Ceil(float64(cl)*maxSeatsPercent), float64(cl/l.queuing.handSize))))
		}
		if l.currentCL < 0 {
			l.currentCL = cl - lendable/2
			l.stats = seatDemandStats{}
		}
	}
	c.kinds.setLimits(maxWaiting, c.nominalSum)
	c.updateBorrowingLocked()
}

// borrowingDue adjusts borrowing if a period has passed since the last
// adjustment, and says how long until the next one is due.
func (c *Controller) borrowingDue() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.clock.Now().Before(c.adjusted.Add(borrowingAdjustmentPeriod)) {
		c.adjustBorrowingLocked()
	}
	return c.adjusted.Add(borrowingAdjustmentPeriod).Sub(c.clock.Now())
}

// adjustBorrowingLocked is a period's adjustment: it updates borrowing and
// starts the next period.
func (c *Controller) adjustBorrowingLocked() {
	c.updateBorrowingLocked()
	c.adjusted = c.clock.Now()
}

// updateBorrowingLocked sets every level's current limit from its demand over
// the last period, as kube's updateBorrowingLocked does, and configures its
// queues with it.
func (c *Controller) updateBorrowingLocked() {
	names := make([]string, 0, len(c.levels))
	for n := range c.levels {
		names = append(names, n)
	}
	sort.Strings(names)
	var items []allocItem
	idx := map[string]int{}
	exemptCL := map[string]int{}
	var minCLSum, minCurrentSum int
	remaining := c.nominalSum
	for _, n := range names {
		l := c.levels[n]
		l.stats.update(l.metrics.demand.integrator.reset())
		if l.exempt {
			minCurrent := max(l.minCL, l.stats.highWatermark)
			exemptCL[n] = minCurrent
			remaining -= minCurrent
			continue
		}
		minCurrent := max(l.minCL, min(l.nominal, l.stats.highWatermark))
		idx[n] = len(items)
		items = append(items, allocItem{lower: float64(minCurrent), upper: float64(l.maxCL), target: math.Max(float64(minCurrent), l.stats.smoothed)})
		minCLSum += l.minCL
		minCurrentSum += minCurrent
	}
	var allocs []float64
	var shareFrac float64
	c.fairFrac = 0
	switch {
	case remaining <= minCLSum:
	case remaining <= minCurrentSum:
		shareFrac = float64(remaining-minCLSum) / float64(minCurrentSum-minCLSum)
	default:
		var err error
		if allocs, c.fairFrac, err = computeAllocation(c.nominalSum, items); err != nil {
			allocs = make([]float64, len(items))
			for n, i := range idx {
				allocs[i] = float64(c.levels[n].currentCL)
			}
			c.fairFrac = 0
		}
	}
	c.metrics.fairFrac.with(c.clock).set(c.fairFrac)
	for _, n := range names {
		l := c.levels[n]
		i, limited := idx[n]
		switch {
		case !limited:
			l.currentCL = exemptCL[n]
		case remaining <= minCLSum:
			l.currentCL = l.minCL
		case remaining <= minCurrentSum:
			minCurrent := max(l.minCL, min(l.nominal, l.stats.highWatermark))
			l.currentCL = l.minCL + int(math.Round(float64(minCurrent-l.minCL)*shareFrac))
		default:
			l.currentCL = int(math.Round(allocs[i]))
		}
		if limited {
			l.target = items[i].target
		} else if len(items) > 0 {
			l.target = items[0].target // kube reports the first item's target for the exempt level
		}
		m, clk := c.metrics, c.clock
		m.demandHigh.with(clk, n).set(float64(l.stats.highWatermark))
		m.demandAvg.with(clk, n).set(l.stats.avg)
		m.demandStdev.with(clk, n).set(l.stats.stdDev)
		m.demandSmoothed.with(clk, n).set(l.stats.smoothed)
		m.target.with(clk, n).set(l.target)
		m.current.with(clk, n).set(float64(l.currentCL))
		denom := l.currentCL
		if denom <= 0 {
			denom = int(math.Max(1, math.Round(float64(c.cfg.ServerConcurrencyLimit)/10)))
		}
		l.metrics.demandR.setDenominator(float64(denom))
		l.metrics.executingRatio.setDenominator(float64(denom))
		l.metrics.seatRatio.setDenominator(float64(denom))
		waitDenom := max(1, l.queuing.queueLengthLimit)
		if l.queuing.queues > 0 {
			waitDenom *= l.queuing.queues
		}
		l.metrics.waitingRatio.setDenominator(float64(waitDenom))
		_ = l.qs.configure(l.queuing, l.currentCL) // parseLevel checked the queuing
	}
}

// danglingUpdate is the Dangling condition fs must get, or nil when it has it.
func danglingUpdate(fs object.Object, plName string, dangling bool, now time.Time) *statusUpdate {
	want := map[string]any{"type": "Dangling", "status": "False", "reason": "Found",
		"message": fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q and it exists", plName)}
	if dangling {
		want["status"], want["reason"] = "True", "NotFound"
		want["message"] = fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q but there is no such object", plName)
	}
	conds, _ := object.Path(fs, "status", "conditions").([]any)
	for _, cd := range conds {
		m, _ := cd.(map[string]any)
		if m["type"] == "Dangling" && m["status"] == want["status"] && m["reason"] == want["reason"] && m["message"] == want["message"] {
			return nil
		}
	}
	want["lastTransitionTime"] = now.UTC().Format(time.RFC3339)
	return &statusUpdate{obj: fs, condition: want}
}

// writeStatuses applies the Dangling conditions to the status subresource,
// forcing, as kube's configuration controller does (server-side apply of a
// FlowSchema holding only the condition), and says whether all were written.
func (c *Controller) writeStatuses(ctx context.Context, cl *client.Client, updates []statusUpdate) bool {
	ok := true
	for _, u := range updates {
		name := object.MetaString(u.obj, "name")
		body, err := json.Marshal(map[string]any{
			"kind": "FlowSchema", "apiVersion": "flowcontrol.apiserver.k8s.io/v1", "metadata": map[string]any{"name": name},
			"status": map[string]any{"conditions": []any{u.condition}},
		})
		if err == nil {
			_, err = cl.Do(ctx, web.MethodPatch, flowSchemasPath+"/"+name+"/status?fieldManager="+fieldManagerConsumer+"&force=true",
				"application/apply-patch+yaml", body)
		}
		if err != nil && !client.IsNotFound(err) {
			ok = false
		}
	}
	return ok
}

// droppedRequests is kube's tracker of rejections per level, which sets the
// Retry-After of the next: it starts at 1 s, doubles (up to 32) when a second
// saw at least three times as many rejections as the current value, and
// shrinks by one when fewer came.
type droppedRequests struct {
	mu         sync.Mutex
	history    []droppedSecond
	current    droppedSecond
	retryAfter int64
	lastIncrAt int64
}

type droppedSecond struct{ unix, count int64 }

const maxRetryAfter = 32

func (d *droppedRequests) record(now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	unix := now.Unix()
	if d.current.unix == unix {
		d.current.count++
		return
	}
	d.history = append(d.history, d.current)
	keep := min(2*d.retryAfter, maxRetryAfter)
	for len(d.history) > 0 && unix-d.history[0].unix > keep {
		d.history = d.history[1:]
	}
	d.current = droppedSecond{unix, 1}
	var dropped int64
	for i := len(d.history) - 1; i >= 0 && unix-d.history[i].unix <= d.retryAfter; i-- {
		if d.history[i].unix < unix {
			dropped += d.history[i].count
		}
	}
	switch {
	case unix-d.lastIncrAt >= d.retryAfter && dropped >= 3*d.retryAfter:
		d.retryAfter = min(2*d.retryAfter, maxRetryAfter)
		d.lastIncrAt = unix
	case dropped < d.retryAfter && d.retryAfter > 1:
		d.retryAfter--
	}
}

func (d *droppedRequests) get() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return strconv.FormatInt(d.retryAfter, 10)
}

// ensure creates and maintains the bootstrap objects, as kube's
// priority-and-fairness-config-producer does: suggested objects are created
// when missing and their spec kept while kube-apiserver owns them (the
// apf.kubernetes.io/autoupdate-spec annotation, else metadata.generation 1);
// mandatory ones are always corrected; objects annotated as auto-updated that
// are no longer part of the configuration are deleted.
func (c *Controller) ensure(ctx context.Context, cl *client.Client, fsInf, plInf *client.Informer) {
	kinds := []struct {
		kind string
		path string
		inf  *client.Informer
	}{{bootstrap.PriorityLevelConfiguration, priorityLevelsPath, plInf}, {bootstrap.FlowSchema, flowSchemasPath, fsInf}}
	for _, mandatory := range []bool{false, true} {
		for _, k := range kinds {
			boots := bootstrap.Suggested(k.kind)
			if mandatory {
				boots = bootstrap.Mandatory(k.kind)
			}
			for _, b := range boots {
				ensureOne(ctx, cl, k.path, k.inf, b, mandatory)
			}
		}
	}
	for _, k := range kinds {
		wanted := map[string]bool{}
		for _, b := range append(bootstrap.Mandatory(k.kind), bootstrap.Suggested(k.kind)...) {
			wanted[object.MetaString(b, "name")] = true
		}
		for _, o := range k.inf.List() {
			name := object.MetaString(o, "name")
			v, ok := object.StringMap(object.Meta(o), "annotations")[bootstrap.AutoUpdateAnnotation]
			if auto, err := strconv.ParseBool(v); wanted[name] || !ok || err != nil || !auto {
				continue
			}
			_, _ = cl.Delete(ctx, k.path+"/"+name)
		}
	}
}

// ensureOne creates boot when missing, or revises the existing object's spec
// and annotation when kube-apiserver owns it.
func ensureOne(ctx context.Context, cl *client.Client, path string, inf *client.Informer, boot object.Object, mandatory bool) {
	name := object.MetaString(boot, "name")
	cur, ok := inf.Get(name)
	if !ok {
		if _, err := cl.Create(ctx, path+"?fieldManager="+fieldManagerProducer, boot); err == nil || !client.IsConflict(err) {
			return
		}
		if cur, ok = inf.Get(name); !ok {
			return // created meanwhile; seen on the next round
		}
	}
	annotations := object.StringMap(object.Meta(cur), "annotations")
	auto := mandatory
	if !auto {
		if b, err := strconv.ParseBool(annotations[bootstrap.AutoUpdateAnnotation]); err == nil {
			auto = b
		} else {
			auto = object.Int(object.Meta(cur)["generation"]) == 1
		}
	}
	current, err := strconv.ParseBool(annotations[bootstrap.AutoUpdateAnnotation])
	fixAnnotation := err != nil || current != auto
	fixSpec := auto && !object.Equal(boot["spec"], cur["spec"]) && !(name == bootstrap.Exempt && exemptSpecEqualish(boot, cur))
	if !fixAnnotation && !fixSpec {
		return
	}
	revised := object.DeepCopy(cur)
	if fixSpec {
		revised["spec"] = object.DeepCopy(boot)["spec"]
	}
	if fixAnnotation {
		meta := object.Meta(revised)
		anns, _ := meta["annotations"].(map[string]any)
		if anns == nil {
			anns = map[string]any{}
			meta["annotations"] = anns
		}
		anns[bootstrap.AutoUpdateAnnotation] = strconv.FormatBool(auto)
	}
	_, _ = cl.Update(ctx, path+"/"+name+"?fieldManager="+fieldManagerProducer, revised)
}

// exemptSpecEqualish: the exempt level's spec.exempt is the administrator's to
// set; only the rest must match.
func exemptSpecEqualish(boot, cur object.Object) bool {
	b, _ := object.DeepCopy(boot)["spec"].(map[string]any)
	c, _ := cur["spec"].(map[string]any)
	if c == nil || c["exempt"] == nil {
		return false
	}
	b["exempt"] = c["exempt"]
	return object.Equal(b, c)
}

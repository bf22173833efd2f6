// Package flowcontrol owns API Priority and Fairness (APF): the filter in the
// handler chain that classifies every request by the FlowSchemas into a
// priority level and a flow, estimates its work in seats, and then dispatches,
// queues (each level's fairqueuing.QueueSet: fair queuing with shuffle
// sharding) or rejects it (429) by the level's configuration; the controller
// that keeps that configuration in step with the FlowSchema and
// PriorityLevelConfiguration objects (an API client of the core, like kube's
// config consumer: config.go, status.go) and maintains the mandatory and
// suggested objects (like kube's config producer: ensure.go); each level's
// seats and their periodic borrowing (limits.go, borrowing.go); and what makes
// it observable: the response headers, kube's metrics at /metrics, kube's
// debug dumps under /debug/api_priority_and_fairness/ and a JSON view for the
// playground at /debug/kubeplay/apf (debug.go, load.go).
//
// The queueing math runs on an injected clock, so tests drive it exactly. It
// does not import the server: the filter reads core/request's RequestInfo and
// core/auth's user, and the controller reads and writes through a handler.
package flowcontrol

import (
	"context"
	"sync"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/object"
	"kubeplay/core/user"
	"kubeplay/core/version"
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

const (
	flowSchemasPath    = "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas"
	priorityLevelsPath = "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations"
	// ensurePeriod is how often the mandatory and suggested objects are checked.
	ensurePeriod = time.Minute
	// statusRetry is how soon a status write that failed is tried again.
	statusRetry = 200 * time.Millisecond
)

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
	produced    chan struct{}    // closed once Start's first ensuring is in effect
	produceOnce sync.Once

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
	c := &Controller{cfg: cfg, clock: cfg.Clock, metrics: newMetricSet(cfg.Clock), levels: map[string]*level{}, digested: make(chan struct{}), ready: make(chan struct{}), produced: make(chan struct{}),
		watches: watchTracker{counts: map[watchID]int{}}}
	c.kinds = newRequestKinds(c.clock, c.metrics)
	c.digest(nil, nil)
	return c
}

// loopbackUser is kube-apiserver's own identity for its loopback client.
var loopbackUser = user.APIServer

// Start runs the configuration controller through h (the whole handler, so its
// requests are classified too: as system:masters, exempt) until Stop: it
// creates and maintains the mandatory and suggested objects, follows the
// FlowSchemas and PriorityLevelConfigurations, and adjusts borrowing.
func (c *Controller) Start(h web.Handler) {
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	c.mu.Lock()
	cl := client.New(h, loopbackUser, "kube-apiserver/"+version.Kubernetes+" (kubeplay) apf")
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

// Prime puts in effect the configuration a sandbox already stores (the
// PriorityLevelConfigurations and FlowSchemas read from its store as it
// opens), before Start's informers have listed anything: a sandbox started
// again classifies its first request as it did before, without waiting
// for its own controller's lists, and is Ready at once when the stored
// configuration is complete. The controller's first digest, once its
// informers synced, takes over (and writes what statuses the configuration
// needs).
func (c *Controller) Prime(priorityLevels, flowSchemas []object.Object) {
	c.digest(priorityLevels, flowSchemas)
}

// Produced is closed once Start's controller has written the bootstrap
// configuration and put what the API holds in effect (or gave up waiting,
// after producedLimit): kube-apiserver's priority-and-fairness-config-producer
// post-start hook. Before, a configuration Prime put in effect may lack the
// objects' uids.
func (c *Controller) Produced() <-chan struct{} { return c.produced }

// producedLimit bounds the wait for the first ensuring to be in effect.
const producedLimit = 10 * time.Second

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
	go func() {
		c.waitDigested(ctx, producedLimit)
		c.produceOnce.Do(func() { close(c.produced) })
	}()
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

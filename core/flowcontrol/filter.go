package flowcontrol

import (
	"context"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/flowcontrol/fairqueuing"
	"kubeplay/core/request"
	"kubeplay/core/requestlog"
	"kubeplay/core/user"
	"kubeplay/core/web"
)

// The response headers that name the matched FlowSchema and priority level by
// uid (not by name, which would tell a rejected client too much).
const (
	HeaderFlowSchemaUID    = "X-Kubernetes-PF-FlowSchema-UID"
	HeaderPriorityLevelUID = "X-Kubernetes-PF-PriorityLevel-UID"
)

// longRunningSubresources are kube's long-running requests besides watches
// (BasicLongRunningRequestCheck): not limited by APF at all.
var longRunningSubresources = map[string]bool{"attach": true, "exec": true, "proxy": true, "log": true, "portforward": true}

// classification is where a request goes.
type classification struct {
	fs            *flowSchema
	level         *level
	distinguisher string
	hash          uint64
}

// classify finds the request's FlowSchema, level and flow. The mandatory
// catch-all schema is always there, so everything is classified.
func (c *Controller) classifyLocked(u user.User, info *request.RequestInfo) classification {
	var fs *flowSchema
	for _, s := range c.flowSchemas {
		if s.matches(u, info) {
			fs = s
			break
		}
	}
	if fs == nil {
		fs = c.flowSchemas[len(c.flowSchemas)-1] // catch-all, last by precedence
	}
	cl := classification{fs: fs, level: c.levels[fs.level]}
	if !cl.level.exempt && cl.level.queuing.Queues > 1 {
		cl.distinguisher = fs.flowDistinguisher(u, info)
		cl.hash = fairqueuing.HashFlowID(fs.name, cl.distinguisher)
	}
	return cl
}

// Filter is API Priority and Fairness in the handler chain, after
// authentication: every request but the long-running ones (watches aside) is
// classified, then executed at once (exempt), queued until its turn, or
// rejected with 429 and Retry-After, as kube's WithPriorityAndFairness. The
// filter also serves /metrics, kube's debug dumps and the playground's view
// (after classification, as kube's mux serves them).
func (c *Controller) Filter(next web.Handler) web.Handler {
	return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		info := request.RequestInfoFrom(r.Context())
		u, _ := user.From(r.Context())
		if info == nil {
			info = request.ParseRequestInfo(r)
		}
		watch := info.Verb == "watch"
		if !watch && (info.Verb == "proxy" || longRunningSubresources[info.Subresource]) {
			next.ServeHTTP(w, r)
			return
		}
		switch r.URL.Path {
		case "/debug/kubeplay/apf/load":
			c.serveLoad(w, r)
			return
		case "/debug/kubeplay/apf/adjust":
			c.serveAdjust(w, r)
			return
		}
		serve := next
		if h := c.ownHandler(r.URL.Path); h != nil {
			serve = h
		}
		c.mu.RLock()
		cl := c.classifyLocked(u, info)
		c.mu.RUnlock()
		c.handle(w, r, info, u, cl, watch, serve)
	})
}

// requestDetail is what the dumps and the panel show of a request, and who
// hears of its queuing: the counts of requests waiting by kind.
type requestDetail struct {
	user, verb, path, namespace, name, apiGroup, apiVersion, resource, subresource string
	kinds                                                                          *requestKinds
	kind                                                                           int
}

// Queued counts the request in (or out of) those waiting of its kind.
func (d *requestDetail) Queued(in bool, now time.Time) {
	if in {
		d.kinds.waitingDelta(now, d.kind, 1)
	} else {
		d.kinds.waitingDelta(now, d.kind, -1)
	}
}

// handle runs one classified request through its level.
func (c *Controller) handle(w web.ResponseWriter, r *web.Request, info *request.RequestInfo, u user.User, cl classification, watch bool, next web.Handler) {
	l := cl.level
	if e := requestlog.From(r.Context()); e != nil {
		e.PriorityLevel, e.FlowSchema = l.name, cl.fs.name
	}
	fm := l.metrics.flow(cl.fs.name)
	we := fairqueuing.WorkEstimate{InitialSeats: 1}
	if !l.exempt {
		we = c.estimateWork(r, info, l, fm)
		fm.workEstimated.observe(float64(we.MaxSeats()))
	}
	setHeaders := func() { // canonical keys: no canonicalizing per request
		h := w.Header()
		h["X-Kubernetes-Pf-Flowschema-Uid"] = []string{cl.fs.uid}
		h["X-Kubernetes-Pf-Prioritylevel-Uid"] = []string{l.uid}
	}
	limit := c.waitLimit(r.Context())
	arrived := c.clock.Now()
	kind := kindOf(info.Verb)
	detail := &requestDetail{user: u.Name, verb: info.Verb, path: info.Path, namespace: info.Namespace, name: info.Name,
		apiGroup: info.APIGroup, apiVersion: info.APIVersion, resource: info.Resource, subresource: info.Subresource, kinds: c.kinds, kind: kind}
	req, _ := l.qs.StartRequest(r.Context(), we, cl.hash, cl.fs.name, cl.distinguisher, detail)
	if req == nil {
		if !l.exempt {
			fm.waited(false, c.clock.Now().Sub(arrived))
		}
		c.reject(w, l, setHeaders)
		return
	}
	simulated := l.simulated
	if d, err := time.ParseDuration(r.Header.Get(SimulatedWorkHeader)); err == nil && d >= 0 {
		simulated = min(d, MaxSimulatedWork)
	}
	exec := func(serve func()) func() {
		return func() {
			start := c.clock.Now()
			if !l.exempt {
				fm.waited(true, start.Sub(arrived))
			}
			fm.dispatched.inc()
			c.kinds.executingDelta(start, kind, 1)
			defer func() {
				end := c.clock.Now()
				c.kinds.executingDelta(end, kind, -1)
				fm.executed(watch, end.Sub(start))
			}()
			setHeaders()
			if simulated > 0 && !l.exempt {
				c.simulateWork(r.Context(), simulated)
			}
			serve()
		}
	}
	if !watch {
		if !req.Finish(limit, exec(func() { next.ServeHTTP(w, r) })) {
			if !l.exempt {
				fm.waited(false, c.clock.Now().Sub(arrived))
			}
			c.reject(w, l, setHeaders)
		}
		return
	}
	// A watch holds its seats only until its initial events are sent: the
	// request finishes, for APF, when the handler says so (or returns).
	start, initialized := make(chan struct{}), make(chan struct{})
	var once sync.Once
	signal := func() { once.Do(func() { close(initialized) }) }
	served := make(chan bool, 1)
	var forget func() // set before start closes
	go func() {
		served <- req.Finish(limit, exec(func() {
			forget = c.watches.register(info, r)
			close(start)
			<-initialized
		}))
	}()
	select {
	case <-start:
		defer func() {
			signal()
			<-served
			forget()
		}()
		next.ServeHTTP(w, r.WithContext(request.WithWatchInitialization(r.Context(), signal)))
	case ok := <-served:
		if !ok {
			if !l.exempt {
				fm.waited(false, c.clock.Now().Sub(arrived))
			}
			c.reject(w, l, setHeaders)
		}
	}
}

// simulateWork holds the request's seats for d (on the controller's clock), or
// until its client leaves.
func (c *Controller) simulateWork(ctx context.Context, d time.Duration) {
	t := c.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
	case <-ctx.Done():
	}
}

// reject is kube's 429: plain text, with the level's Retry-After.
func (c *Controller) reject(w web.ResponseWriter, l *level, setHeaders func()) {
	setHeaders()
	l.dropped.record(c.clock.Now())
	h := w.Header()
	h.Set("Retry-After", l.dropped.get())
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(web.StatusTooManyRequests)
	_, _ = io.WriteString(w, "Too many requests, please try again later.\n")
}

// waitLimit is how long a request may wait in its queue: a quarter of its
// deadline, else the wait limit, and at most a minute.
func (c *Controller) waitLimit(ctx context.Context) time.Duration {
	limit := c.cfg.RequestWaitLimit
	if deadline, ok := ctx.Deadline(); ok {
		limit = deadline.Sub(c.clock.Now()) / 4
	}
	return min(limit, time.Minute)
}

// Work estimation, as kube's request/width.go: a list costs one seat per 100
// objects it will go through, at most the level's share (and 10); a watch
// costs as a list only while it sends initial events it asked for
// (sendInitialEvents); a write costs a seat, plus, when ten or more watches may
// be told of it, final seats held 5 ms each per ten watches afterwards.
const (
	objectsPerSeat          = 100.0
	watchesPerSeat          = 10.0
	maximumSeatsLimit       = 10
	eventAdditionalDuration = 5 * time.Millisecond
)

func (c *Controller) estimateWork(r *web.Request, info *request.RequestInfo, l *level, fm *flowMetrics) fairqueuing.WorkEstimate {
	maxSeats := l.maxSeats
	if maxSeats == 0 || maxSeats > maximumSeatsLimit {
		maxSeats = maximumSeatsLimit
	}
	switch info.Verb {
	case "list", "watch":
		return fairqueuing.WorkEstimate{InitialSeats: c.listSeats(r, info, maxSeats)}
	case "create", "update", "patch", "delete":
		if info.Resource == "serviceaccounts" && info.Subresource == "token" {
			return fairqueuing.WorkEstimate{InitialSeats: 1}
		}
		n := c.watches.interested(info)
		fm.lm.set.watchCount.with(c.clock, l.name, fm.fs).observe(float64(n))
		if n < watchesPerSeat {
			return fairqueuing.WorkEstimate{InitialSeats: 1}
		}
		final := uint64(math.Ceil(float64(n) / watchesPerSeat))
		work := fairqueuing.SeatsTimesDuration(float64(final), eventAdditionalDuration)
		final = min(final, maxSeats)
		return fairqueuing.WorkEstimate{InitialSeats: 1, FinalSeats: final, AdditionalLatency: work.DurationPerSeat(float64(final))}
	}
	return fairqueuing.WorkEstimate{InitialSeats: 1}
}

func (c *Controller) listSeats(r *web.Request, info *request.RequestInfo, maxSeats uint64) uint64 {
	if info.Name != "" {
		return 1
	}
	q := r.URL.Query()
	if info.Verb == "watch" {
		if b, _ := strconv.ParseBool(q.Get("sendInitialEvents")); !b {
			return 1
		}
	}
	stored := int64(0)
	if c.cfg.ObjectCount != nil {
		stored = c.cfg.ObjectCount(info.APIGroup, info.Resource)
	}
	limit := stored
	if l, err := strconv.ParseInt(q.Get("limit"), 10, 64); err == nil && l > 0 && l < stored {
		limit = l
	}
	rv, match := q.Get("resourceVersion"), q.Get("resourceVersionMatch")
	fromStorage := q.Get("continue") != "" || match != "" && match != "NotOlderThan" ||
		q.Get("limit") != "" && q.Get("limit") != "0" && match == "" && rv != "" && rv != "0"
	var objects int64
	switch {
	case info.Verb == "watch" || !fromStorage:
		objects = stored
	case q.Get("fieldSelector") != "" || q.Get("labelSelector") != "":
		objects = stored + limit
	default:
		objects = 2 * limit
	}
	seats := uint64(math.Ceil(float64(objects) / objectsPerSeat))
	return max(1, min(seats, maxSeats))
}

// watchTracker counts the open watches by what they watch, so a write knows how
// many may hear of it (kube's watch_tracker: a pods watch that selects one node
// is not counted).
type watchTracker struct {
	mu     sync.Mutex
	counts map[watchID]int
}

type watchID struct{ group, resource, namespace, name string }

func (t *watchTracker) register(info *request.RequestInfo, r *web.Request) func() {
	if info.Resource == "pods" {
		for _, term := range strings.Split(r.URL.Query().Get("fieldSelector"), ",") {
			if v, ok := strings.CutPrefix(term, "spec.nodeName="); ok && v != "" {
				return func() {}
			}
		}
	}
	id := watchID{info.APIGroup, info.Resource, info.Namespace, info.Name}
	t.mu.Lock()
	t.counts[id]++
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.counts[id]--; t.counts[id] <= 0 {
			delete(t.counts, id)
		}
	}
}

// interested is how many watches may hear of a write to info's object: those
// of its resource everywhere, in its namespace, and of its name.
func (t *watchTracker) interested(info *request.RequestInfo) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	id := watchID{group: info.APIGroup, resource: info.Resource}
	n := t.counts[id]
	if info.Namespace != "" {
		id.namespace = info.Namespace
		n += t.counts[id]
	}
	if info.Name != "" {
		id.name = info.Name
		n += t.counts[id]
	}
	return n
}

// ownHandler is the handler of the paths the filter serves, or nil.
func (c *Controller) ownHandler(path string) web.Handler {
	switch path {
	case "/metrics":
		return web.HandlerFunc(c.serveMetrics)
	case "/debug/api_priority_and_fairness/dump_priority_levels":
		return web.HandlerFunc(c.dumpPriorityLevels)
	case "/debug/api_priority_and_fairness/dump_queues":
		return web.HandlerFunc(c.dumpQueues)
	case "/debug/api_priority_and_fairness/dump_requests":
		return web.HandlerFunc(c.dumpRequests)
	case "/debug/kubeplay/apf":
		return web.HandlerFunc(c.serveState)
	}
	return nil
}

func (c *Controller) serveMetrics(w web.ResponseWriter, r *web.Request) {
	if r.Method != web.MethodGet && r.Method != web.MethodHead {
		apierrors.Write(w, apierrors.NewMethodNotAllowed())
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.WriteHeader(web.StatusOK)
	_ = c.metrics.reg.write(w)
}

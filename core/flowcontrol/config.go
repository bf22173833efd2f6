package flowcontrol

import (
	"context"
	"slices"
	"time"

	"kubeplay/core/clock"
	"kubeplay/core/flowcontrol/bootstrap"
	"kubeplay/core/flowcontrol/fairqueuing"
	"kubeplay/core/object"
)

// The configuration in effect: each priority level and FlowSchema as read
// from the API objects (digest), kept when an object changes so that a level's
// queues and metrics outlive it, with the mandatory objects supplied while
// they are missing; and when a write to them has taken effect.

// level is one priority level's configuration and state.
type level struct {
	name, uid string
	exempt    bool
	shares    int64
	lendable  int64  // percent
	borrowing *int64 // percent; nil: as much as the server has
	queuing   fairqueuing.QueuingConfig
	simulated time.Duration

	nominal, minCL, maxCL, currentCL int
	maxSeats                         uint64
	target                           float64
	stats                            seatDemandStats
	quiescing                        bool

	qs      *fairqueuing.QueueSet
	metrics *levelMetrics
	dropped *droppedRequests
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
		l.queuing = fairqueuing.QueuingConfig{Name: l.name, Queues: -1}
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
		l.queuing = fairqueuing.QueuingConfig{Name: l.name}
		if q, ok := object.Path(lim, "limitResponse", "queuing").(map[string]any); ok && object.Path(lim, "limitResponse", "type") == "Queue" {
			l.queuing.Queues = int(object.Int(q["queues"]))
			l.queuing.HandSize = int(object.Int(q["handSize"]))
			l.queuing.QueueLengthLimit = int(object.Int(q["queueLengthLimit"]))
			if _, err := fairqueuing.NewDealer(l.queuing.Queues, l.queuing.HandSize); err != nil {
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
		if name == bootstrap.Exempt || name == bootstrap.CatchAll || !old.qs.Idle() {
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
	l.qs = fairqueuing.NewQueueSet(c.clock, l.metrics)
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

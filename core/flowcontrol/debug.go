package flowcontrol

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/web"
)

// kube's debug dumps (/debug/api_priority_and_fairness/dump_*): comma-and-tab
// separated columns aligned by a tabwriter, a row per level, per queue, per
// request; and the playground's JSON view of the same state.

func (c *Controller) sortedLevelsLocked() []*level {
	out := make([]*level, 0, len(c.levels))
	for _, l := range c.levels {
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b *level) int { return strings.Compare(a.name, b.name) })
	return out
}

func writeTable(w web.ResponseWriter, rows [][]string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(web.StatusOK)
	tw := tabwriter.NewWriter(w, 8, 0, 1, ' ', 0)
	for _, r := range rows {
		_, _ = io.WriteString(tw, strings.Join(r, ",\t")+"\n")
	}
	_ = tw.Flush()
}

func (c *Controller) dumpPriorityLevels(w web.ResponseWriter, _ *web.Request) {
	rows := [][]string{{"PriorityLevelName", "ActiveQueues", "IsIdle", "IsQuiescing", "WaitingRequests", "ExecutingRequests",
		"DispatchedRequests", "RejectedRequests", "TimedoutRequests", "CancelledRequests"}}
	c.mu.RLock()
	for _, l := range c.sortedLevelsLocked() {
		qs := l.qs
		qs.mu.Lock()
		active := 0
		for _, q := range qs.queues {
			if q.waiting.Len() > 0 {
				active++
			}
		}
		rows = append(rows, []string{l.name, strconv.Itoa(active), strconv.FormatBool(qs.totRequestsWaiting == 0 && qs.totRequestsExecuting == 0),
			strconv.FormatBool(l.quiescing), strconv.Itoa(qs.totRequestsWaiting), strconv.Itoa(qs.totRequestsExecuting),
			strconv.Itoa(qs.dispatched), strconv.Itoa(qs.rejected), strconv.Itoa(qs.timedOut), strconv.Itoa(qs.cancelled)})
		qs.mu.Unlock()
	}
	c.mu.RUnlock()
	writeTable(w, rows)
}

func (c *Controller) dumpQueues(w web.ResponseWriter, _ *web.Request) {
	rows := [][]string{{"PriorityLevelName", "Index", "PendingRequests", "ExecutingRequests", "SeatsInUse", "NextDispatchR",
		"InitialSeatsSum", "MaxSeatsSum", "TotalWorkSum"}}
	c.mu.RLock()
	for _, l := range c.sortedLevelsLocked() {
		l.qs.mu.Lock()
		for i, q := range l.qs.queues {
			rows = append(rows, []string{l.name, strconv.Itoa(i), strconv.Itoa(q.waiting.Len()), strconv.Itoa(len(q.executing)),
				strconv.Itoa(q.seatsInUse), q.nextDispatchR.String(), strconv.Itoa(q.waitingSum.initialSeats),
				strconv.Itoa(q.waitingSum.maxSeats), q.waitingSum.totalWork.String()})
		}
		l.qs.mu.Unlock()
	}
	c.mu.RUnlock()
	writeTable(w, rows)
}

func (c *Controller) dumpRequests(w web.ResponseWriter, r *web.Request) {
	details := r.URL.Query().Get("includeRequestDetails") != ""
	head := []string{"PriorityLevelName", "FlowSchemaName", "QueueIndex", "RequestIndexInQueue", "FlowDistingsher", "ArriveTime",
		"InitialSeats", "FinalSeats", "AdditionalLatency", "StartTime"}
	if details {
		head = append(head, "UserName", "Verb", "APIPath", "Namespace", "Name", "APIVersion", "Resource", "SubResource")
	}
	rows := [][]string{head}
	row := func(pl string, iq, ir int, q *qsRequest) {
		cols := []string{pl, q.fsName, strconv.Itoa(iq), strconv.Itoa(ir), q.flowDistinguisher,
			q.arrival.UTC().Format(time.RFC3339Nano), strconv.FormatUint(q.work.InitialSeats, 10),
			strconv.FormatUint(q.work.FinalSeats, 10), q.work.AdditionalLatency.String(), q.start.UTC().Format(time.RFC3339Nano)}
		if details {
			d := q.detail
			gv := d.apiVersion
			if d.apiGroup != "" {
				gv = d.apiGroup + "/" + d.apiVersion
			}
			cols = append(cols, d.user, d.verb, d.path, d.namespace, d.name, gv, d.resource, d.subresource)
		}
		rows = append(rows, cols)
	}
	c.mu.RLock()
	for _, l := range c.sortedLevelsLocked() {
		l.qs.mu.Lock()
		for iq, q := range l.qs.queues {
			i := 0
			for e := q.waiting.Front(); e != nil; e = e.Next() {
				row(l.name, iq, i, e.Value.(*qsRequest))
				i++
			}
			for _, x := range sortedRequests(q.executing) {
				row(l.name, iq, -1, x)
			}
		}
		for _, x := range sortedRequests(l.qs.queueless) {
			row(l.name, -1, -1, x)
		}
		l.qs.mu.Unlock()
	}
	c.mu.RUnlock()
	writeTable(w, rows)
}

func sortedRequests(set map[*qsRequest]struct{}) []*qsRequest {
	out := make([]*qsRequest, 0, len(set))
	for r := range set {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *qsRequest) int { return a.arrival.Compare(b.arrival) })
	return out
}

// State is the JSON view of API Priority and Fairness that the playground's
// panel draws (GET /debug/kubeplay/apf).
type State struct {
	Time                   time.Time         `json:"time"`
	ServerConcurrencyLimit int               `json:"serverConcurrencyLimit"`
	FairFraction           float64           `json:"fairFraction"`
	Levels                 []LevelState      `json:"levels"`
	FlowSchemas            []FlowSchemaState `json:"flowSchemas"`
	// Hand is the queues of the flow the query asked about
	// (?flowSchema=NAME&distinguisher=D), when its level queues.
	Hand *HandState `json:"hand,omitempty"`
}

// LevelState is one priority level.
type LevelState struct {
	Name         string  `json:"name"`
	UID          string  `json:"uid"`
	Type         string  `json:"type"` // Exempt, Reject or Queue
	Quiescing    bool    `json:"quiescing,omitempty"`
	NominalSeats int     `json:"nominalSeats"`
	LowerSeats   int     `json:"lowerSeats"`
	UpperSeats   int     `json:"upperSeats"`
	CurrentSeats int     `json:"currentSeats"`
	TargetSeats  float64 `json:"targetSeats"`
	// Borrowing and Lending: current seats above, or below, the nominal ones.
	Borrowing        bool         `json:"borrowing"`
	Lending          bool         `json:"lending"`
	SeatsInUse       int          `json:"seatsInUse"`
	SeatsWaiting     int          `json:"seatsWaiting"`
	Executing        int          `json:"executing"`
	Waiting          int          `json:"waiting"`
	Dispatched       int          `json:"dispatched"`
	Rejected         int          `json:"rejected"`
	TimedOut         int          `json:"timedOut"`
	Cancelled        int          `json:"cancelled"`
	Queues           int          `json:"queues"`
	HandSize         int          `json:"handSize,omitempty"`
	QueueLengthLimit int          `json:"queueLengthLimit,omitempty"`
	VirtualTime      float64      `json:"virtualTime"` // R, in seat-seconds
	SimulatedWork    string       `json:"simulatedWork,omitempty"`
	Demand           DemandState  `json:"demand"`
	ActiveQueues     []QueueState `json:"activeQueues"`
	Flows            []FlowState  `json:"flows"`
}

// DemandState is a level's seat demand over the last borrowing period.
type DemandState struct {
	Average       float64 `json:"average"`
	StdDev        float64 `json:"stdDev"`
	HighWatermark int     `json:"highWatermark"`
	Smoothed      float64 `json:"smoothed"`
}

// QueueState is a queue with requests waiting or executing.
type QueueState struct {
	Index         int     `json:"index"`
	Waiting       int     `json:"waiting"`
	Executing     int     `json:"executing"`
	SeatsInUse    int     `json:"seatsInUse"`
	NextDispatchR float64 `json:"nextDispatchR"`
}

// FlowState is a flow with requests waiting or executing.
type FlowState struct {
	FlowSchema    string  `json:"flowSchema"`
	Distinguisher string  `json:"distinguisher"`
	Waiting       int     `json:"waiting"`
	Executing     int     `json:"executing"`
	Seats         int     `json:"seats"`
	OldestWait    float64 `json:"oldestWaitSeconds"`
	Hand          []int   `json:"hand,omitempty"`
}

// FlowSchemaState is a FlowSchema in matching order.
type FlowSchemaState struct {
	Name          string `json:"name"`
	UID           string `json:"uid"`
	Precedence    int64  `json:"matchingPrecedence"`
	Level         string `json:"priorityLevel"`
	Distinguisher string `json:"distinguisherMethod,omitempty"`
}

// HandState is one flow's hand of queues.
type HandState struct {
	FlowSchema    string `json:"flowSchema"`
	Distinguisher string `json:"distinguisher"`
	Level         string `json:"priorityLevel"`
	Hash          string `json:"hash"`
	Queues        []int  `json:"queues"`
}

// Snapshot is the current state.
func (c *Controller) Snapshot(handFS, handDistinguisher string) State {
	c.mu.RLock()
	defer c.mu.RUnlock()
	now := c.clock.Now()
	st := State{Time: now.UTC(), ServerConcurrencyLimit: c.cfg.ServerConcurrencyLimit, FairFraction: c.fairFrac}
	for _, fs := range c.flowSchemas {
		st.FlowSchemas = append(st.FlowSchemas, FlowSchemaState{Name: fs.name, UID: fs.uid, Precedence: fs.precedence, Level: fs.level, Distinguisher: fs.distinguisher})
		if fs.name == handFS {
			if l := c.levels[fs.level]; l != nil && l.queuing.queues > 0 {
				h := hashFlowID(fs.name, handDistinguisher)
				d, _ := newDealer(l.queuing.queues, l.queuing.handSize)
				st.Hand = &HandState{FlowSchema: fs.name, Distinguisher: handDistinguisher, Level: l.name,
					Hash: fmt.Sprintf("%016x", h), Queues: d.dealIntoHand(h, nil)}
			}
		}
	}
	for _, l := range c.sortedLevelsLocked() {
		st.Levels = append(st.Levels, l.state(now))
	}
	return st
}

func (l *level) state(now time.Time) LevelState {
	ls := LevelState{Name: l.name, UID: l.uid, Quiescing: l.quiescing, NominalSeats: l.nominal, LowerSeats: l.minCL,
		UpperSeats: l.maxCL, CurrentSeats: l.currentCL, TargetSeats: l.target,
		Borrowing: l.currentCL > l.nominal, Lending: l.currentCL < l.nominal,
		Demand: DemandState{Average: l.stats.avg, StdDev: l.stats.stdDev, HighWatermark: l.stats.highWatermark, Smoothed: l.stats.smoothed}}
	switch {
	case l.exempt:
		ls.Type = "Exempt"
	case l.queuing.queues == 0:
		ls.Type = "Reject"
	default:
		ls.Type, ls.HandSize, ls.QueueLengthLimit = "Queue", l.queuing.handSize, l.queuing.queueLengthLimit
	}
	if l.simulated > 0 {
		ls.SimulatedWork = l.simulated.String()
	}
	qs := l.qs
	qs.mu.Lock()
	defer qs.mu.Unlock()
	ls.SeatsInUse, ls.SeatsWaiting = qs.totSeatsInUse, qs.totSeatsWaiting
	ls.Executing, ls.Waiting = qs.totRequestsExecuting, qs.totRequestsWaiting
	ls.Dispatched, ls.Rejected, ls.TimedOut, ls.Cancelled = qs.dispatched, qs.rejected, qs.timedOut, qs.cancelled
	ls.Queues, ls.VirtualTime = len(qs.queues), qs.currentR.float()
	ls.ActiveQueues, ls.Flows = []QueueState{}, []FlowState{}
	flows := map[[2]string]*FlowState{}
	flow := func(r *qsRequest) *FlowState {
		k := [2]string{r.fsName, r.flowDistinguisher}
		f := flows[k]
		if f == nil {
			f = &FlowState{FlowSchema: r.fsName, Distinguisher: r.flowDistinguisher}
			if qs.dealer != nil {
				f.Hand = qs.dealer.dealIntoHand(hashFlowID(r.fsName, r.flowDistinguisher), nil)
			}
			flows[k] = f
		}
		return f
	}
	for _, q := range qs.queues {
		if q.empty() {
			continue
		}
		ls.ActiveQueues = append(ls.ActiveQueues, QueueState{Index: q.index, Waiting: q.waiting.Len(), Executing: len(q.executing),
			SeatsInUse: q.seatsInUse, NextDispatchR: q.nextDispatchR.float()})
		for e := q.waiting.Front(); e != nil; e = e.Next() {
			r := e.Value.(*qsRequest)
			f := flow(r)
			f.Waiting++
			f.OldestWait = max(f.OldestWait, now.Sub(r.arrival).Seconds())
		}
		for r := range q.executing {
			f := flow(r)
			f.Executing++
			f.Seats += r.work.maxSeats()
		}
	}
	for r := range qs.queueless {
		f := flow(r)
		f.Executing++
		f.Seats += r.work.maxSeats()
	}
	for _, f := range flows {
		ls.Flows = append(ls.Flows, *f)
	}
	slices.SortFunc(ls.Flows, func(a, b FlowState) int {
		return strings.Compare(a.FlowSchema+"\x00"+a.Distinguisher, b.FlowSchema+"\x00"+b.Distinguisher)
	})
	return ls
}

// serveState answers the JSON view (?level=NAME, repeated, keeps only those
// levels); with ?resourceVersion=RV it waits (up to 5 s) until the
// configuration written up to RV (and since) is in effect.
func (c *Controller) serveState(w web.ResponseWriter, r *web.Request) {
	q := r.URL.Query()
	if object.Int(q.Get("resourceVersion")) > 0 {
		c.waitDigested(r.Context(), 5*time.Second)
	}
	st := c.Snapshot(q.Get("flowSchema"), q.Get("distinguisher"))
	if names := q["level"]; len(names) > 0 { // ?level=A&level=B: only those
		st.Levels = slices.DeleteFunc(st.Levels, func(l LevelState) bool { return !slices.Contains(names, l.Name) })
	}
	writeJSON(w, st)
}

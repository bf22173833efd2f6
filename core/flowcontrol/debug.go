package flowcontrol

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/flowcontrol/fairqueuing"
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
		st := l.qs.State()
		active := 0
		for _, q := range st.Queues {
			if len(q.Waiting) > 0 {
				active++
			}
		}
		rows = append(rows, []string{l.name, strconv.Itoa(active), strconv.FormatBool(st.Waiting == 0 && st.Executing == 0),
			strconv.FormatBool(l.quiescing), strconv.Itoa(st.Waiting), strconv.Itoa(st.Executing),
			strconv.Itoa(st.Dispatched), strconv.Itoa(st.Rejected), strconv.Itoa(st.TimedOut), strconv.Itoa(st.Cancelled)})
	}
	c.mu.RUnlock()
	writeTable(w, rows)
}

func (c *Controller) dumpQueues(w web.ResponseWriter, _ *web.Request) {
	rows := [][]string{{"PriorityLevelName", "Index", "PendingRequests", "ExecutingRequests", "SeatsInUse", "NextDispatchR",
		"InitialSeatsSum", "MaxSeatsSum", "TotalWorkSum"}}
	c.mu.RLock()
	for _, l := range c.sortedLevelsLocked() {
		for i, q := range l.qs.State().Queues {
			rows = append(rows, []string{l.name, strconv.Itoa(i), strconv.Itoa(len(q.Waiting)), strconv.Itoa(len(q.Executing)),
				strconv.Itoa(q.SeatsInUse), q.NextDispatchR.String(), strconv.Itoa(q.InitialSeatsSum),
				strconv.Itoa(q.MaxSeatsSum), q.TotalWorkSum.String()})
		}
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
	row := func(pl string, iq, ir int, q fairqueuing.RequestState) {
		cols := []string{pl, q.FlowSchema, strconv.Itoa(iq), strconv.Itoa(ir), q.Distinguisher,
			q.Arrival.UTC().Format(time.RFC3339Nano), strconv.FormatUint(q.Work.InitialSeats, 10),
			strconv.FormatUint(q.Work.FinalSeats, 10), q.Work.AdditionalLatency.String(), q.Start.UTC().Format(time.RFC3339Nano)}
		if details {
			d, _ := q.Detail.(*requestDetail)
			if d == nil {
				d = &requestDetail{}
			}
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
		st := l.qs.State()
		for iq, q := range st.Queues {
			for i, x := range q.Waiting {
				row(l.name, iq, i, x)
			}
			for _, x := range q.Executing {
				row(l.name, iq, -1, x)
			}
		}
		for _, x := range st.Queueless {
			row(l.name, -1, -1, x)
		}
	}
	c.mu.RUnlock()
	writeTable(w, rows)
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
			if l := c.levels[fs.level]; l != nil && l.queuing.Queues > 0 {
				h := fairqueuing.HashFlowID(fs.name, handDistinguisher)
				d, _ := fairqueuing.NewDealer(l.queuing.Queues, l.queuing.HandSize)
				st.Hand = &HandState{FlowSchema: fs.name, Distinguisher: handDistinguisher, Level: l.name,
					Hash: fmt.Sprintf("%016x", h), Queues: d.DealIntoHand(h, nil)}
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
	case l.queuing.Queues == 0:
		ls.Type = "Reject"
	default:
		ls.Type, ls.HandSize, ls.QueueLengthLimit = "Queue", l.queuing.HandSize, l.queuing.QueueLengthLimit
	}
	if l.simulated > 0 {
		ls.SimulatedWork = l.simulated.String()
	}
	qs := l.qs.State()
	ls.SeatsInUse, ls.SeatsWaiting = qs.SeatsInUse, qs.SeatsWaiting
	ls.Executing, ls.Waiting = qs.Executing, qs.Waiting
	ls.Dispatched, ls.Rejected, ls.TimedOut, ls.Cancelled = qs.Dispatched, qs.Rejected, qs.TimedOut, qs.Cancelled
	ls.Queues, ls.VirtualTime = len(qs.Queues), qs.CurrentR.Float()
	ls.ActiveQueues, ls.Flows = []QueueState{}, []FlowState{}
	flows := map[[2]string]*FlowState{}
	flow := func(r fairqueuing.RequestState) *FlowState {
		k := [2]string{r.FlowSchema, r.Distinguisher}
		f := flows[k]
		if f == nil {
			f = &FlowState{FlowSchema: r.FlowSchema, Distinguisher: r.Distinguisher}
			if qs.Dealer != nil {
				f.Hand = qs.Dealer.DealIntoHand(fairqueuing.HashFlowID(r.FlowSchema, r.Distinguisher), nil)
			}
			flows[k] = f
		}
		return f
	}
	for _, q := range qs.Queues {
		if q.Empty() {
			continue
		}
		ls.ActiveQueues = append(ls.ActiveQueues, QueueState{Index: q.Index, Waiting: len(q.Waiting), Executing: len(q.Executing),
			SeatsInUse: q.SeatsInUse, NextDispatchR: q.NextDispatchR.Float()})
		for _, r := range q.Waiting {
			f := flow(r)
			f.Waiting++
			f.OldestWait = max(f.OldestWait, now.Sub(r.Arrival).Seconds())
		}
		for _, r := range q.Executing {
			f := flow(r)
			f.Executing++
			f.Seats += r.Work.MaxSeats()
		}
	}
	for _, r := range qs.Queueless {
		f := flow(r)
		f.Executing++
		f.Seats += r.Work.MaxSeats()
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
	apierrors.WriteJSON(w, st)
}

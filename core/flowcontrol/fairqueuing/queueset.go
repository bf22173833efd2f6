// Package fairqueuing is fair queuing for server requests, as the APF
// enhancement (KEP-1040) describes it and k8s.io/apiserver's
// fairqueuing/queueset implements it: one QueueSet per priority level, a set
// of queues into which requests are shuffle-sharded, dispatched by the
// virtual finish time of each queue's oldest request. The virtual clock R
// advances, per real second, by min(seats requested, concurrency limit) /
// (number of non-empty queues) seat-seconds; a queue's next request
// finishes, virtually, at the queue's nextDispatchR plus the request's work
// (seats × estimated service time); the queue with the smallest such time
// goes next, ties broken round-robin.
//
// It knows nothing of the API: its caller (core/flowcontrol) classifies
// requests, estimates their work, configures each level's queues and
// limit, and observes what happens through Metrics. Time is an injected
// clock. The hands dealt and the dispatch order are tested against kube's
// own shufflesharding and queueset on the same inputs.
package fairqueuing

import (
	"container/list"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"kubeplay/core/clock"
)

// SeatSeconds is work, in seat-seconds, fixed point: n means n/1e8.
type SeatSeconds uint64

const ssScale = 1e8

const maxSeatSeconds = SeatSeconds(math.MaxUint64)

// SeatsTimesDuration is the work of seats held for d.
func SeatsTimesDuration(seats float64, d time.Duration) SeatSeconds {
	return SeatSeconds(int64(math.Round(seats * float64(d/time.Nanosecond) / (1e9 / ssScale))))
}

// Float is ss in seat-seconds.
func (ss SeatSeconds) Float() float64 { return float64(ss) / ssScale }

// DurationPerSeat is how long seats must be held to do ss.
func (ss SeatSeconds) DurationPerSeat(seats float64) time.Duration {
	return time.Duration(float64(ss) / seats * (float64(time.Second) / ssScale))
}

// String is kube's: seconds with eight decimals and "ss".
func (ss SeatSeconds) String() string {
	const div = SeatSeconds(ssScale)
	quo := ss / div
	return fmt.Sprintf("%d.%08dss", quo, ss-quo*div)
}

// rDecrement is how far R is wound back when it nears overflow, and highR when.
const (
	rDecrement = maxSeatSeconds / 2
	highR      = rDecrement + rDecrement/2
)

// WorkEstimate is what a request will cost: seats while it executes, then
// FinalSeats for AdditionalLatency (the watch notifications a write causes).
type WorkEstimate struct {
	InitialSeats      uint64
	FinalSeats        uint64
	AdditionalLatency time.Duration
}

// MaxSeats is the most seats the request holds at once.
func (we WorkEstimate) MaxSeats() int {
	return int(max(we.InitialSeats, we.FinalSeats))
}

// QueuingConfig is a level's queuing: Queues < 0 is exempt (never limited),
// 0 is Reject (no queues), more is Queue.
type QueuingConfig struct {
	Name             string
	Queues           int
	QueueLengthLimit int
	HandSize         int
}

// estimatedServiceDuration is kube's guess of every request's execution time,
// the G of the enhancement.
const estimatedServiceDuration = 3 * time.Millisecond

// decision is what becomes of a queued request.
type decision int

const (
	undecided decision = iota
	execute
	cancel
)

// Rejection is why a request was not served: the reason label of
// apiserver_flowcontrol_rejected_requests_total.
type Rejection string

// The reasons of kube's rejections.
const (
	RejectQueueFull        Rejection = "queue-full"
	RejectConcurrencyLimit Rejection = "concurrency-limit"
	RejectTimeout          Rejection = "time-out"
	RejectCancelled        Rejection = "cancelled"
)

// Metrics hears what a QueueSet does, as kube's queueset updates its
// priority level's metrics: the caller's metrics of one level implement it.
// It is called with the QueueSet's lock held; now is the QueueSet's reading
// of its clock.
type Metrics interface {
	// SetCurrentR is told R each time it advances.
	SetCurrentR(r float64)
	// AdvanceEpoch: R was wound back, as it neared overflow.
	AdvanceEpoch()
	// AddWaiting, AddExecuting and AddSeats change the requests waiting, the
	// requests executing and the seats in use by d.
	AddWaiting(now time.Time, d float64)
	AddExecuting(now time.Time, d float64)
	AddSeats(now time.Time, d float64)
	// SetDemand is told the seats wanted (in use and waiting) at each change.
	SetDemand(now time.Time, seats float64)
	// Flow is the metrics of the requests of one FlowSchema.
	Flow(fsName string) FlowMetrics
}

// FlowMetrics hears what becomes of the requests of one FlowSchema.
type FlowMetrics interface {
	Reject(reason Rejection)
	// AddWaiting changes the requests waiting, and their seats, by these.
	AddWaiting(requests, seats float64)
	// ObserveQueueLength is told the length of a queue a request joined.
	ObserveQueueLength(n int)
	AddExecuting(requests float64)
	AddExecutingSeats(seats float64)
	// NoAccommodation: a dispatch found the oldest request's seats not free.
	NoAccommodation()
}

// Detail is what a request's caller says of it: the QueueSet's State shows
// it, and it hears when the request enters (in) and leaves its queue.
type Detail interface {
	Queued(in bool, now time.Time)
}

// Request is one request in a QueueSet, from arrival to the release of its
// seats.
type Request struct {
	ctx               context.Context
	qs                *QueueSet
	fsName            string
	flowDistinguisher string
	queue             *queue // nil when it never queued
	work              WorkEstimate
	totalWork         SeatSeconds // initial plus final
	finalWork         SeatSeconds
	detail            Detail // nil: none

	// Guarded by qs.mu:
	elem      *list.Element // in queue.waiting while waiting
	decision  decision
	decided   chan struct{} // closed when decision is set
	arrival   time.Time
	arrivalR  SeatSeconds
	start     time.Time
	waitDone  bool
	rejection Rejection
}

// queue is one queue of a QueueSet: requests waiting, and those it
// dispatched that still execute.
type queue struct {
	index         int
	waiting       *list.List // of *Request, oldest first
	waitingSum    queueSum
	nextDispatchR SeatSeconds
	executing     map[*Request]struct{}
	seatsInUse    int
}

// queueSum is the sums over a queue's waiting requests.
type queueSum struct {
	initialSeats int
	maxSeats     int
	totalWork    SeatSeconds
}

func (q *queue) enqueue(r *Request) {
	r.elem = q.waiting.PushBack(r)
	q.waitingSum.initialSeats += int(r.work.InitialSeats)
	q.waitingSum.maxSeats += r.work.MaxSeats()
	q.waitingSum.totalWork += r.totalWork
}

// remove takes r out of the queue and says whether it was there.
func (q *queue) remove(r *Request) bool {
	if r.elem == nil {
		return false
	}
	q.waiting.Remove(r.elem)
	r.elem = nil
	q.waitingSum.initialSeats -= int(r.work.InitialSeats)
	q.waitingSum.maxSeats -= r.work.MaxSeats()
	q.waitingSum.totalWork -= r.totalWork
	return true
}

func (r *Request) noteQueued(in bool) {
	if r.detail != nil {
		r.detail.Queued(in, r.qs.lastRealTime)
	}
}

func (q *queue) oldest() *Request {
	if e := q.waiting.Front(); e != nil {
		return e.Value.(*Request)
	}
	return nil
}

func (q *queue) empty() bool { return q.waiting.Len() == 0 && len(q.executing) == 0 }

// QueueSet is one priority level's queues and seats. Every field after mu is
// guarded by it.
type QueueSet struct {
	clock   clock.Clock
	metrics Metrics

	mu     sync.Mutex
	cfg    QueuingConfig
	limit  int // the concurrency limit: seats that may be in use
	dealer *Dealer
	queues []*queue

	currentR     SeatSeconds
	lastRealTime time.Time
	robinIndex   int
	enqueues     int

	totRequestsWaiting   int
	totRequestsExecuting int
	totSeatsInUse        int
	totSeatsWaiting      int
	activeQueues         int                   // queues with requests waiting or executing
	queuedSeatsInUse     int                   // seats in use by requests that came through a queue
	queueless            map[*Request]struct{} // executing without a queue

	dispatched, rejected, timedOut, cancelled int
}

// NewQueueSet is a QueueSet on clk, observed by m, that dispatches nothing
// until configured.
func NewQueueSet(clk clock.Clock, m Metrics) *QueueSet {
	return &QueueSet{clock: clk, metrics: m, lastRealTime: clk.Now(), queueless: map[*Request]struct{}{}}
}

// Configure sets the queuing and the concurrency limit. Queues are added at
// once; surplus ones go when they empty. A Reject or exempt configuration keeps
// the queuing parameters the queues had, so they drain as before.
func (qs *QueueSet) Configure(cfg QueuingConfig, limit int) error {
	var d *Dealer
	if cfg.Queues > 0 {
		var err error
		if d, err = NewDealer(cfg.Queues, cfg.HandSize); err != nil {
			return err
		}
	}
	qs.lockAndSyncTime()
	defer qs.mu.Unlock()
	if cfg.Queues > 0 {
		for len(qs.queues) < cfg.Queues {
			qs.queues = append(qs.queues, &queue{index: len(qs.queues), waiting: list.New(), executing: map[*Request]struct{}{}})
		}
	} else {
		cfg.QueueLengthLimit, cfg.HandSize = qs.cfg.QueueLengthLimit, qs.cfg.HandSize
	}
	qs.cfg, qs.limit, qs.dealer = cfg, limit, d
	qs.dispatchAsMuchAsPossibleLocked()
	return nil
}

func (qs *QueueSet) lockAndSyncTime() {
	qs.mu.Lock()
	qs.syncTimeLocked()
}

// syncTimeLocked advances R for the time since it was last advanced, at the rate
// the queues' state has had since.
func (qs *QueueSet) syncTimeLocked() {
	now := qs.clock.Now()
	elapsed := now.Sub(qs.lastRealTime)
	qs.lastRealTime = now
	qs.currentR += SeatsTimesDuration(qs.virtualTimeRatioLocked(), elapsed)
	if qs.currentR >= highR {
		qs.advanceEpochLocked()
	}
	qs.metrics.SetCurrentR(qs.currentR.Float())
}

// advanceEpochLocked winds R and every reading taken from it back by rDecrement.
func (qs *QueueSet) advanceEpochLocked() {
	qs.currentR -= rDecrement
	for _, q := range qs.queues {
		if q.empty() {
			q.nextDispatchR = 0
			continue
		}
		q.nextDispatchR -= rDecrement
		for e := q.waiting.Front(); e != nil; e = e.Next() {
			e.Value.(*Request).arrivalR -= rDecrement
		}
	}
	qs.metrics.AdvanceEpoch()
}

// virtualTimeRatioLocked is dR/dt: min(seats requested, limit) over the number
// of non-empty queues (kept as counts, not summed over the queues each time).
func (qs *QueueSet) virtualTimeRatioLocked() float64 {
	if qs.activeQueues == 0 {
		return 0
	}
	return math.Min(float64(qs.queuedSeatsInUse+qs.totSeatsWaiting), float64(qs.limit)) / float64(qs.activeQueues)
}

// StartRequest admits a request of the flow hash (of FlowSchema fsName,
// with distinguisher), described by detail (nil: none): it dispatches it at
// once (exempt, or Reject with seats free), rejects it (concurrency-limit,
// queue-full), or queues it. A nil request means rejected, for the reason
// returned; otherwise the caller must call Finish.
func (qs *QueueSet) StartRequest(ctx context.Context, we WorkEstimate, hash uint64, fsName, distinguisher string, detail Detail) (*Request, Rejection) {
	qs.lockAndSyncTime()
	defer qs.mu.Unlock()
	now := qs.lastRealTime
	r := &Request{ctx: ctx, qs: qs, fsName: fsName, flowDistinguisher: distinguisher, work: we, detail: detail,
		decided: make(chan struct{}), arrival: now, arrivalR: qs.currentR}
	r.finalWork = SeatsTimesDuration(float64(we.FinalSeats), we.AdditionalLatency)
	r.totalWork = SeatsTimesDuration(float64(we.InitialSeats), estimatedServiceDuration) + r.finalWork
	if qs.cfg.Queues < 1 {
		if !qs.canAccommodateLocked(we.MaxSeats()) {
			qs.rejected++
			qs.metrics.Flow(fsName).Reject(RejectConcurrencyLimit)
			return nil, RejectConcurrencyLimit
		}
		qs.dispatchSansQueueLocked(r)
		return r, ""
	}
	q := qs.queues[qs.shuffleShardLocked(hash)]
	defer qs.boundNextDispatchLocked(q)
	r.queue = q
	if qs.totSeatsInUse >= qs.limit && q.waiting.Len() >= qs.cfg.QueueLengthLimit {
		qs.rejected++
		qs.metrics.Flow(fsName).Reject(RejectQueueFull)
		return nil, RejectQueueFull
	}
	if q.empty() {
		q.nextDispatchR = qs.currentR
		qs.activeQueues++
	}
	q.enqueue(r)
	r.noteQueued(true)
	qs.totRequestsWaiting++
	qs.totSeatsWaiting += we.MaxSeats()
	fm := qs.metrics.Flow(fsName)
	fm.AddWaiting(1, float64(we.MaxSeats()))
	fm.ObserveQueueLength(q.waiting.Len())
	qs.metrics.AddWaiting(qs.lastRealTime, 1)
	qs.noteDemandLocked()
	qs.dispatchAsMuchAsPossibleLocked()
	return r, ""
}

// shuffleShardLocked deals the flow's hand and picks the queue with the least
// waiting work, starting the scan at a rotating offset.
func (qs *QueueSet) shuffleShardLocked(hash uint64) int {
	var backing [8]int
	hand := qs.dealer.DealIntoHand(hash, backing[:])
	offset := qs.enqueues % len(hand)
	qs.enqueues++
	best, least := -1, maxSeatSeconds
	for i := range hand {
		idx := hand[(offset+i)%len(hand)]
		if w := qs.queues[idx].waitingSum.totalWork; w < least {
			best, least = idx, w
		}
	}
	return best
}

// canAccommodateLocked says whether seats more can be taken now. A request
// wider than the limit goes when nothing else executes.
func (qs *QueueSet) canAccommodateLocked(seats int) bool {
	switch {
	case qs.cfg.Queues < 0:
		return true
	case seats > qs.limit:
		return qs.totRequestsExecuting == 0
	case qs.totSeatsInUse+seats > qs.limit:
		return false
	}
	return true
}

func (qs *QueueSet) dispatchAsMuchAsPossibleLocked() {
	for qs.totRequestsWaiting != 0 && qs.totSeatsInUse < qs.limit && qs.dispatchLocked() {
	}
}

func (qs *QueueSet) dispatchSansQueueLocked(r *Request) {
	r.start = r.arrival
	r.decision = execute
	close(r.decided)
	qs.totRequestsExecuting++
	qs.totSeatsInUse += r.work.MaxSeats()
	qs.queueless[r] = struct{}{}
	qs.noteExecutingLocked(r, 1)
}

// noteExecutingLocked updates the gauges for r starting (delta 1) or ending
// (-1) its execution.
func (qs *QueueSet) noteExecutingLocked(r *Request, delta int) {
	fm := qs.metrics.Flow(r.fsName)
	fm.AddExecuting(float64(delta))
	qs.metrics.AddExecuting(qs.lastRealTime, float64(delta))
	if delta > 0 {
		fm.AddExecutingSeats(float64(r.work.MaxSeats()))
		qs.metrics.AddSeats(qs.lastRealTime, float64(r.work.MaxSeats()))
	}
	qs.noteDemandLocked()
}

func (qs *QueueSet) noteDemandLocked() {
	qs.metrics.SetDemand(qs.lastRealTime, float64(qs.totSeatsInUse+qs.totSeatsWaiting))
}

// dispatchLocked dispatches the oldest request of the queue whose oldest
// request finishes first in virtual time, if its seats are free.
func (qs *QueueSet) dispatchLocked() bool {
	q, r := qs.findDispatchQueueLocked()
	if q == nil {
		return false
	}
	qs.totRequestsWaiting--
	qs.totSeatsWaiting -= r.work.MaxSeats()
	qs.metrics.Flow(r.fsName).AddWaiting(-1, -float64(r.work.MaxSeats()))
	qs.metrics.AddWaiting(qs.lastRealTime, -1)
	r.noteQueued(false)
	defer qs.boundNextDispatchLocked(q)
	if r.decision != undecided {
		qs.noteDemandLocked()
		return true
	}
	r.decision = execute
	close(r.decided)
	r.start = qs.lastRealTime
	qs.totRequestsExecuting++
	qs.totSeatsInUse += r.work.MaxSeats()
	q.executing[r] = struct{}{}
	q.seatsInUse += r.work.MaxSeats()
	qs.queuedSeatsInUse += r.work.MaxSeats()
	qs.noteExecutingLocked(r, 1)
	q.nextDispatchR += r.totalWork
	return true
}

// findDispatchQueueLocked scans the queues round-robin from the one after the
// last dispatched and picks the first whose oldest request has the least
// virtual finish time; nil when its seats are not free.
func (qs *QueueSet) findDispatchQueueLocked() (*queue, *Request) {
	minFinish := maxSeatSeconds
	var minQueue *queue
	minIndex := -1
	n := len(qs.queues)
	for range qs.queues {
		qs.robinIndex = (qs.robinIndex + 1) % n
		q := qs.queues[qs.robinIndex]
		if q.waiting.Len() == 0 {
			continue
		}
		if r := q.oldest(); r != nil {
			if finish := q.nextDispatchR + r.totalWork; finish < minFinish {
				minFinish, minQueue, minIndex = finish, q, qs.robinIndex
			}
		}
	}
	if minQueue == nil {
		return nil, nil
	}
	r := minQueue.oldest()
	if !qs.canAccommodateLocked(r.work.MaxSeats()) {
		qs.metrics.Flow(r.fsName).NoAccommodation()
		return nil, nil
	}
	minQueue.remove(r)
	if r.work.FinalSeats > uint64(qs.limit) {
		// Final seats beyond the limit are narrowed, the work kept.
		r.work.FinalSeats = uint64(qs.limit)
		r.work.AdditionalLatency = r.finalWork.DurationPerSeat(float64(qs.limit))
	}
	qs.robinIndex = minIndex
	return minQueue, r
}

// boundNextDispatchLocked is kube's anti-windup: a queue's next dispatch is
// never before its oldest request's arrival, virtually.
func (qs *QueueSet) boundNextDispatchLocked(q *queue) {
	if r := q.oldest(); r != nil && q.nextDispatchR < r.arrivalR {
		q.nextDispatchR = r.arrivalR
	}
}

// wait blocks until r is decided, its wait limit passes or its client
// leaves. It returns whether r is to execute; a request that stops waiting
// leaves its queue, rejected as time-out (its limit passed) or cancelled (its
// client left).
func (r *Request) wait(limit time.Duration) bool {
	reason := RejectCancelled
	select {
	case <-r.decided:
	default:
		t := r.qs.clock.NewTimer(limit)
		select {
		case <-r.decided:
		case <-r.ctx.Done():
		case <-t.C():
			reason = RejectTimeout
		}
		t.Stop()
	}
	qs := r.qs
	qs.lockAndSyncTime()
	defer qs.mu.Unlock()
	r.waitDone = true
	if r.decision == undecided {
		r.decision = cancel
		close(r.decided)
	}
	if r.decision == execute {
		return true
	}
	if q := r.queue; q != nil && q.remove(r) {
		if q.empty() {
			qs.activeQueues--
		}
		defer qs.boundNextDispatchLocked(q)
		qs.totRequestsWaiting--
		qs.totSeatsWaiting -= r.work.MaxSeats()
		r.noteQueued(false)
		qs.rejected++
		if reason == RejectCancelled {
			qs.cancelled++
		} else {
			qs.timedOut++
		}
		r.rejection = reason
		fm := qs.metrics.Flow(r.fsName)
		fm.Reject(reason)
		fm.AddWaiting(-1, -float64(r.work.MaxSeats()))
		qs.metrics.AddWaiting(qs.lastRealTime, -1)
		qs.noteDemandLocked()
	}
	return false
}

// Finish waits for r's turn, at most limit, and runs exec if it gets one,
// then releases its seats (the final seats after the additional latency) and
// dispatches what that lets through. It says whether exec ran.
func (r *Request) Finish(limit time.Duration, exec func()) bool {
	if !r.wait(limit) {
		return false
	}
	r.qs.mu.Lock()
	r.qs.dispatched++
	r.qs.mu.Unlock()
	defer r.qs.finishRequest(r)
	exec()
	return true
}

// finishRequest ends r's execution: its queue's start moves by the difference
// between the guessed and the actual service time; its seats are released now,
// or after its additional latency.
func (qs *QueueSet) finishRequest(r *Request) {
	qs.lockAndSyncTime()
	defer qs.mu.Unlock()
	now := qs.lastRealTime
	qs.totRequestsExecuting--
	qs.metrics.Flow(r.fsName).AddExecuting(-1)
	qs.metrics.AddExecuting(qs.lastRealTime, -1)
	if q := r.queue; q != nil {
		delete(q.executing, r)
		if q.empty() {
			qs.activeQueues--
		}
		actual := now.Sub(r.start)
		q.nextDispatchR -= SeatsTimesDuration(float64(r.work.InitialSeats), estimatedServiceDuration-actual)
		qs.boundNextDispatchLocked(q)
	} else {
		delete(qs.queueless, r)
	}
	if r.work.AdditionalLatency <= 0 {
		qs.releaseSeatsLocked(r)
		qs.dispatchAsMuchAsPossibleLocked()
		return
	}
	t := qs.clock.NewTimer(r.work.AdditionalLatency)
	go func() {
		<-t.C()
		qs.lockAndSyncTime()
		defer qs.mu.Unlock()
		qs.releaseSeatsLocked(r)
		qs.dispatchAsMuchAsPossibleLocked()
	}()
}

func (qs *QueueSet) releaseSeatsLocked(r *Request) {
	seats := r.work.MaxSeats()
	qs.totSeatsInUse -= seats
	qs.metrics.Flow(r.fsName).AddExecutingSeats(-float64(seats))
	qs.metrics.AddSeats(qs.lastRealTime, -float64(seats))
	qs.noteDemandLocked()
	if q := r.queue; q != nil {
		q.seatsInUse -= seats
		qs.queuedSeatsInUse -= seats
		qs.removeQueueIfSurplusLocked(q)
	}
}

// removeQueueIfSurplusLocked drops an empty queue beyond the configured number.
func (qs *QueueSet) removeQueueIfSurplusLocked(q *queue) {
	if len(qs.queues) <= qs.cfg.Queues || !q.empty() {
		return
	}
	qs.queues = append(qs.queues[:q.index], qs.queues[q.index+1:]...)
	for i := q.index; i < len(qs.queues); i++ {
		qs.queues[i].index--
	}
	if qs.robinIndex >= q.index {
		qs.robinIndex--
	}
}

// Idle says whether nothing waits or executes.
func (qs *QueueSet) Idle() bool {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	return qs.totRequestsWaiting == 0 && qs.totRequestsExecuting == 0
}

// Rejection is why r was not served after it queued (time-out, cancelled),
// "" while it was not refused.
func (r *Request) Rejection() Rejection {
	r.qs.mu.Lock()
	defer r.qs.mu.Unlock()
	return r.rejection
}

// State is what a QueueSet holds at one time, for dumps and views.
type State struct {
	CurrentR                                  SeatSeconds
	Waiting, Executing                        int // requests
	SeatsInUse, SeatsWaiting                  int
	Dispatched, Rejected, TimedOut, Cancelled int
	// Dealer deals the level's hands; nil when it does not queue.
	Dealer *Dealer
	Queues []QueueState
	// Queueless are the requests executing that never queued, by arrival.
	Queueless []RequestState
}

// QueueState is one queue.
type QueueState struct {
	Index         int
	NextDispatchR SeatSeconds
	SeatsInUse    int
	// The sums over the requests waiting.
	InitialSeatsSum, MaxSeatsSum int
	TotalWorkSum                 SeatSeconds
	Waiting                      []RequestState // oldest first
	Executing                    []RequestState // by arrival
}

// Empty says whether nothing waits in the queue or executes from it.
func (q QueueState) Empty() bool { return len(q.Waiting) == 0 && len(q.Executing) == 0 }

// RequestState is one request.
type RequestState struct {
	FlowSchema, Distinguisher string
	Arrival, Start            time.Time
	Work                      WorkEstimate
	Detail                    Detail
}

// State is the QueueSet now.
func (qs *QueueSet) State() State {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	st := State{CurrentR: qs.currentR, Waiting: qs.totRequestsWaiting, Executing: qs.totRequestsExecuting,
		SeatsInUse: qs.totSeatsInUse, SeatsWaiting: qs.totSeatsWaiting, Dispatched: qs.dispatched, Rejected: qs.rejected,
		TimedOut: qs.timedOut, Cancelled: qs.cancelled, Dealer: qs.dealer, Queues: make([]QueueState, len(qs.queues)),
		Queueless: byArrival(qs.queueless)}
	for i, q := range qs.queues {
		qst := QueueState{Index: q.index, NextDispatchR: q.nextDispatchR, SeatsInUse: q.seatsInUse,
			InitialSeatsSum: q.waitingSum.initialSeats, MaxSeatsSum: q.waitingSum.maxSeats, TotalWorkSum: q.waitingSum.totalWork,
			Executing: byArrival(q.executing)}
		for e := q.waiting.Front(); e != nil; e = e.Next() {
			qst.Waiting = append(qst.Waiting, e.Value.(*Request).state())
		}
		st.Queues[i] = qst
	}
	return st
}

func (r *Request) state() RequestState {
	return RequestState{FlowSchema: r.fsName, Distinguisher: r.flowDistinguisher, Arrival: r.arrival, Start: r.start, Work: r.work, Detail: r.detail}
}

// byArrival are the states of a set of requests, by arrival. (The requests
// are sorted, not their states: a sort of pointers is one the binary has
// already.)
func byArrival(set map[*Request]struct{}) []RequestState {
	rs := make([]*Request, 0, len(set))
	for r := range set {
		rs = append(rs, r)
	}
	slices.SortFunc(rs, func(a, b *Request) int { return a.arrival.Compare(b.arrival) })
	out := make([]RequestState, len(rs))
	for i, r := range rs {
		out[i] = r.state()
	}
	return out
}

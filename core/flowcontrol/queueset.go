package flowcontrol

import (
	"container/list"
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"kubeplay/core/clock"
)

// This file is fair queuing for server requests, as the APF enhancement
// (KEP-1040) describes it and k8s.io/apiserver's fairqueuing/queueset
// implements it: one queueSet per priority level, a set of queues into which
// requests are shuffle-sharded, dispatched by the virtual finish time of each
// queue's oldest request. The virtual clock R advances, per real second, by
// min(seats requested, concurrency limit) / (number of non-empty queues)
// seat-seconds; a queue's next request finishes, virtually, at the queue's
// nextDispatchR plus the request's work (seats × estimated service time); the
// queue with the smallest such time goes next, ties broken round-robin. The
// dispatch order is tested against kube's own queueset on the same inputs.

// seatSeconds is work, in seat-seconds, fixed point: n means n/1e8.
type seatSeconds uint64

const ssScale = 1e8

const maxSeatSeconds = seatSeconds(math.MaxUint64)

// seatsTimesDuration is the work of seats held for d.
func seatsTimesDuration(seats float64, d time.Duration) seatSeconds {
	return seatSeconds(int64(math.Round(seats * float64(d/time.Nanosecond) / (1e9 / ssScale))))
}

func (ss seatSeconds) float() float64 { return float64(ss) / ssScale }

// durationPerSeat is how long seats must be held to do ss.
func (ss seatSeconds) durationPerSeat(seats float64) time.Duration {
	return time.Duration(float64(ss) / seats * (float64(time.Second) / ssScale))
}

// String is kube's: seconds with eight decimals and "ss".
func (ss seatSeconds) String() string {
	const div = seatSeconds(ssScale)
	quo := ss / div
	return fmt.Sprintf("%d.%08dss", quo, ss-quo*div)
}

// rDecrement is how far R is wound back when it nears overflow, and highR when.
const (
	rDecrement = maxSeatSeconds / 2
	highR      = rDecrement + rDecrement/2
)

// workEstimate is what a request will cost: seats while it executes, then
// FinalSeats for AdditionalLatency (the watch notifications a write causes).
type workEstimate struct {
	InitialSeats      uint64
	FinalSeats        uint64
	AdditionalLatency time.Duration
}

// maxSeats is the most seats the request holds at once.
func (we workEstimate) maxSeats() int {
	return int(max(we.InitialSeats, we.FinalSeats))
}

// queuingConfig is a level's queuing: queues < 0 is exempt (never limited),
// 0 is Reject (no queues), more is Queue.
type queuingConfig struct {
	name             string
	queues           int
	queueLengthLimit int
	handSize         int
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

// rejection is why a request was not served: the reason label of
// apiserver_flowcontrol_rejected_requests_total.
type rejection string

const (
	rejectQueueFull        rejection = "queue-full"
	rejectConcurrencyLimit rejection = "concurrency-limit"
	rejectTimeout          rejection = "time-out"
	rejectCancelled        rejection = "cancelled"
)

// qsRequest is one request in a queueSet, from arrival to the release of its
// seats.
type qsRequest struct {
	ctx               context.Context
	qs                *queueSet
	fsName            string
	flowDistinguisher string
	queue             *queue // nil when it never queued
	work              workEstimate
	totalWork         seatSeconds // initial plus final
	finalWork         seatSeconds
	detail            requestDetail

	// Guarded by qs.mu:
	elem      *list.Element // in queue.waiting while waiting
	decision  decision
	decided   chan struct{} // closed when decision is set
	arrival   time.Time
	arrivalR  seatSeconds
	start     time.Time
	waitDone  bool
	rejection rejection
}

// requestDetail is what the dumps and the panel show of a request, and who
// hears of its queuing.
type requestDetail struct {
	user, verb, path, namespace, name, apiGroup, apiVersion, resource, subresource string
	// queued, when set, is told when the request enters (true) and leaves its
	// queue, and when.
	queued func(in bool, now time.Time)
}

// queue is one queue of a queueSet: requests waiting, and those it dispatched
// that still execute.
type queue struct {
	index         int
	waiting       *list.List // of *qsRequest, oldest first
	waitingSum    queueSum
	nextDispatchR seatSeconds
	executing     map[*qsRequest]struct{}
	seatsInUse    int
}

// queueSum is the sums over a queue's waiting requests.
type queueSum struct {
	initialSeats int
	maxSeats     int
	totalWork    seatSeconds
}

func (q *queue) enqueue(r *qsRequest) {
	r.elem = q.waiting.PushBack(r)
	q.waitingSum.initialSeats += int(r.work.InitialSeats)
	q.waitingSum.maxSeats += r.work.maxSeats()
	q.waitingSum.totalWork += r.totalWork
}

// remove takes r out of the queue and says whether it was there.
func (q *queue) remove(r *qsRequest) bool {
	if r.elem == nil {
		return false
	}
	q.waiting.Remove(r.elem)
	r.elem = nil
	q.waitingSum.initialSeats -= int(r.work.InitialSeats)
	q.waitingSum.maxSeats -= r.work.maxSeats()
	q.waitingSum.totalWork -= r.totalWork
	return true
}

func (r *qsRequest) noteQueued(in bool) {
	if r.detail.queued != nil {
		r.detail.queued(in, r.qs.lastRealTime)
	}
}

func (q *queue) oldest() *qsRequest {
	if e := q.waiting.Front(); e != nil {
		return e.Value.(*qsRequest)
	}
	return nil
}

func (q *queue) empty() bool { return q.waiting.Len() == 0 && len(q.executing) == 0 }

// queueSet is one priority level's queues and seats. Every field after mu is
// guarded by it.
type queueSet struct {
	clock   clock.Clock
	metrics *levelMetrics

	mu     sync.Mutex
	cfg    queuingConfig
	limit  int // the concurrency limit: seats that may be in use
	dealer *dealer
	queues []*queue

	currentR     seatSeconds
	lastRealTime time.Time
	robinIndex   int
	enqueues     int

	totRequestsWaiting   int
	totRequestsExecuting int
	totSeatsInUse        int
	totSeatsWaiting      int
	activeQueues         int                     // queues with requests waiting or executing
	queuedSeatsInUse     int                     // seats in use by requests that came through a queue
	queueless            map[*qsRequest]struct{} // executing without a queue

	dispatched, rejected, timedOut, cancelled int
}

func newQueueSet(clk clock.Clock, m *levelMetrics) *queueSet {
	return &queueSet{clock: clk, metrics: m, lastRealTime: clk.Now(), queueless: map[*qsRequest]struct{}{}}
}

// configure sets the queuing and the concurrency limit. Queues are added at
// once; surplus ones go when they empty. A Reject or exempt configuration keeps
// the queuing parameters the queues had, so they drain as before.
func (qs *queueSet) configure(cfg queuingConfig, limit int) error {
	var d *dealer
	if cfg.queues > 0 {
		var err error
		if d, err = newDealer(cfg.queues, cfg.handSize); err != nil {
			return err
		}
	}
	qs.lockAndSyncTime()
	defer qs.mu.Unlock()
	if cfg.queues > 0 {
		for len(qs.queues) < cfg.queues {
			qs.queues = append(qs.queues, &queue{index: len(qs.queues), waiting: list.New(), executing: map[*qsRequest]struct{}{}})
		}
	} else {
		cfg.queueLengthLimit, cfg.handSize = qs.cfg.queueLengthLimit, qs.cfg.handSize
	}
	qs.cfg, qs.limit, qs.dealer = cfg, limit, d
	qs.dispatchAsMuchAsPossibleLocked()
	return nil
}

func (qs *queueSet) lockAndSyncTime() {
	qs.mu.Lock()
	qs.syncTimeLocked()
}

// syncTimeLocked advances R for the time since it was last advanced, at the rate
// the queues' state has had since.
func (qs *queueSet) syncTimeLocked() {
	now := qs.clock.Now()
	elapsed := now.Sub(qs.lastRealTime)
	qs.lastRealTime = now
	qs.currentR += seatsTimesDuration(qs.virtualTimeRatioLocked(), elapsed)
	if qs.currentR >= highR {
		qs.advanceEpochLocked()
	}
	qs.metrics.currentR.set(qs.currentR.float())
}

// advanceEpochLocked winds R and every reading taken from it back by rDecrement.
func (qs *queueSet) advanceEpochLocked() {
	qs.currentR -= rDecrement
	for _, q := range qs.queues {
		if q.empty() {
			q.nextDispatchR = 0
			continue
		}
		q.nextDispatchR -= rDecrement
		for e := q.waiting.Front(); e != nil; e = e.Next() {
			e.Value.(*qsRequest).arrivalR -= rDecrement
		}
	}
	qs.metrics.epochAdvances.inc()
}

// virtualTimeRatioLocked is dR/dt: min(seats requested, limit) over the number
// of non-empty queues (kept as counts, not summed over the queues each time).
func (qs *queueSet) virtualTimeRatioLocked() float64 {
	if qs.activeQueues == 0 {
		return 0
	}
	return math.Min(float64(qs.queuedSeatsInUse+qs.totSeatsWaiting), float64(qs.limit)) / float64(qs.activeQueues)
}

// startRequest admits a request: it dispatches it at once (exempt, or Reject
// with seats free), rejects it (concurrency-limit, queue-full), or queues it.
// A nil request means rejected, for the reason returned; otherwise the caller
// must call finish.
func (qs *queueSet) startRequest(ctx context.Context, we workEstimate, hash uint64, fsName, distinguisher string, detail requestDetail) (*qsRequest, rejection) {
	qs.lockAndSyncTime()
	defer qs.mu.Unlock()
	now := qs.lastRealTime
	r := &qsRequest{ctx: ctx, qs: qs, fsName: fsName, flowDistinguisher: distinguisher, work: we, detail: detail,
		decided: make(chan struct{}), arrival: now, arrivalR: qs.currentR}
	r.finalWork = seatsTimesDuration(float64(we.FinalSeats), we.AdditionalLatency)
	r.totalWork = seatsTimesDuration(float64(we.InitialSeats), estimatedServiceDuration) + r.finalWork
	if qs.cfg.queues < 1 {
		if !qs.canAccommodateLocked(we.maxSeats()) {
			qs.rejected++
			qs.metrics.flow(fsName).rejected(rejectConcurrencyLimit)
			return nil, rejectConcurrencyLimit
		}
		qs.dispatchSansQueueLocked(r)
		return r, ""
	}
	q := qs.queues[qs.shuffleShardLocked(hash)]
	defer qs.boundNextDispatchLocked(q)
	r.queue = q
	if qs.totSeatsInUse >= qs.limit && q.waiting.Len() >= qs.cfg.queueLengthLimit {
		qs.rejected++
		qs.metrics.flow(fsName).rejected(rejectQueueFull)
		return nil, rejectQueueFull
	}
	if q.empty() {
		q.nextDispatchR = qs.currentR
		qs.activeQueues++
	}
	q.enqueue(r)
	r.noteQueued(true)
	qs.totRequestsWaiting++
	qs.totSeatsWaiting += we.maxSeats()
	fm := qs.metrics.flow(fsName)
	fm.inqueue.add(1)
	fm.inqueueSeats.add(float64(we.maxSeats()))
	fm.queueLength.observe(float64(q.waiting.Len()))
	qs.metrics.waitingRatio.addAt(qs.lastRealTime, 1)
	qs.noteDemandLocked()
	qs.dispatchAsMuchAsPossibleLocked()
	return r, ""
}

// shuffleShardLocked deals the flow's hand and picks the queue with the least
// waiting work, starting the scan at a rotating offset.
func (qs *queueSet) shuffleShardLocked(hash uint64) int {
	var backing [8]int
	hand := qs.dealer.dealIntoHand(hash, backing[:])
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
func (qs *queueSet) canAccommodateLocked(seats int) bool {
	switch {
	case qs.cfg.queues < 0:
		return true
	case seats > qs.limit:
		return qs.totRequestsExecuting == 0
	case qs.totSeatsInUse+seats > qs.limit:
		return false
	}
	return true
}

func (qs *queueSet) dispatchAsMuchAsPossibleLocked() {
	for qs.totRequestsWaiting != 0 && qs.totSeatsInUse < qs.limit && qs.dispatchLocked() {
	}
}

func (qs *queueSet) dispatchSansQueueLocked(r *qsRequest) {
	r.start = r.arrival
	r.decision = execute
	close(r.decided)
	qs.totRequestsExecuting++
	qs.totSeatsInUse += r.work.maxSeats()
	qs.queueless[r] = struct{}{}
	qs.noteExecutingLocked(r, 1)
}

// noteExecutingLocked updates the gauges for r starting (delta 1) or ending
// (-1) its execution.
func (qs *queueSet) noteExecutingLocked(r *qsRequest, delta int) {
	fm := qs.metrics.flow(r.fsName)
	fm.executing.add(float64(delta))
	qs.metrics.executingRatio.addAt(qs.lastRealTime, float64(delta))
	if delta > 0 {
		fm.executingSeats.add(float64(r.work.maxSeats()))
		qs.metrics.seatRatio.addAt(qs.lastRealTime, float64(r.work.maxSeats()))
	}
	qs.noteDemandLocked()
}

func (qs *queueSet) noteDemandLocked() {
	qs.metrics.demand.setAt(qs.lastRealTime, float64(qs.totSeatsInUse+qs.totSeatsWaiting))
}

// dispatchLocked dispatches the oldest request of the queue whose oldest
// request finishes first in virtual time, if its seats are free.
func (qs *queueSet) dispatchLocked() bool {
	q, r := qs.findDispatchQueueLocked()
	if q == nil {
		return false
	}
	qs.totRequestsWaiting--
	qs.totSeatsWaiting -= r.work.maxSeats()
	fm := qs.metrics.flow(r.fsName)
	fm.inqueue.add(-1)
	fm.inqueueSeats.add(-float64(r.work.maxSeats()))
	qs.metrics.waitingRatio.addAt(qs.lastRealTime, -1)
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
	qs.totSeatsInUse += r.work.maxSeats()
	q.executing[r] = struct{}{}
	q.seatsInUse += r.work.maxSeats()
	qs.queuedSeatsInUse += r.work.maxSeats()
	qs.noteExecutingLocked(r, 1)
	q.nextDispatchR += r.totalWork
	return true
}

// findDispatchQueueLocked scans the queues round-robin from the one after the
// last dispatched and picks the first whose oldest request has the least
// virtual finish time; nil when its seats are not free.
func (qs *queueSet) findDispatchQueueLocked() (*queue, *qsRequest) {
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
	if !qs.canAccommodateLocked(r.work.maxSeats()) {
		qs.metrics.flow(r.fsName).noAccommodation.inc()
		return nil, nil
	}
	minQueue.remove(r)
	if r.work.FinalSeats > uint64(qs.limit) {
		// Final seats beyond the limit are narrowed, the work kept.
		r.work.FinalSeats = uint64(qs.limit)
		r.work.AdditionalLatency = r.finalWork.durationPerSeat(float64(qs.limit))
	}
	qs.robinIndex = minIndex
	return minQueue, r
}

// boundNextDispatchLocked is kube's anti-windup: a queue's next dispatch is
// never before its oldest request's arrival, virtually.
func (qs *queueSet) boundNextDispatchLocked(q *queue) {
	if r := q.oldest(); r != nil && q.nextDispatchR < r.arrivalR {
		q.nextDispatchR = r.arrivalR
	}
}

// wait blocks until r is decided, its wait limit passes or its client
// leaves. It returns whether r is to execute; a request that stops waiting
// leaves its queue, rejected as time-out (its limit passed) or cancelled (its
// client left).
func (r *qsRequest) wait(limit time.Duration) bool {
	reason := rejectCancelled
	select {
	case <-r.decided:
	default:
		t := r.qs.clock.NewTimer(limit)
		select {
		case <-r.decided:
		case <-r.ctx.Done():
		case <-t.C():
			reason = rejectTimeout
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
		qs.totSeatsWaiting -= r.work.maxSeats()
		r.noteQueued(false)
		qs.rejected++
		if reason == rejectCancelled {
			qs.cancelled++
		} else {
			qs.timedOut++
		}
		r.rejection = reason
		fm := qs.metrics.flow(r.fsName)
		fm.rejected(reason)
		fm.inqueue.add(-1)
		fm.inqueueSeats.add(-float64(r.work.maxSeats()))
		qs.metrics.waitingRatio.addAt(qs.lastRealTime, -1)
		qs.noteDemandLocked()
	}
	return false
}

// finish waits for r's turn, at most limit, and runs exec if it gets one,
// then releases its seats (the final seats after the additional latency) and
// dispatches what that lets through. It says whether exec ran.
func (r *qsRequest) finish(limit time.Duration, exec func()) bool {
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
func (qs *queueSet) finishRequest(r *qsRequest) {
	qs.lockAndSyncTime()
	defer qs.mu.Unlock()
	now := qs.lastRealTime
	qs.totRequestsExecuting--
	fm := qs.metrics.flow(r.fsName)
	fm.executing.add(-1)
	qs.metrics.executingRatio.addAt(qs.lastRealTime, -1)
	if q := r.queue; q != nil {
		delete(q.executing, r)
		if q.empty() {
			qs.activeQueues--
		}
		actual := now.Sub(r.start)
		q.nextDispatchR -= seatsTimesDuration(float64(r.work.InitialSeats), estimatedServiceDuration-actual)
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

func (qs *queueSet) releaseSeatsLocked(r *qsRequest) {
	seats := r.work.maxSeats()
	qs.totSeatsInUse -= seats
	qs.metrics.flow(r.fsName).executingSeats.add(-float64(seats))
	qs.metrics.seatRatio.addAt(qs.lastRealTime, -float64(seats))
	qs.noteDemandLocked()
	if q := r.queue; q != nil {
		q.seatsInUse -= seats
		qs.queuedSeatsInUse -= seats
		qs.removeQueueIfSurplusLocked(q)
	}
}

// removeQueueIfSurplusLocked drops an empty queue beyond the configured number.
func (qs *queueSet) removeQueueIfSurplusLocked(q *queue) {
	if len(qs.queues) <= qs.cfg.queues || !q.empty() {
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

// idle says whether nothing waits or executes.
func (qs *queueSet) idle() bool {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	return qs.totRequestsWaiting == 0 && qs.totRequestsExecuting == 0
}

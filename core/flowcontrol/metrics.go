package flowcontrol

import (
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"kubeplay/core/clock"
	"kubeplay/core/flowcontrol/fairqueuing"
)

// The metrics kube-apiserver 1.32 exports for API Priority and Fairness, with
// its names, help texts, types, labels and buckets (recorded in
// testdata/kube-metrics.txt), written in Prometheus's text format. A small
// registry of its own: Prometheus's Go client would add its dependencies to
// every browser's download, and only the exposition format matters here.
// kube 1.32 hides request_concurrency_limit and request_concurrency_in_use
// (deprecated in 1.30 and 1.31), so they are not shown either.

type metricType string

const (
	counterType   metricType = "counter"
	gaugeType     metricType = "gauge"
	histogramType metricType = "histogram"
)

// family is one metric: its series by label values.
type family struct {
	name, help string
	typ        metricType
	labels     []string  // label names, as kube declares them
	constLabel [2]string // a label every series carries (name, value), if any
	buckets    []float64
	timing     bool // a timing histogram: observations weighted by nanoseconds

	mu     sync.Mutex
	series map[string]*series
}

// series is one labelled value, or one histogram.
type series struct {
	f      *family
	values []string
	clock  clock.Clock

	value  float64   // counter, gauge; a timing histogram's current ratio numerator
	counts []float64 // histogram: per bucket (not cumulative)
	sum    float64
	count  float64
	denom  float64   // timing ratio histogram: the value observed is value/denom
	last   time.Time // timing histogram: when value last changed
}

// registry is the metrics of one Controller.
type registry struct {
	clock    clock.Clock
	families []*family
}

func (reg *registry) add(f *family) *family {
	f.series = map[string]*series{}
	reg.families = append(reg.families, f)
	return f
}

// with is the series of f with label values vs, created at zero.
func (f *family) with(clk clock.Clock, vs ...string) *series {
	key := strings.Join(vs, "\x00")
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.series[key]
	if s == nil {
		s = &series{f: f, values: vs, clock: clk, denom: 1, last: clk.Now()}
		if f.typ == histogramType {
			s.counts = make([]float64, len(f.buckets)+1)
		}
		f.series[key] = s
	}
	return s
}

// drop forgets the series of f whose label named label has value v (a priority
// level or FlowSchema that is gone).
func (f *family) drop(label, v string) {
	i := slices.Index(f.labels, label)
	if i < 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, s := range f.series {
		if s.values[i] == v {
			delete(f.series, k)
		}
	}
}

func (s *series) inc() { s.add(1) }

func (s *series) add(d float64) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.setLocked(s.value + d)
}

func (s *series) set(v float64) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.setLocked(v)
}

func (s *series) setLocked(v float64) {
	if s.f.timing {
		s.accrueLocked(s.clock.Now())
	}
	s.value = v
}

// addAt adds d to a timing histogram's value at now (the caller's clock
// reading, which saves reading it again).
func (s *series) addAt(now time.Time, d float64) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.accrueLocked(now)
	s.value += d
}

// setAt sets a timing histogram's value at now.
func (s *series) setAt(now time.Time, v float64) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.accrueLocked(now)
	s.value = v
}

// setDenominator changes what a timing ratio histogram divides by.
func (s *series) setDenominator(d float64) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.accrueLocked(s.clock.Now())
	s.denom = d
}

// accrueLocked credits the time since the last change, up to now, to the
// current ratio.
func (s *series) accrueLocked(now time.Time) {
	ns := float64(now.Sub(s.last))
	s.last = now
	if ns <= 0 {
		return
	}
	ratio := s.value / s.denom
	if s.denom == 0 {
		ratio = 0
	}
	s.counts[bucketOf(s.f.buckets, ratio)] += ns
	s.sum += ratio * ns
	s.count += ns
}

func (s *series) observe(v float64) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.counts[bucketOf(s.f.buckets, v)]++
	s.sum += v
	s.count++
}

func bucketOf(buckets []float64, v float64) int {
	for i, b := range buckets {
		if v <= b {
			return i
		}
	}
	return len(buckets)
}

// write writes every family in Prometheus's text format, families by name and
// series by their labels, as Prometheus's client orders them.
func (reg *registry) write(w io.Writer) error {
	fams := append([]*family(nil), reg.families...)
	slices.SortFunc(fams, func(a, b *family) int { return strings.Compare(a.name, b.name) })
	var b strings.Builder
	for _, f := range fams {
		f.writeTo(&b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (f *family) writeTo(b *strings.Builder) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.series) == 0 {
		return
	}
	b.WriteString("# HELP " + f.name + " " + f.help + "\n# TYPE " + f.name + " " + string(f.typ) + "\n")
	type row struct {
		labels string
		s      *series
	}
	rows := make([]row, 0, len(f.series))
	for _, s := range f.series {
		if f.timing {
			s.accrueLocked(s.clock.Now())
		}
		rows = append(rows, row{f.labelPairs(s.values), s})
	}
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.labels, b.labels) })
	for _, r := range rows {
		if f.typ != histogramType {
			b.WriteString(f.name + braces(r.labels) + " " + formatFloat(r.s.value) + "\n")
			continue
		}
		cum := 0.0
		for i, c := range r.s.counts {
			cum += c
			le := "+Inf"
			if i < len(f.buckets) {
				le = formatFloat(f.buckets[i])
			}
			b.WriteString(f.name + "_bucket" + braces(joinLabels(r.labels, `le="`+le+`"`)) + " " + formatFloat(cum) + "\n")
		}
		b.WriteString(f.name + "_sum" + braces(r.labels) + " " + formatFloat(r.s.sum) + "\n")
		b.WriteString(f.name + "_count" + braces(r.labels) + " " + formatFloat(r.s.count) + "\n")
	}
}

// labelPairs writes a series' labels sorted by name, as Prometheus does.
func (f *family) labelPairs(values []string) string {
	type pair struct{ name, value string }
	pairs := make([]pair, 0, len(values)+1)
	for i, n := range f.labels {
		pairs = append(pairs, pair{n, values[i]})
	}
	if f.constLabel[0] != "" {
		pairs = append(pairs, pair{f.constLabel[0], f.constLabel[1]})
	}
	slices.SortFunc(pairs, func(a, b pair) int { return strings.Compare(a.name, b.name) })
	parts := make([]string, len(pairs))
	for i, p := range pairs {
		parts[i] = p.name + "=" + strconv.Quote(p.value)
	}
	return strings.Join(parts, ",")
}

func joinLabels(a, b string) string {
	if a == "" {
		return b
	}
	return a + "," + b
}

func braces(labels string) string {
	if labels == "" {
		return ""
	}
	return "{" + labels + "}"
}

// formatFloat writes a value as Prometheus's text format does (Go's %g with
// shortest precision, +Inf and NaN spelled out).
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

const (
	plLabel = "priority_level"
	fsLabel = "flow_schema"
)

// metricSet is every APF metric family.
type metricSet struct {
	reg                                                         registry
	rejected, dispatched                                        *family
	inqueue, inqueueSeats, executing, executingSeats            *family
	waitDuration, executionSeconds, queueLength, workEstimated  *family
	watchCount, noAccommodation, epochAdvances                  *family
	currentR, nominal, lower, upper, current, target, fairFrac  *family
	demandHigh, demandAvg, demandStdev, demandSmoothed          *family
	requestUtilization, seatUtilization, demandSeats, readWrite *family
	currentInqueueKind                                          *family
}

var (
	durationBuckets = []float64{0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30}
	queueBuckets    = []float64{0, 10, 25, 50, 100, 250, 500, 1000}
)

func newMetricSet(clk clock.Clock) *metricSet {
	m := &metricSet{reg: registry{clock: clk}}
	r := &m.reg
	pl, plfs := []string{plLabel}, []string{plLabel, fsLabel}
	gauge := func(name, help string, labels []string) *family {
		return r.add(&family{name: "apiserver_flowcontrol_" + name, help: help, typ: gaugeType, labels: labels})
	}
	counter := func(name, help string, labels []string) *family {
		return r.add(&family{name: "apiserver_flowcontrol_" + name, help: help, typ: counterType, labels: labels})
	}
	histogram := func(name, help string, labels []string, buckets []float64) *family {
		return r.add(&family{name: "apiserver_flowcontrol_" + name, help: help, typ: histogramType, labels: labels, buckets: buckets})
	}
	timing := func(name, help string, labels []string, buckets []float64) *family {
		f := histogram(name, "EXPERIMENTAL: [ALPHA] "+help, labels, buckets)
		f.timing = true
		return f
	}
	m.rejected = counter("rejected_requests_total", "[BETA] Number of requests rejected by API Priority and Fairness subsystem", []string{plLabel, fsLabel, "reason"})
	m.dispatched = counter("dispatched_requests_total", "[BETA] Number of requests executed by API Priority and Fairness subsystem", plfs)
	m.inqueue = gauge("current_inqueue_requests", "[BETA] Number of requests currently pending in queues of the API Priority and Fairness subsystem", plfs)
	m.inqueueSeats = gauge("current_inqueue_seats", "[ALPHA] Number of seats currently pending in queues of the API Priority and Fairness subsystem", plfs)
	m.executing = gauge("current_executing_requests", "[BETA] Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem", plfs)
	m.executingSeats = gauge("current_executing_seats", "[BETA] Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem", plfs)
	m.waitDuration = histogram("request_wait_duration_seconds", "[BETA] Length of time a request spent waiting in its queue", []string{plLabel, fsLabel, "execute"}, durationBuckets)
	m.executionSeconds = histogram("request_execution_seconds", "[ALPHA] Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem", []string{plLabel, fsLabel, "type"}, durationBuckets)
	m.queueLength = histogram("request_queue_length_after_enqueue", "[ALPHA] Length of queue in the API Priority and Fairness subsystem, as seen by each request after it is enqueued", plfs, queueBuckets)
	m.workEstimated = histogram("work_estimated_seats", "[ALPHA] Number of estimated seats (maximum of initial and final seats) associated with requests in API Priority and Fairness", plfs, []float64{1, 2, 4, 10})
	m.watchCount = histogram("watch_count_samples", "[ALPHA] count of watchers for mutating requests in API Priority and Fairness", plfs, []float64{0, 1, 10, 100, 1000, 10000})
	m.noAccommodation = counter("request_dispatch_no_accommodation_total", "[ALPHA] Number of times a dispatch attempt resulted in a non accommodation due to lack of available seats", plfs)
	m.epochAdvances = counter("epoch_advance_total", "[ALPHA] Number of times the queueset's progress meter jumped backward", []string{plLabel, "success"})
	m.currentR = gauge("current_r", "[ALPHA] R(time of last change)", pl)
	m.nominal = gauge("nominal_limit_seats", "[BETA] Nominal number of execution seats configured for each priority level", pl)
	m.lower = gauge("lower_limit_seats", "[ALPHA] Configured lower bound on number of execution seats available to each priority level", pl)
	m.upper = gauge("upper_limit_seats", "[ALPHA] Configured upper bound on number of execution seats available to each priority level", pl)
	m.current = gauge("current_limit_seats", "[ALPHA] current derived number of execution seats available to each priority level", pl)
	m.target = gauge("target_seats", "[ALPHA] Seat allocation targets", pl)
	m.fairFrac = gauge("seat_fair_frac", "[ALPHA] Fair fraction of server's concurrency to allocate to each priority level that can use it", nil)
	m.demandHigh = gauge("demand_seats_high_watermark", "[ALPHA] High watermark, over last adjustment period, of demand_seats", pl)
	m.demandAvg = gauge("demand_seats_average", "[ALPHA] Time-weighted average, over last adjustment period, of demand_seats", pl)
	m.demandStdev = gauge("demand_seats_stdev", "[ALPHA] Time-weighted standard deviation, over last adjustment period, of demand_seats", pl)
	m.demandSmoothed = gauge("demand_seats_smoothed", "[ALPHA] Smoothed seat demands", pl)
	m.requestUtilization = timing("priority_level_request_utilization", "Observations, at the end of every nanosecond, of number of requests (as a fraction of the relevant limit) waiting or in any stage of execution (but only initial stage for WATCHes)", []string{"phase", plLabel}, []float64{0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.25, 0.5, 0.75, 1})
	m.seatUtilization = timing("priority_level_seat_utilization", "Observations, at the end of every nanosecond, of utilization of seats for any stage of execution (but only initial stage for WATCHes)", pl, []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1})
	m.seatUtilization.constLabel = [2]string{"phase", "executing"}
	m.demandSeats = timing("demand_seats", "Observations, at the end of every nanosecond, of (the number of seats each priority level could use) / (nominal number of seats for that level)", pl, []float64{0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.7, 2, 2.8, 4, 6})
	m.readWrite = timing("read_vs_write_current_requests", "Observations, at the end of every nanosecond, of the number of requests (as a fraction of the relevant limit) waiting or in regular stage of execution", []string{"phase", "request_kind"}, []float64{0, 0.001, 0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1})
	m.currentInqueueKind = r.add(&family{name: "apiserver_current_inqueue_requests", help: "[ALPHA] Maximal number of queued requests in this apiserver per request kind in last second.", typ: gaugeType, labels: []string{"request_kind"}})
	return m
}

// levelMetrics are one priority level's series.
type levelMetrics struct {
	set   *metricSet
	clock clock.Clock
	name  string

	currentR, epochAdvances                          *series
	waitingRatio, executingRatio, seatRatio, demandR *series
	demand                                           demandGauge

	mu    sync.Mutex
	flows map[string]*flowMetrics
}

// demandGauge is the seat demand: integrated for borrowing, and observed as a
// ratio to the nominal limit.
type demandGauge struct {
	integrator *integrator
	ratio      *series
}

func (d demandGauge) set(v float64) { d.setAt(d.ratio.clock.Now(), v) }

func (d demandGauge) setAt(now time.Time, v float64) {
	d.integrator.setAt(now, v)
	d.ratio.setAt(now, v)
}

func (m *metricSet) level(clk clock.Clock, name string) *levelMetrics {
	lm := &levelMetrics{set: m, clock: clk, name: name, flows: map[string]*flowMetrics{},
		currentR:       m.currentR.with(clk, name),
		epochAdvances:  m.epochAdvances.with(clk, name, "true"),
		waitingRatio:   m.requestUtilization.with(clk, "waiting", name),
		executingRatio: m.requestUtilization.with(clk, "executing", name),
		seatRatio:      m.seatUtilization.with(clk, name),
		demandR:        m.demandSeats.with(clk, name),
	}
	lm.demand = demandGauge{integrator: newIntegrator(clk), ratio: lm.demandR}
	return lm
}

// flowMetrics are the series of one priority level and FlowSchema.
type flowMetrics struct {
	lm                                                      *levelMetrics
	fs                                                      string
	inqueue, inqueueSeats, executing, executingSeats        *series
	dispatched, noAccommodation, queueLength, workEstimated *series
	waitedTrue, waitedFalse, execRegular, execWatch         *series
}

func (lm *levelMetrics) flow(fs string) *flowMetrics {
	lm.mu.Lock()
	defer lm.mu.Unlock()
	fm := lm.flows[fs]
	if fm == nil {
		m, c, pl := lm.set, lm.clock, lm.name
		fm = &flowMetrics{lm: lm, fs: fs,
			inqueue: m.inqueue.with(c, pl, fs), inqueueSeats: m.inqueueSeats.with(c, pl, fs),
			executing: m.executing.with(c, pl, fs), executingSeats: m.executingSeats.with(c, pl, fs),
			dispatched: m.dispatched.with(c, pl, fs), noAccommodation: m.noAccommodation.with(c, pl, fs),
			queueLength: m.queueLength.with(c, pl, fs), workEstimated: m.workEstimated.with(c, pl, fs),
			waitedTrue: m.waitDuration.with(c, pl, fs, "true"), waitedFalse: m.waitDuration.with(c, pl, fs, "false"),
			execRegular: m.executionSeconds.with(c, pl, fs, "regular"), execWatch: m.executionSeconds.with(c, pl, fs, "watch"),
		}
		lm.flows[fs] = fm
	}
	return fm
}

// The level's metrics as its queues report to them (fairqueuing.Metrics).

func (lm *levelMetrics) SetCurrentR(r float64)                 { lm.currentR.set(r) }
func (lm *levelMetrics) AdvanceEpoch()                         { lm.epochAdvances.inc() }
func (lm *levelMetrics) AddWaiting(now time.Time, d float64)   { lm.waitingRatio.addAt(now, d) }
func (lm *levelMetrics) AddExecuting(now time.Time, d float64) { lm.executingRatio.addAt(now, d) }
func (lm *levelMetrics) AddSeats(now time.Time, d float64)     { lm.seatRatio.addAt(now, d) }
func (lm *levelMetrics) SetDemand(now time.Time, seats float64) {
	lm.demand.setAt(now, seats)
}
func (lm *levelMetrics) Flow(fs string) fairqueuing.FlowMetrics { return lm.flow(fs) }

// The flow's metrics as its level's queues report to them
// (fairqueuing.FlowMetrics).

func (fm *flowMetrics) Reject(reason fairqueuing.Rejection) {
	fm.lm.set.rejected.with(fm.lm.clock, fm.lm.name, fm.fs, string(reason)).inc()
}

func (fm *flowMetrics) AddWaiting(requests, seats float64) {
	fm.inqueue.add(requests)
	fm.inqueueSeats.add(seats)
}

func (fm *flowMetrics) ObserveQueueLength(n int)        { fm.queueLength.observe(float64(n)) }
func (fm *flowMetrics) AddExecuting(requests float64)   { fm.executing.add(requests) }
func (fm *flowMetrics) AddExecutingSeats(seats float64) { fm.executingSeats.add(seats) }
func (fm *flowMetrics) NoAccommodation()                { fm.noAccommodation.inc() }

func (fm *flowMetrics) waited(executed bool, d time.Duration) {
	s := fm.waitedFalse
	if executed {
		s = fm.waitedTrue
	}
	s.observe(d.Seconds())
}

func (fm *flowMetrics) executed(watch bool, d time.Duration) {
	s := fm.execRegular
	if watch {
		s = fm.execWatch
	}
	s.observe(d.Seconds())
}

// requestKinds counts the requests waiting and executing by kind, mutating or
// read-only, as kube's filter does for read_vs_write_current_requests and for
// apiserver_current_inqueue_requests (the most waiting in the last second).
type requestKinds struct {
	clock clock.Clock
	m     *metricSet

	mu          sync.Mutex
	waiting     [2]int
	peak        [2]int
	windowStart time.Time
	// the read_vs_write series, by phase (waiting, executing) and kind; set
	// once, so read without the lock
	series [2][2]*series
}

// kindNames are the request_kind label's values.
var kindNames = [2]string{"mutating", "readOnly"}

// kindOf is 1 for kube's non-mutating verbs, 0 otherwise.
func kindOf(verb string) int {
	if verb == "get" || verb == "list" || verb == "watch" {
		return 1
	}
	return 0
}

func (k *requestKinds) waitingDelta(now time.Time, kind, d int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.waiting[kind] += d
	if now.Sub(k.windowStart) >= time.Second {
		for i := range k.peak {
			k.m.currentInqueueKind.with(k.clock, kindNames[i]).set(float64(k.peak[i]))
			k.peak[i] = k.waiting[i]
		}
		k.windowStart = now
	}
	k.peak[kind] = max(k.peak[kind], k.waiting[kind])
	k.series[0][kind].addAt(now, float64(d))
}

func (k *requestKinds) executingDelta(now time.Time, kind, d int) {
	k.series[1][kind].addAt(now, float64(d))
}

func newRequestKinds(clk clock.Clock, m *metricSet) *requestKinds {
	k := &requestKinds{clock: clk, m: m}
	for i, n := range kindNames {
		k.series[0][i] = m.readWrite.with(clk, "waiting", n)
		k.series[1][i] = m.readWrite.with(clk, "executing", n)
		m.currentInqueueKind.with(clk, n)
	}
	return k
}

// setLimits sets the ratios' denominators: all the queues' room, and the seats.
func (k *requestKinds) setLimits(waiting, executing int) {
	for i := range kindNames {
		k.series[0][i].setDenominator(float64(waiting))
		k.series[1][i].setDenominator(float64(executing))
	}
}

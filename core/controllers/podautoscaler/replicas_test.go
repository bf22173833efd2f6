package podautoscaler

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// upstream is the calculator kube's replica calculator tests configure
// (pkg/controller/podautoscaler: defaultTesting*).
var upstream = calculator{tolerance: 0.1, cpuInitializationPeriod: 2 * time.Minute, initialReadinessDelay: 10 * time.Second}

// calcCase is one of kube's replicaCalcTestCases for a resource metric:
// Pods of two containers, each requesting request[i] (cores) and using
// levels[i] (millicores, each container); the metrics' timestamp is the
// zero time with a one-minute window, the Ready conditions' transition
// times are zero, and a Pod without a start time given started at the zero
// time, as kube's tests build them.
type calcCase struct {
	name            string
	current, want   int32
	ready           []string // "True" by default
	phase           []string // "Running" by default
	deleting        []bool
	started         []string // "hot" (now), "cool" (3 minutes ago); zero by default
	requests        []float64
	levels          []int64
	target          int32 // utilization; 0: targetValue (milli) is an average value target
	targetValue     int64
	wantUtilization int32
	wantAverage     int64
	wantErr         string
}

func (c calcCase) run(t *testing.T) {
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	n := int(c.current)
	n = max(n, len(c.phase))
	var pods []podInfo
	for i := range n {
		p := podInfo{name: fmt.Sprintf("test-pod-%d", i), ready: "True", phase: "Running", hasStarted: true}
		if i < len(c.ready) {
			p.ready = c.ready[i]
		}
		if i < len(c.phase) {
			p.phase = c.phase[i]
		}
		if i < len(c.deleting) {
			p.deleting = c.deleting[i]
		}
		if i < len(c.started) {
			p.started = map[string]time.Time{"hot": now, "cool": now.Add(-3 * time.Minute)}[c.started[i]]
		}
		if i < len(c.requests) {
			p.request = 2 * int64(c.requests[i]*1000)
		} else {
			p.requestMissingIn = "container1"
		}
		pods = append(pods, p)
	}
	metrics := map[string]podMetric{}
	for i, level := range c.levels {
		metrics[fmt.Sprintf("test-pod-%d", i)] = podMetric{value: 2 * level, window: time.Minute}
	}
	var target *int32
	if c.target != 0 {
		target = &c.target
	}
	got, utilization, average, err := upstream.resourceReplicas(c.current, pods, metrics, "cpu", target, c.targetValue, now)
	if c.wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Fatalf("error %v, want %q", err, c.wantErr)
		}
		return
	}
	if err != nil || got != c.want || utilization != c.wantUtilization || average != c.wantAverage {
		t.Errorf("replicas %d, utilization %d, average %d, error %v; want %d, %d, %d", got, utilization, average, err, c.want, c.wantUtilization, c.wantAverage)
	}
}

// TestCONF_1_ReplicaCalculatorAsKube: kube's replica calculator tests of a
// CPU utilization target (TestReplicaCalc*), their Pods, metrics and
// answers.
func TestCONF_1_ReplicaCalculatorAsKube(t *testing.T) {
	one := func(n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = 1
		}
		return out
	}
	for _, c := range []calcCase{
		{name: "ScaleUp", current: 3, want: 5, requests: one(3), levels: []int64{300, 500, 700}, target: 30, wantUtilization: 50, wantAverage: 1000},
		{name: "ScaleUpUnreadyLessScale", current: 3, want: 4, ready: []string{"False", "True", "True"}, requests: one(3), levels: []int64{300, 500, 700}, target: 30, wantUtilization: 60, wantAverage: 1200},
		{name: "ScaleUpHotCpuLessScale", current: 3, want: 4, started: []string{"hot", "cool", "cool"}, requests: one(3), levels: []int64{300, 500, 700}, target: 30, wantUtilization: 60, wantAverage: 1200},
		{name: "ScaleUpUnreadyNoScale", current: 3, want: 3, ready: []string{"True", "False", "False"}, requests: one(3), levels: []int64{400, 500, 700}, target: 30, wantUtilization: 40, wantAverage: 800},
		{name: "ScaleHotCpuNoScale", current: 3, want: 3, ready: []string{"True", "False", "False"}, started: []string{"cool", "hot", "hot"}, requests: one(3), levels: []int64{400, 500, 700}, target: 30, wantUtilization: 40, wantAverage: 800},
		{name: "ScaleUpIgnoresFailedPods", current: 2, want: 4, ready: []string{"True", "True", "False", "False"}, phase: []string{"Running", "Running", "Failed", "Failed"}, requests: one(4), levels: []int64{500, 700}, target: 30, wantUtilization: 60, wantAverage: 1200},
		{name: "ScaleUpIgnoresDeletionPods", current: 2, want: 4, ready: []string{"True", "True", "False", "False"}, deleting: []bool{false, false, true, true}, phase: []string{"Running", "Running", "Running", "Running"}, requests: one(4), levels: []int64{500, 700}, target: 30, wantUtilization: 60, wantAverage: 1200},
		{name: "ScaleDown", current: 5, want: 3, requests: one(5), levels: []int64{100, 300, 500, 250, 250}, target: 50, wantUtilization: 28, wantAverage: 560},
		{name: "ScaleDownExcludeUnreadyPods", current: 5, want: 2, ready: []string{"True", "True", "True", "False", "False"}, requests: one(5), levels: []int64{100, 300, 500, 250, 250}, target: 50, wantUtilization: 30, wantAverage: 600},
		{name: "ScaleDownExcludeUnscheduledPods", current: 5, want: 1, ready: []string{"True", "False", "False", "False", "False"}, phase: []string{"Running", "Pending", "Pending", "Pending", "Pending"}, requests: one(5), levels: []int64{100}, target: 50, wantUtilization: 10, wantAverage: 200},
		{name: "ScaleDownIgnoreHotCpuPods", current: 5, want: 2, started: []string{"cool", "cool", "cool", "hot", "hot"}, requests: one(5), levels: []int64{100, 300, 500, 250, 250}, target: 50, wantUtilization: 30, wantAverage: 600},
		{name: "ScaleDownIgnoresFailedPods", current: 5, want: 3, ready: []string{"True", "True", "True", "True", "True", "False", "False"}, phase: []string{"Running", "Running", "Running", "Running", "Running", "Failed", "Failed"}, requests: one(7), levels: []int64{100, 300, 500, 250, 250}, target: 50, wantUtilization: 28, wantAverage: 560},
		{name: "ScaleDownIgnoresDeletionPods", current: 5, want: 3, ready: []string{"True", "True", "True", "True", "True", "False", "False"}, phase: []string{"Running", "Running", "Running", "Running", "Running", "Running", "Running"}, deleting: []bool{false, false, false, false, false, true, true}, requests: one(7), levels: []int64{100, 300, 500, 250, 250}, target: 50, wantUtilization: 28, wantAverage: 560},
		{name: "Tolerance", current: 3, want: 3, requests: []float64{0.9, 1.0, 1.1}, levels: []int64{1010, 1030, 1020}, target: 100, wantUtilization: 102, wantAverage: 2040},
		{name: "SuperfluousMetrics", current: 4, want: 24, requests: one(4), levels: []int64{4000, 9500, 3000, 7000, 3200, 2000}, target: 100, wantUtilization: 587, wantAverage: 11750},
		{name: "MissingMetrics", current: 4, want: 3, requests: one(4), levels: []int64{400, 95}, target: 100, wantUtilization: 24, wantAverage: 495},
		{name: "EmptyCPURequest", current: 1, requests: nil, levels: []int64{200}, target: 100, wantErr: "missing request for"},
		{name: "MissingMetricsNoChangeEq", current: 2, want: 2, requests: one(2), levels: []int64{1000}, target: 100, wantUtilization: 100, wantAverage: 2000},
		{name: "MissingMetricsNoChangeGt", current: 2, want: 2, requests: one(2), levels: []int64{1900}, target: 100, wantUtilization: 190, wantAverage: 3800},
		{name: "MissingMetricsNoChangeLt", current: 2, want: 2, requests: one(2), levels: []int64{600}, target: 100, wantUtilization: 60, wantAverage: 1200},
		{name: "MissingMetricsUnreadyChange", current: 3, want: 3, ready: []string{"False", "True", "True"}, requests: one(3), levels: []int64{100, 450}, target: 50, wantUtilization: 45, wantAverage: 900},
		{name: "MissingMetricsHotCpuNoChange", current: 3, want: 3, started: []string{"hot", "cool", "cool"}, requests: one(3), levels: []int64{100, 450}, target: 50, wantUtilization: 45, wantAverage: 900},
		{name: "MissingMetricsUnreadyScaleUp", current: 3, want: 4, ready: []string{"False", "True", "True"}, requests: one(3), levels: []int64{100, 2000}, target: 50, wantUtilization: 200, wantAverage: 4000},
		{name: "MissingMetricsHotCpuScaleUp", current: 3, want: 4, ready: []string{"False", "True", "True"}, started: []string{"hot", "cool", "cool"}, requests: one(3), levels: []int64{100, 2000}, target: 50, wantUtilization: 200, wantAverage: 4000},
		{name: "MissingMetricsUnreadyScaleDown", current: 4, want: 3, ready: []string{"False", "True", "True", "True"}, requests: one(4), levels: []int64{100, 100, 100}, target: 50, wantUtilization: 10, wantAverage: 200},
		{name: "MissingMetricsScaleDownTargetOver100", current: 4, want: 2, ready: []string{"False", "True", "True", "True"}, requests: []float64{1, 1, 2, 2}, levels: []int64{200, 100, 100}, target: 300, wantUtilization: 6, wantAverage: 200},
		{name: "DuringRollingUpdateWithMaxSurge", current: 2, want: 2, phase: []string{"Running", "Running", "Running"}, requests: one(3), levels: []int64{100, 100}, target: 50, wantUtilization: 10, wantAverage: 200},
		// An average value target (kube's plain metric calculation, which
		// ignores readiness for any metric but CPU utilization; here the
		// Pods' summed levels against targetValue).
		{name: "AverageValueScaleUp", current: 3, want: 4, requests: one(3), levels: []int64{10000, 5000, 15000}, targetValue: 15000, wantAverage: 20000},
		{name: "AverageValueScaleDown", current: 5, want: 3, requests: one(5), levels: []int64{6000, 6000, 6000, 6000, 6000}, targetValue: 20000, wantAverage: 12000},
		{name: "AverageValueTolerance", current: 3, want: 3, requests: one(3), levels: []int64{10200, 10300, 10100}, targetValue: 20000, wantAverage: 20400},
	} {
		t.Run(c.name, c.run)
	}
}

// TestCONF_1_StabilizationAsKube: kube's TestNormalizeDesiredReplicasWithBehavior
// cases (the stabilized count and the recommendations kept), and its
// scale limits of the Min policy.
func TestCONF_1_StabilizationAsKube(t *testing.T) {
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	for _, c := range []struct {
		name            string
		recs            []recommendation
		current         int32
		desired, want   int32
		up, down        int32
		wantRecommended []int32
	}{
		{"empty recommendations for scaling down", nil, 100, 5, 5, 0, 0, []int32{5}},
		{"simple scale down stabilization", []recommendation{{4, ago(2 * time.Minute)}, {5, ago(time.Minute)}}, 100, 3, 5, 0, 180, []int32{4, 5, 3}},
		{"simple scale up stabilization", []recommendation{{4, ago(2 * time.Minute)}, {5, ago(time.Minute)}}, 1, 7, 4, 300, 0, []int32{4, 5, 7}},
		{"no scale down stabilization", []recommendation{{1, ago(2 * time.Minute)}, {2, ago(time.Minute)}}, 100, 3, 3, 300, 0, []int32{1, 2, 3}},
		{"no scale up stabilization", []recommendation{{4, ago(2 * time.Minute)}, {5, ago(time.Minute)}}, 1, 3, 3, 0, 300, []int32{4, 5, 3}},
		{"no scale down stabilization, reuse recommendation element", []recommendation{{10, ago(10 * time.Minute)}, {9, ago(9 * time.Minute)}}, 100, 3, 3, 0, 0, []int32{10, 3}},
		{"no scale up stabilization, reuse recommendation element", []recommendation{{10, ago(10 * time.Minute)}, {9, ago(9 * time.Minute)}}, 1, 100, 100, 0, 0, []int32{10, 100}},
		{"scale down stabilization, reuse one of obsolete recommendation element", []recommendation{{10, ago(10 * time.Minute)}, {4, ago(time.Minute)}, {5, ago(2 * time.Minute)}, {9, ago(9 * time.Minute)}}, 100, 3, 5, 0, 180, []int32{10, 4, 5, 3}},
		{"scale up stabilization, reuse one of obsolete recommendation element", []recommendation{{10, ago(100 * time.Minute)}, {6, ago(time.Minute)}, {5, ago(2 * time.Minute)}, {9, ago(3 * time.Minute)}}, 1, 100, 5, 300, 0, []int32{100, 6, 5, 9}},
		{"scale up and down stabilization, do not scale up when prenormalized rec goes down", []recommendation{{2, ago(100 * time.Minute)}, {3, ago(3 * time.Minute)}}, 2, 1, 2, 300, 300, nil},
		{"scale up and down stabilization, do not scale down when prenormalized rec goes up", []recommendation{{2, ago(100 * time.Minute)}, {1, ago(3 * time.Minute)}}, 2, 3, 2, 300, 300, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &history{recommendations: append([]recommendation(nil), c.recs...)}
			if got := h.stabilize(c.up, c.down, c.current, c.desired, now); got != c.want {
				t.Errorf("stabilized %d, want %d", got, c.want)
			}
			if c.wantRecommended == nil {
				return
			}
			var kept []int32
			for _, r := range h.recommendations {
				kept = append(kept, r.replicas)
			}
			if fmt.Sprint(kept) != fmt.Sprint(c.wantRecommended) {
				t.Errorf("recommendations %v, want %v", kept, c.wantRecommended)
			}
		})
	}
	minPolicy := "Min"
	r := rules{SelectPolicy: &minPolicy, Policies: []policy{{"Pods", 2, 60}, {"Percent", 50, 60}}}
	h := &history{}
	if got := h.scaleUpLimit(1, r, now); got != 2 {
		t.Errorf("scale-up limit %d, want 2 (kube's TestCalculateScaleUpLimitWithScalingRules)", got)
	}
	if got := h.scaleDownLimit(5, r, now); got != 3 {
		t.Errorf("scale-down limit %d, want 3 (kube's TestCalculateScaleDownLimitWithBehaviors)", got)
	}
}

// TestCONF_1_NormalizeAsKube: without behavior, a recommendation is held
// by the 300 s downscale window and to twice the current count (4 at
// least), between min and max, with the ScalingLimited reasons kube gives;
// with behavior, the policies' rate over the rescales of their period.
func TestCONF_1_NormalizeAsKube(t *testing.T) {
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	h := &history{recommendations: []recommendation{{8, now.Add(-4 * time.Minute)}}}
	if l := h.normalize(8, 2, 1, 10, now); l.replicas != 8 || l.ableReason != "ScaleDownStabilized" || l.limited {
		t.Errorf("within the window: %+v", l)
	}
	if l := h.normalize(8, 2, 1, 10, now.Add(2*time.Minute)); l.replicas != 2 || l.ableReason != "ReadyForNewScale" || l.limitedReason != "DesiredWithinRange" {
		t.Errorf("past the window: %+v", l)
	}
	h = &history{}
	if l := h.normalize(1, 9, 1, 10, now); l.replicas != 4 || l.limitedReason != "ScaleUpLimit" || !l.limited {
		t.Errorf("scale-up limit: %+v", l)
	}
	if l := h.normalize(3, 9, 1, 5, now); l.replicas != 5 || l.limitedReason != "TooManyReplicas" {
		t.Errorf("max: %+v", l)
	}
	h = &history{}
	if l := h.normalize(3, 0, 2, 5, now); l.replicas != 2 || l.limitedReason != "TooFewReplicas" {
		t.Errorf("min: %+v", l)
	}

	// kube's defaults for a behavior's scale-up: 4 Pods or 100% each 15 s.
	zero, maxPolicy := int32(0), "Max"
	up := rules{StabilizationWindowSeconds: &zero, SelectPolicy: &maxPolicy, Policies: []policy{{"Pods", 4, 15}, {"Percent", 100, 15}}}
	down := rules{SelectPolicy: &maxPolicy, Policies: []policy{{"Pods", 1, 60}}}
	h = &history{}
	l := h.normalizeWithBehavior(up, down, 2, 20, 1, 30, now)
	if l.replicas != 6 || l.limitedReason != "ScaleUpLimit" {
		t.Fatalf("first scale-up: %+v", l)
	}
	h.storeScaleEvent(up, 2, 6, now)
	// Within the period the 4 Pods added count: 2+4 at most, so no more.
	if l := h.normalizeWithBehavior(up, down, 6, 20, 1, 30, now.Add(5*time.Second)); l.replicas != 6 {
		t.Errorf("within the period: %+v", l)
	}
	// Past it, 100% of 6.
	if l := h.normalizeWithBehavior(up, down, 6, 20, 1, 30, now.Add(20*time.Second)); l.replicas != 12 {
		t.Errorf("past the period: %+v", l)
	}
	// Scaling down: the default 300 s window, then one Pod a minute.
	h = &history{}
	if l := h.normalizeWithBehavior(up, down, 10, 2, 1, 30, now); l.replicas != 9 || l.limitedReason != "ScaleDownLimit" {
		t.Errorf("scale-down: %+v", l)
	}
}

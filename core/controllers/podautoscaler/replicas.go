package podautoscaler

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// kube-controller-manager's defaults for the autoscaler
// (--horizontal-pod-autoscaler-*).
const (
	syncPeriod             = 15 * time.Second
	downscaleStabilization = 5 * time.Minute
	scaleUpLimitFactor     = 2.0
	scaleUpLimitMinimum    = 4.0
)

// calculator is kube's ReplicaCalculator's configuration.
type calculator struct {
	tolerance               float64
	cpuInitializationPeriod time.Duration
	initialReadinessDelay   time.Duration
}

// kcm is kube-controller-manager's default calculator.
var kcm = calculator{tolerance: 0.1, cpuInitializationPeriod: 5 * time.Minute, initialReadinessDelay: 30 * time.Second}

// podInfo is what the replica calculation reads of a Pod the target's
// selector selects.
type podInfo struct {
	name     string
	deleting bool
	phase    string
	// ready is the Ready condition's status ("" when it has none), changed
	// when it last changed; started, the Pod's startTime, when it has one.
	ready            string
	readyChanged     time.Time
	started          time.Time
	hasStarted       bool
	request          int64 // the summed request of the resource, in milli-units
	requestMissingIn string
}

// podMetric is one Pod's usage of a resource (milli-units), as the metrics
// API gave it.
type podMetric struct {
	value     int64
	timestamp time.Time
	window    time.Duration
}

// groupPods is kube's groupPods: the Pods counted ready, and the names of
// those unready (Pending, or for CPU not yet past their initialisation),
// missing metrics, and ignored (deleting or Failed).
func (c calculator) groupPods(pods []podInfo, metrics map[string]podMetric, cpu bool, now time.Time) (ready int, unready, missing, ignored map[string]bool) {
	unready, missing, ignored = map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, p := range pods {
		if p.deleting || p.phase == "Failed" {
			ignored[p.name] = true
			continue
		}
		if p.phase == "Pending" {
			unready[p.name] = true
			continue
		}
		m, ok := metrics[p.name]
		if !ok {
			missing[p.name] = true
			continue
		}
		if cpu {
			var isUnready bool
			switch {
			case p.ready == "" || !p.hasStarted:
				isUnready = true
			case p.started.Add(c.cpuInitializationPeriod).After(now):
				isUnready = p.ready == "False" || m.timestamp.Before(p.readyChanged.Add(m.window))
			default:
				isUnready = p.ready == "False" && p.started.Add(c.initialReadinessDelay).After(p.readyChanged)
			}
			if isUnready {
				unready[p.name] = true
				continue
			}
		}
		ready++
	}
	return ready, unready, missing, ignored
}

// utilizationRatio is kube's GetResourceUtilizationRatio: the metrics'
// total over the requests' of the Pods that have both, as a whole
// percentage, over the target; and the average raw value.
func utilizationRatio(metrics map[string]podMetric, requests map[string]int64, target int32) (ratio float64, utilization int32, average int64, err error) {
	var metricsTotal, requestsTotal int64
	n := 0
	for name, m := range metrics {
		request, ok := requests[name]
		if !ok {
			continue
		}
		metricsTotal += m.value
		requestsTotal += request
		n++
	}
	if requestsTotal == 0 {
		return 0, 0, 0, errors.New("no metrics returned matched known pods")
	}
	utilization = int32(metricsTotal * 100 / requestsTotal)
	return float64(utilization) / float64(target), utilization, metricsTotal / int64(n), nil
}

// usageRatio is kube's GetMetricUsageRatio: the average over the target.
func usageRatio(metrics map[string]podMetric, target int64) (float64, int64) {
	var total int64
	for _, m := range metrics {
		total += m.value
	}
	average := total / int64(len(metrics))
	return float64(average) / float64(target), average
}

// resourceReplicas is kube's ReplicaCalculator for a resource metric: the
// replica count that brings the Pods' usage to the target (a utilization
// when targetUtilization is set, else an average value in milli-units),
// held at current within the tolerance, with missing and unready Pods
// counted as kube counts them. It returns the utilization (0 for an
// average value target) and the average usage.
func (c calculator) resourceReplicas(current int32, pods []podInfo, metrics map[string]podMetric, resource string, targetUtilization *int32, targetValue int64, now time.Time) (replicas, utilization int32, average int64, err error) {
	if len(pods) == 0 {
		return 0, 0, 0, errors.New("no pods returned by selector while calculating replica count")
	}
	ready, unready, missing, ignored := c.groupPods(pods, metrics, resource == "cpu", now)
	for name := range ignored {
		delete(metrics, name)
	}
	for name := range unready {
		delete(metrics, name)
	}
	if len(metrics) == 0 {
		return 0, 0, 0, errors.New("did not receive metrics for targeted pods (pods might be unready)")
	}
	requests := map[string]int64{}
	if targetUtilization != nil {
		for _, p := range pods {
			if p.requestMissingIn != "" {
				return 0, 0, 0, fmt.Errorf("missing request for %s in container %s of Pod %s", resource, p.requestMissingIn, p.name)
			}
			requests[p.name] = p.request
		}
	}
	ratio := func() (float64, error) {
		if targetUtilization == nil {
			r, avg := usageRatio(metrics, targetValue)
			average = avg
			return r, nil
		}
		r, u, avg, err := utilizationRatio(metrics, requests, *targetUtilization)
		utilization, average = u, avg
		return r, err
	}
	ratio0, err := ratio()
	if err != nil {
		return 0, 0, 0, err
	}
	u0, avg0 := utilization, average
	scaleUpWithUnready := len(unready) > 0 && ratio0 > 1.0
	if !scaleUpWithUnready && len(missing) == 0 {
		if math.Abs(1.0-ratio0) <= c.tolerance {
			return current, u0, avg0, nil
		}
		return int32(math.Ceil(ratio0 * float64(ready))), u0, avg0, nil
	}
	if len(missing) > 0 {
		for name := range missing {
			switch {
			case ratio0 < 1.0 && targetUtilization != nil:
				// on a scale-down, a missing Pod uses all its request (or the target, above 100%)
				metrics[name] = podMetric{value: requests[name] * int64(max(100, *targetUtilization)) / 100}
			case ratio0 < 1.0:
				metrics[name] = podMetric{value: targetValue}
			case ratio0 > 1.0:
				metrics[name] = podMetric{value: 0}
			}
		}
	}
	if scaleUpWithUnready {
		for name := range unready {
			metrics[name] = podMetric{value: 0}
		}
	}
	ratio1, err := ratio()
	if err != nil {
		return 0, u0, avg0, err
	}
	if math.Abs(1.0-ratio1) <= c.tolerance || (ratio0 < 1.0 && ratio1 > 1.0) || (ratio0 > 1.0 && ratio1 < 1.0) {
		return current, u0, avg0, nil
	}
	replicas = int32(math.Ceil(ratio1 * float64(len(metrics))))
	if (ratio1 < 1.0 && replicas > current) || (ratio1 > 1.0 && replicas < current) {
		return current, u0, avg0, nil
	}
	return replicas, u0, avg0, nil
}

// recommendation is a desired replica count the autoscaler computed, and
// when.
type recommendation struct {
	replicas int32
	at       time.Time
}

// scaleEvent is a rescale: by how many replicas, when; outdated ones are
// reused.
type scaleEvent struct {
	change   int32
	at       time.Time
	outdated bool
}

// history is what the autoscaler remembers of one HorizontalPodAutoscaler
// between syncs, as kube's controller does in memory: its recent
// recommendations and rescales.
type history struct {
	recommendations []recommendation
	ups, downs      []scaleEvent
}

// limits is what normalizing a recommendation says: the count, and the
// AbleToScale and ScalingLimited conditions' reasons and messages.
type limits struct {
	replicas                      int32
	ableReason, ableMessage       string
	limitedReason, limitedMessage string
	limited                       bool
}

// normalize is kube's normalizeDesiredReplicas, for an autoscaler without
// behavior: the highest recommendation of the downscale stabilization
// window, then held between min and max and to twice the current count (4
// at least).
func (h *history) normalize(current, desired, minReplicas, maxReplicas int32, now time.Time) limits {
	stabilized := desired
	cutoff := now.Add(-downscaleStabilization)
	old := -1
	for i, r := range h.recommendations {
		if r.at.Before(cutoff) {
			old = i
		} else if r.replicas > stabilized {
			stabilized = r.replicas
		}
	}
	h.record(old, recommendation{desired, now})
	l := limits{ableReason: "ReadyForNewScale", ableMessage: "recommended size matches current size"}
	if stabilized != desired {
		l.ableReason, l.ableMessage = "ScaleDownStabilized", "recent recommendations were higher than current one, applying the highest recent recommendation"
	}
	upLimit := int32(math.Max(scaleUpLimitFactor*float64(current), scaleUpLimitMinimum))
	maxAllowed, reason, message := maxReplicas, "TooManyReplicas", "the desired replica count is more than the maximum replica count"
	if maxReplicas > upLimit {
		maxAllowed, reason, message = upLimit, "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate"
	}
	l.replicas, l.limitedReason, l.limitedMessage = stabilized, "DesiredWithinRange", "the desired count is within the acceptable range"
	switch {
	case stabilized < minReplicas:
		l.replicas, l.limitedReason, l.limitedMessage = minReplicas, "TooFewReplicas", "the desired replica count is less than the minimum replica count"
	case stabilized > maxAllowed:
		l.replicas, l.limitedReason, l.limitedMessage = maxAllowed, reason, message
	}
	l.limited = l.replicas != stabilized
	return l
}

// record keeps r, in the place of the outdated recommendation at old (-1:
// none).
func (h *history) record(old int, r recommendation) {
	if old >= 0 {
		h.recommendations[old] = r
	} else {
		h.recommendations = append(h.recommendations, r)
	}
}

// rules are a behavior's HPAScalingRules, defaults applied.
type rules struct {
	StabilizationWindowSeconds *int32   `json:"stabilizationWindowSeconds,omitempty"`
	SelectPolicy               *string  `json:"selectPolicy,omitempty"`
	Policies                   []policy `json:"policies,omitempty"`
}

// policy is an HPAScalingPolicy.
type policy struct {
	Type          string `json:"type"`
	Value         int32  `json:"value"`
	PeriodSeconds int32  `json:"periodSeconds"`
}

// normalizeWithBehavior is kube's normalizeDesiredReplicasWithBehaviors:
// the recommendation stabilized within each direction's window, then held
// between min and max and to the rate the policies allow.
func (h *history) normalizeWithBehavior(up, down rules, current, desired, minReplicas, maxReplicas int32, now time.Time) limits {
	if down.StabilizationWindowSeconds == nil {
		w := int32(downscaleStabilization.Seconds())
		down.StabilizationWindowSeconds = &w
	}
	stabilized := h.stabilize(*up.StabilizationWindowSeconds, *down.StabilizationWindowSeconds, current, desired, now)
	l := limits{ableReason: "ReadyForNewScale", ableMessage: "recommended size matches current size"}
	if stabilized != desired {
		if desired >= current {
			l.ableReason, l.ableMessage = "ScaleUpStabilized", "recent recommendations were lower than current one, applying the lowest recent recommendation"
		} else {
			l.ableReason, l.ableMessage = "ScaleDownStabilized", "recent recommendations were higher than current one, applying the highest recent recommendation"
		}
	}
	l.replicas, l.limitedReason, l.limitedMessage = stabilized, "DesiredWithinRange", "the desired count is within the acceptable range"
	switch {
	case stabilized > current:
		limit := max(h.scaleUpLimit(current, up, now), current)
		allowed, reason, message := maxReplicas, "TooManyReplicas", "the desired replica count is more than the maximum replica count"
		if allowed > limit {
			allowed, reason, message = limit, "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate"
		}
		if stabilized > allowed {
			l.replicas, l.limitedReason, l.limitedMessage = allowed, reason, message
		}
	case stabilized < current:
		limit := min(h.scaleDownLimit(current, down, now), current)
		allowed, reason, message := minReplicas, "TooFewReplicas", "the desired replica count is less than the minimum replica count"
		if allowed < limit {
			allowed, reason, message = limit, "ScaleDownLimit", "the desired replica count is decreasing faster than the maximum scale rate"
		}
		if stabilized < allowed {
			l.replicas, l.limitedReason, l.limitedMessage = allowed, reason, message
		}
	}
	l.limited = l.replicas != stabilized
	return l
}

// stabilize is kube's stabilizeRecommendationWithBehaviors: desired held
// between the lowest recommendation of the scale-up window and the highest
// of the scale-down window (seconds), and recorded.
func (h *history) stabilize(upWindow, downWindow, current, desired int32, now time.Time) int32 {
	upCutoff := now.Add(-time.Duration(upWindow) * time.Second)
	downCutoff := now.Add(-time.Duration(downWindow) * time.Second)
	upRec, downRec, old := desired, desired, -1
	for i, r := range h.recommendations {
		if r.at.After(upCutoff) {
			upRec = min(upRec, r.replicas)
		}
		if r.at.After(downCutoff) {
			downRec = max(downRec, r.replicas)
		}
		if r.at.Before(upCutoff) && r.at.Before(downCutoff) {
			old = i
		}
	}
	h.record(old, recommendation{desired, now})
	return min(max(current, upRec), downRec)
}

// changedWithin is the replicas events added (or removed) in the last
// period seconds.
func changedWithin(period int32, events []scaleEvent, now time.Time) int32 {
	cutoff := now.Add(-time.Duration(period) * time.Second)
	var n int32
	for _, e := range events {
		if e.at.After(cutoff) {
			n += e.change
		}
	}
	return n
}

// scaleUpLimit is the most replicas the policies allow now.
func (h *history) scaleUpLimit(current int32, r rules, now time.Time) int32 {
	return h.policyLimit(current, r, now, true)
}

// scaleDownLimit is the fewest replicas the policies allow now.
func (h *history) scaleDownLimit(current int32, r rules, now time.Time) int32 {
	return h.policyLimit(current, r, now, false)
}

// policyLimit is kube's calculateScaleUpLimitWithScalingRules (up) and
// calculateScaleDownLimitWithBehaviors: each policy's bound from the count
// its period started with, the one of the biggest change (Max) or the
// smallest (Min); the current count when scaling is Disabled.
func (h *history) policyLimit(current int32, r rules, now time.Time, up bool) int32 {
	sel := selectPolicy(r)
	if sel == "Disabled" {
		return current
	}
	// A bigger change is a higher bound up, a lower one down.
	bigger := up == (sel != "Min")
	result, pick := int32(math.MaxInt32), func(a, b int32) int32 { return min(a, b) }
	if bigger {
		result, pick = math.MinInt32, func(a, b int32) int32 { return max(a, b) }
	}
	for _, p := range r.Policies {
		start := current - changedWithin(p.PeriodSeconds, h.ups, now) + changedWithin(p.PeriodSeconds, h.downs, now)
		var proposed int32
		switch {
		case up && p.Type == "Percent":
			// rounded up, or a small count would never grow
			proposed = int32(math.Ceil(float64(start) * (1 + float64(p.Value)/100)))
		case up:
			proposed = start + p.Value
		case p.Type == "Percent":
			proposed = int32(float64(start) * (1 - float64(p.Value)/100))
		default:
			proposed = start - p.Value
		}
		result = pick(result, proposed)
	}
	return result
}

func selectPolicy(r rules) string {
	if r.SelectPolicy == nil {
		return "Max"
	}
	return *r.SelectPolicy
}

// storeScaleEvent remembers a rescale from prev to cur under rules r (the
// direction's), reusing an event older than r's longest policy period.
func (h *history) storeScaleEvent(r rules, prev, cur int32, now time.Time) {
	var longest int32
	for _, p := range r.Policies {
		longest = max(longest, p.PeriodSeconds)
	}
	events, change := &h.ups, cur-prev
	if cur < prev {
		events, change = &h.downs, prev-cur
	}
	cutoff := now.Add(-time.Duration(longest) * time.Second)
	old := -1
	for i := range *events {
		if (*events)[i].at.Before(cutoff) {
			(*events)[i].outdated = true
		}
		if (*events)[i].outdated {
			old = i
		}
	}
	e := scaleEvent{change: change, at: now}
	if old >= 0 {
		(*events)[old] = e
	} else {
		*events = append(*events, e)
	}
}

package flowcontrol

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"kubeplay/core/clock"
)

// Borrowing between priority levels, as kube's configController adjusts it
// every borrowingAdjustmentPeriod: each level's seat demand (executing plus
// waiting seats) is integrated over the period; its average plus standard
// deviation, smoothed, is the level's target; the levels' current limits are
// then the one fair allocation of the server's seats that keeps every level
// between its lower bound (nominal minus what it may lend, and at least its
// recent high watermark up to its nominal) and its upper bound (nominal plus
// what it may borrow), in proportion to the targets elsewhere.

const (
	// borrowingAdjustmentPeriod is how often current limits are adjusted.
	borrowingAdjustmentPeriod = 10 * time.Second
	// seatDemandSmoothing is the decay of the smoothed demand (a half-life of 5
	// minutes at one adjustment every 10 s).
	seatDemandSmoothing = 0.977
)

// integrator integrates a value over time: its average, deviation and extremes.
type integrator struct {
	clock clock.Clock

	mu       sync.Mutex
	last     time.Time
	x        float64
	elapsed  float64 // seconds
	ix, ixx  float64 // ∫x dt, ∫x² dt
	min, max float64
}

func newIntegrator(clk clock.Clock) *integrator { return &integrator{clock: clk, last: clk.Now()} }

func (g *integrator) setAt(now time.Time, x float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.updateLocked(now)
	g.x = x
	g.min, g.max = math.Min(g.min, x), math.Max(g.max, x)
}

func (g *integrator) updateLocked(now time.Time) {
	dt := now.Sub(g.last).Seconds()
	g.last = now
	g.elapsed += dt
	g.ix += g.x * dt
	g.ixx += g.x * g.x * dt
}

// integral is what an integrator observed over a period.
type integral struct {
	duration, average, deviation, max float64
}

// reset returns the integral so far and starts a new one at the current value.
func (g *integrator) reset() integral {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.updateLocked(g.clock.Now())
	res := integral{duration: g.elapsed, max: g.max, average: math.NaN(), deviation: math.NaN()}
	if g.elapsed > 0 {
		res.average = g.ix / g.elapsed
		if v := g.ixx/g.elapsed - res.average*res.average; v >= 0 {
			res.deviation = math.Sqrt(v)
		}
	}
	g.elapsed, g.ix, g.ixx = 0, 0, 0
	g.min, g.max = g.x, g.x
	return res
}

// seatDemandStats is a level's demand over the last period, and smoothed.
type seatDemandStats struct {
	avg, stdDev   float64
	highWatermark int
	smoothed      float64
}

func (s *seatDemandStats) update(obs integral) {
	s.highWatermark = int(math.Round(obs.max))
	if obs.duration <= 0 {
		return
	}
	if math.IsNaN(obs.deviation) {
		obs.deviation = 0
	}
	s.avg, s.stdDev = obs.average, obs.deviation
	envelope := obs.average + obs.deviation
	s.smoothed = math.Max(envelope, seatDemandSmoothing*s.smoothed+(1-seatDemandSmoothing)*envelope)
}

// allocItem is one level in the allocation problem.
type allocItem struct{ target, lower, upper float64 }

const (
	minTarget = 0.001
	epsilon   = 0.0000001
)

// computeAllocation finds allocations summing to requiredSum, each within its
// bounds and otherwise fairProp × its target, and fairProp (kube's
// computeConcurrencyAllocation).
func computeAllocation(requiredSum int, items []allocItem) ([]float64, float64, error) {
	if requiredSum < 0 {
		return nil, 0, errors.New("negative sums are not supported")
	}
	req := float64(requiredSum)
	var lowSum, highSum, targetSum float64
	lbMin, lbMax := float64(math.MaxFloat32), -math.MaxFloat64
	ubMin, ubMax := float64(math.MaxFloat32), -math.MaxFloat64
	type rel struct{ target, lower, upper float64 }
	rels := make([]rel, len(items))
	for i, it := range items {
		switch {
		case it.lower < 0:
			return nil, 0, fmt.Errorf("lower bound %d is %v but negative lower bounds are not allowed", i, it.lower)
		case it.target < it.lower:
			return nil, 0, fmt.Errorf("target %d is %v, which is below its lower bound of %v", i, it.target, it.lower)
		case it.upper < it.lower:
			return nil, 0, fmt.Errorf("upper bound %d is %v but should not be less than the lower bound %v", i, it.upper, it.lower)
		}
		target := math.Max(it.target, minTarget)
		lowSum += it.lower
		highSum += it.upper
		targetSum += target
		rels[i] = rel{target, it.lower / target, it.upper / target}
		lbMin, lbMax = math.Min(lbMin, rels[i].lower), math.Max(lbMax, rels[i].lower)
		ubMin, ubMax = math.Min(ubMin, rels[i].upper), math.Max(ubMax, rels[i].upper)
	}
	switch {
	case lbMax > 1:
		return nil, 0, fmt.Errorf("lbRange.max-1=%v, which is impossible because lbRange.max can not be greater than 1", lbMax-1)
	case lowSum-req > epsilon:
		return nil, 0, fmt.Errorf("lower bounds sum to %v, which is higher than the required sum of %v", lowSum, requiredSum)
	case req-highSum > epsilon:
		return nil, 0, fmt.Errorf("upper bounds sum to %v, which is lower than the required sum of %v", highSum, requiredSum)
	}
	ans := make([]float64, len(items))
	switch {
	case requiredSum == 0:
		return ans, 0, nil
	case lowSum-req > -epsilon:
		for i, it := range items {
			ans[i] = it.lower
		}
		return ans, lbMin, nil
	case req-highSum > -epsilon:
		for i, it := range items {
			ans[i] = it.upper
		}
		return ans, ubMax, nil
	}
	fairProp := req / targetSum
	if lbMax <= fairProp && fairProp <= ubMin {
		for i := range items {
			ans[i] = rels[i].target * fairProp
		}
		return ans, fairProp, nil
	}
	// Some bounds matter: raise fairProp from the lowest bound, past each bound
	// in turn, until the allocations add up.
	type bound struct {
		value float64
		item  int
		lower bool
	}
	bounds := make([]bound, 0, 2*len(items))
	for i, r := range rels {
		bounds = append(bounds, bound{r.lower, i, true}, bound{r.upper, i, false})
	}
	sort.SliceStable(bounds, func(a, b int) bool { return bounds[a].value < bounds[b].value })
	sumSoFar := lowSum
	fairProp = lbMin
	var sensitiveTargets, deltaTargets float64
	var sensitive, deltaSensitive, next int
	for sumSoFar < req {
		var nextBound float64
		for {
			sensitiveTargets += deltaTargets
			sensitive += deltaSensitive
			if next >= len(bounds) {
				return nil, 0, errors.New("impossible: ran out of bounds to consider in bound-constrained problem")
			}
			b := bounds[next]
			nextBound = b.value
			if b.lower {
				deltaSensitive, deltaTargets = 1, rels[b.item].target
			} else {
				deltaSensitive, deltaTargets = -1, -rels[b.item].target
			}
			next++
			if nextBound > fairProp {
				break
			}
		}
		if sensitive == 0 {
			fairProp = nextBound
			continue
		}
		if prop := fairProp + (req-sumSoFar)/sensitiveTargets; prop <= nextBound {
			fairProp = prop
			break
		}
		sumSoFar += (nextBound - fairProp) * sensitiveTargets
		fairProp = nextBound
	}
	for i, it := range items {
		ans[i] = math.Max(it.lower, math.Min(it.upper, fairProp*rels[i].target))
	}
	return ans, fairProp, nil
}

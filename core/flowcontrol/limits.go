package flowcontrol

import (
	"math"
	"sort"
	"time"
)

// Each level's seats: its nominal share of the server's, the bounds its
// lending and borrowing set, and the current limit the periodic adjustment
// gives it from its demand (borrowing.go's allocation), which its queues
// are configured with.

// maxSeatsPercent is the share of a level's nominal seats one request may
// take (kube's priorityLevelMaxSeatsPercent).
const maxSeatsPercent = 0.15

// finishLocked divides the server's seats among the levels by their shares
// and sets each level's bounds, then adjusts borrowing.
func (c *Controller) finishLocked() {
	var shareSum float64
	for _, l := range c.levels {
		shareSum += float64(l.shares)
	}
	c.nominalSum = 0
	maxWaiting := 0
	serverCL := c.cfg.ServerConcurrencyLimit
	for _, l := range c.levels {
		cl := 0
		if shareSum > 0 {
			cl = int(math.Ceil(float64(serverCL) * float64(l.shares) / shareSum))
		}
		lendable := int(math.Round(float64(cl) * float64(l.lendable) / 100))
		borrowing := serverCL
		if l.borrowing != nil {
			borrowing = int(math.Round(float64(cl) * float64(*l.borrowing) / 100))
		}
		l.nominal, l.minCL, l.maxCL = cl, cl-lendable, cl+borrowing
		m := c.metrics
		m.nominal.with(c.clock, l.name).set(float64(cl))
		m.lower.with(c.clock, l.name).set(float64(l.minCL))
		m.upper.with(c.clock, l.name).set(float64(l.maxCL))
		c.nominalSum += cl
		l.maxSeats = 0
		if l.queuing.Queues > 0 {
			maxWaiting += l.queuing.Queues * l.queuing.QueueLengthLimit
			l.maxSeats = uint64(math.Max(1, math.Min(math.Ceil(float64(cl)*maxSeatsPercent), float64(cl/l.queuing.HandSize))))
		}
		if l.currentCL < 0 {
			l.currentCL = cl - lendable/2
			l.stats = seatDemandStats{}
		}
	}
	c.kinds.setLimits(maxWaiting, c.nominalSum)
	c.updateBorrowingLocked()
}

// borrowingDue adjusts borrowing if a period has passed since the last
// adjustment, and says how long until the next one is due.
func (c *Controller) borrowingDue() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.clock.Now().Before(c.adjusted.Add(borrowingAdjustmentPeriod)) {
		c.adjustBorrowingLocked()
	}
	return c.adjusted.Add(borrowingAdjustmentPeriod).Sub(c.clock.Now())
}

// adjustBorrowingLocked is a period's adjustment: it updates borrowing and
// starts the next period.
func (c *Controller) adjustBorrowingLocked() {
	c.updateBorrowingLocked()
	c.adjusted = c.clock.Now()
}

// updateBorrowingLocked sets every level's current limit from its demand over
// the last period, as kube's updateBorrowingLocked does, and configures its
// queues with it.
func (c *Controller) updateBorrowingLocked() {
	names := make([]string, 0, len(c.levels))
	for n := range c.levels {
		names = append(names, n)
	}
	sort.Strings(names)
	var items []allocItem
	idx := map[string]int{}
	exemptCL := map[string]int{}
	var minCLSum, minCurrentSum int
	remaining := c.nominalSum
	for _, n := range names {
		l := c.levels[n]
		l.stats.update(l.metrics.demand.integrator.reset())
		if l.exempt {
			minCurrent := max(l.minCL, l.stats.highWatermark)
			exemptCL[n] = minCurrent
			remaining -= minCurrent
			continue
		}
		minCurrent := max(l.minCL, min(l.nominal, l.stats.highWatermark))
		idx[n] = len(items)
		items = append(items, allocItem{lower: float64(minCurrent), upper: float64(l.maxCL), target: math.Max(float64(minCurrent), l.stats.smoothed)})
		minCLSum += l.minCL
		minCurrentSum += minCurrent
	}
	var allocs []float64
	var shareFrac float64
	c.fairFrac = 0
	switch {
	case remaining <= minCLSum:
	case remaining <= minCurrentSum:
		shareFrac = float64(remaining-minCLSum) / float64(minCurrentSum-minCLSum)
	default:
		var err error
		if allocs, c.fairFrac, err = computeAllocation(c.nominalSum, items); err != nil {
			allocs = make([]float64, len(items))
			for n, i := range idx {
				allocs[i] = float64(c.levels[n].currentCL)
			}
			c.fairFrac = 0
		}
	}
	c.metrics.fairFrac.with(c.clock).set(c.fairFrac)
	for _, n := range names {
		l := c.levels[n]
		i, limited := idx[n]
		switch {
		case !limited:
			l.currentCL = exemptCL[n]
		case remaining <= minCLSum:
			l.currentCL = l.minCL
		case remaining <= minCurrentSum:
			minCurrent := max(l.minCL, min(l.nominal, l.stats.highWatermark))
			l.currentCL = l.minCL + int(math.Round(float64(minCurrent-l.minCL)*shareFrac))
		default:
			l.currentCL = int(math.Round(allocs[i]))
		}
		if limited {
			l.target = items[i].target
		} else if len(items) > 0 {
			l.target = items[0].target // kube reports the first item's target for the exempt level
		}
		m, clk := c.metrics, c.clock
		m.demandHigh.with(clk, n).set(float64(l.stats.highWatermark))
		m.demandAvg.with(clk, n).set(l.stats.avg)
		m.demandStdev.with(clk, n).set(l.stats.stdDev)
		m.demandSmoothed.with(clk, n).set(l.stats.smoothed)
		m.target.with(clk, n).set(l.target)
		m.current.with(clk, n).set(float64(l.currentCL))
		denom := l.currentCL
		if denom <= 0 {
			denom = int(math.Max(1, math.Round(float64(c.cfg.ServerConcurrencyLimit)/10)))
		}
		l.metrics.demandR.setDenominator(float64(denom))
		l.metrics.executingRatio.setDenominator(float64(denom))
		l.metrics.seatRatio.setDenominator(float64(denom))
		waitDenom := max(1, l.queuing.QueueLengthLimit)
		if l.queuing.Queues > 0 {
			waitDenom *= l.queuing.Queues
		}
		l.metrics.waitingRatio.setDenominator(float64(waitDenom))
		_ = l.qs.Configure(l.queuing, l.currentCL) // parseLevel checked the queuing
	}
}

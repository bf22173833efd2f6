package clock

import (
	"context"
	"time"
)

// Loop is a controller's work loop, the server's (CustomResourceDefinitions)
// and the clients' alike: it runs work whenever wake says something changed,
// and again after retry on clk while work reports that some of it is
// pending, until ctx is done. Nothing runs while nothing changes.
func Loop(ctx context.Context, clk Clock, wake <-chan struct{}, retry time.Duration, work func() (pending bool)) {
	var timer Timer
	for {
		var due <-chan time.Time
		if timer != nil {
			due = timer.C()
		}
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return
		case <-wake:
		case <-due:
			timer = nil
		}
		if work() && timer == nil {
			timer = clk.NewTimer(retry)
		}
	}
}

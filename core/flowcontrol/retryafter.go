package flowcontrol

import (
	"strconv"
	"sync"
	"time"
)

// droppedRequests is kube's tracker of rejections per level, which sets the
// Retry-After of the next: it starts at 1 s, doubles (up to 32) when a second
// saw at least three times as many rejections as the current value, and
// shrinks by one when fewer came.
type droppedRequests struct {
	mu         sync.Mutex
	history    []droppedSecond
	current    droppedSecond
	retryAfter int64
	lastIncrAt int64
}

type droppedSecond struct{ unix, count int64 }

const maxRetryAfter = 32

func (d *droppedRequests) record(now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	unix := now.Unix()
	if d.current.unix == unix {
		d.current.count++
		return
	}
	d.history = append(d.history, d.current)
	keep := min(2*d.retryAfter, maxRetryAfter)
	for len(d.history) > 0 && unix-d.history[0].unix > keep {
		d.history = d.history[1:]
	}
	d.current = droppedSecond{unix, 1}
	var dropped int64
	for i := len(d.history) - 1; i >= 0 && unix-d.history[i].unix <= d.retryAfter; i-- {
		if d.history[i].unix < unix {
			dropped += d.history[i].count
		}
	}
	switch {
	case unix-d.lastIncrAt >= d.retryAfter && dropped >= 3*d.retryAfter:
		d.retryAfter = min(2*d.retryAfter, maxRetryAfter)
		d.lastIncrAt = unix
	case dropped < d.retryAfter && d.retryAfter > 1:
		d.retryAfter--
	}
}

func (d *droppedRequests) get() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return strconv.FormatInt(d.retryAfter, 10)
}

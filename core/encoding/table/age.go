package table

import (
	"strconv"
	"time"
)

// age is the printers' translateTimestampSince: the time elapsed since t, or
// <unknown> for a missing timestamp.
func age(t, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return humanDuration(now.Sub(t))
}

// humanDuration renders d with two or three significant figures, as
// k8s.io/apimachinery/pkg/util/duration.HumanDuration does; up to a second into
// the future counts as now.
func humanDuration(d time.Duration) string {
	itoa := strconv.Itoa
	seconds := int(d.Seconds())
	switch {
	case seconds < -1:
		return "<invalid>"
	case seconds < 0:
		return "0s"
	case seconds < 120:
		return itoa(seconds) + "s"
	}
	minutes := int(d / time.Minute)
	if minutes < 10 {
		if s := int(d/time.Second) % 60; s != 0 {
			return itoa(minutes) + "m" + itoa(s) + "s"
		}
		return itoa(minutes) + "m"
	}
	if minutes < 180 {
		return itoa(minutes) + "m"
	}
	hours := int(d / time.Hour)
	switch {
	case hours < 8:
		if m := minutes % 60; m != 0 {
			return itoa(hours) + "h" + itoa(m) + "m"
		}
		return itoa(hours) + "h"
	case hours < 48:
		return itoa(hours) + "h"
	case hours < 24*8:
		if h := hours % 24; h != 0 {
			return itoa(hours/24) + "d" + itoa(h) + "h"
		}
		return itoa(hours/24) + "d"
	case hours < 24*365*2:
		return itoa(hours/24) + "d"
	case hours < 24*365*8:
		if dy := hours / 24 % 365; dy != 0 {
			return itoa(hours/24/365) + "y" + itoa(dy) + "d"
		}
		return itoa(hours/24/365) + "y"
	}
	return itoa(hours/24/365) + "y"
}

package kubectl

import (
	"fmt"
	"time"
)

// This file owns how kubectl prints how long ago something happened: the AGE
// column and describe's event ages (apimachinery's duration.HumanDuration,
// kubectl's translateTimestampSince).

// humanDuration is d as kubectl prints an age: about two significant figures
// ("45s", "3m20s", "5h", "2d3h", "400d"); a future up to 2s off is "0s".
func humanDuration(d time.Duration) string {
	if seconds := int(d.Seconds()); seconds < -1 {
		return "<invalid>"
	} else if seconds < 0 {
		return "0s"
	} else if seconds < 60*2 {
		return fmt.Sprintf("%ds", seconds)
	}
	minutes := int(d / time.Minute)
	if minutes < 10 {
		if s := int(d/time.Second) % 60; s != 0 {
			return fmt.Sprintf("%dm%ds", minutes, s)
		}
		return fmt.Sprintf("%dm", minutes)
	} else if minutes < 60*3 {
		return fmt.Sprintf("%dm", minutes)
	}
	hours := int(d / time.Hour)
	switch {
	case hours < 8:
		if m := minutes % 60; m != 0 {
			return fmt.Sprintf("%dh%dm", hours, m)
		}
		return fmt.Sprintf("%dh", hours)
	case hours < 48:
		return fmt.Sprintf("%dh", hours)
	case hours < 24*8:
		if h := hours % 24; h != 0 {
			return fmt.Sprintf("%dd%dh", hours/24, h)
		}
		return fmt.Sprintf("%dd", hours/24)
	case hours < 24*365*2:
		return fmt.Sprintf("%dd", hours/24)
	case hours < 24*365*8:
		if dy := (hours / 24) % 365; dy != 0 {
			return fmt.Sprintf("%dy%dd", hours/24/365, dy)
		}
		return fmt.Sprintf("%dy", hours/24/365)
	}
	return fmt.Sprintf("%dy", hours/24/365)
}

// since is the age of an RFC 3339 timestamp as kubectl prints it, "<unknown>"
// when there is none.
func since(timestamp string) string {
	t, ok := parseTime(timestamp)
	if !ok {
		return "<unknown>"
	}
	return humanDuration(time.Since(t))
}

// parseTime reads a metav1.Time or MicroTime; false when it is empty or the
// zero time.
func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.IsZero() {
		return time.Time{}, false
	}
	return t, true
}

// rfc1123 is a timestamp as describe prints it: time.RFC1123Z in the local
// zone, as metav1.Time decodes it; the zero time's when there is none.
func rfc1123(s string) string {
	t, ok := parseTime(s)
	if ok {
		t = t.Local()
	}
	return t.Format(time.RFC1123Z)
}

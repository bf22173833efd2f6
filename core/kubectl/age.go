package kubectl

import "time"

// This file owns describe's times: ages since a timestamp (kubectl's
// translateTimestampSince over table.go's humanDuration) and timestamps in
// RFC 1123 as metav1.Time prints them.

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

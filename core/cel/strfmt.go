package cel

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The units OpenAPI's duration format reads besides Go's (kube-openapi's
// strfmt): each unit's spellings, the last one also as a prefix.
var durationUnits = []struct {
	spellings []string
	unit      time.Duration
}{
	{[]string{"ns", "nano"}, time.Nanosecond},
	{[]string{"us", "µs", "micro"}, time.Microsecond},
	{[]string{"ms", "milli"}, time.Millisecond},
	{[]string{"s", "sec"}, time.Second},
	{[]string{"m", "min"}, time.Minute},
	{[]string{"h", "hr", "hour"}, time.Hour},
	{[]string{"d", "day"}, 24 * time.Hour},
	{[]string{"w", "wk", "week"}, 7 * 24 * time.Hour},
}

var durationTerm = regexp.MustCompile(`(\d+)\s*([A-Za-zµ]+)`)

// parseDuration reads a string of format duration as kube-openapi does: Go's
// syntax, else terms such as "3 days 2h".
func parseDuration(s string) (time.Duration, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return d, nil
	}
	var d time.Duration
	ok := false
	for _, m := range durationTerm.FindAllStringSubmatch(s, -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return 0, err
		}
		unit := strings.ToLower(strings.TrimSpace(m[2]))
		for _, u := range durationUnits {
			last := len(u.spellings) - 1
			for i, sp := range u.spellings {
				if i == last && strings.HasPrefix(unit, sp) || strings.EqualFold(sp, unit) {
					ok = true
					d += time.Duration(n) * u.unit
				}
			}
		}
	}
	if !ok {
		return 0, fmt.Errorf("unable to parse %s as duration", s)
	}
	return d, nil
}

// dateTimeLayouts are the layouts a date-time string may have
// (kube-openapi's strfmt), tried in order.
var dateTimeLayouts = []string{"2006-01-02T15:04:05.000000Z07:00", "2006-01-02T15:04:05.000Z07:00", time.RFC3339, time.RFC3339Nano, "2006-01-02T15:04:05"}

// parseDateTime reads a string of format date-time as kube-openapi does
// (the empty string is the Unix epoch).
func parseDateTime(s string) (time.Time, error) {
	if s == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	var last error
	for _, layout := range dateTimeLayouts {
		t, err := time.Parse(layout, s)
		if err == nil {
			return t, nil
		}
		last = err
	}
	return time.Time{}, last
}

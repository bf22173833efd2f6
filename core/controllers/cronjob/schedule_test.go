package cronjob

import (
	"testing"
	"time"
)

// TestSIM_1_CronSchedules: schedules read and fire as robfig/cron's standard
// parser (kube's) reads them: fields, names, ranges, steps, lists,
// descriptors, and the day-of-month or day-of-week rule.
func TestSIM_1_CronSchedules(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 0, 30, 0, time.UTC) // a Sunday
	for _, c := range []struct{ spec, next string }{
		{"* * * * *", "2026-03-01T09:01:00Z"},
		{"*/15 * * * *", "2026-03-01T09:15:00Z"},
		{"0 */2 * * *", "2026-03-01T10:00:00Z"},
		{"30 8 * * mon-fri", "2026-03-02T08:30:00Z"},
		{"0 0 1 jan *", "2027-01-01T00:00:00Z"},
		{"0 12 15 * 0", "2026-03-01T12:00:00Z"}, // a Sunday or the 15th
		{"5,10 9 * * *", "2026-03-01T09:05:00Z"},
		{"@hourly", "2026-03-01T10:00:00Z"},
		{"@daily", "2026-03-02T00:00:00Z"},
		{"@every 90s", "2026-03-01T09:02:00Z"},
	} {
		s, err := parseSchedule(c.spec)
		if err != nil {
			t.Errorf("%q: %v", c.spec, err)
			continue
		}
		if got := s.next(at).Format(time.RFC3339); got != c.next {
			t.Errorf("%q after %s: %s, want %s", c.spec, at.Format(time.RFC3339), got, c.next)
		}
	}
	for _, bad := range []string{"* * * *", "61 * * * *", "* * * * 8", "*/0 * * * *", "@every 1ms", "x * * * *"} {
		if _, err := parseSchedule(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

package cronjob

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// schedule is a parsed cron schedule, as kube's CronJob controller reads
// one (robfig/cron's standard parser): five fields (minute, hour, day of
// month, month, day of week) of numbers, names, ranges, steps and lists, or a
// descriptor (@hourly, @daily, @weekly, @monthly, @yearly, @every <duration>).
type schedule struct {
	minute, hour, dom, month, dow uint64 // bit n: value n matches
	domStar, dowStar              bool
	every                         time.Duration
}

var descriptors = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
	"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

var (
	months = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}
	days   = []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}
)

func parseSchedule(spec string) (*schedule, error) {
	spec = strings.TrimSpace(spec)
	if rest, ok := strings.CutPrefix(spec, "@every "); ok {
		d, err := time.ParseDuration(strings.TrimSpace(rest))
		if err != nil || d < time.Second {
			return nil, fmt.Errorf("failed to parse duration %s: %v", rest, err)
		}
		return &schedule{every: d}, nil
	}
	if d, ok := descriptors[spec]; ok {
		spec = d
	}
	fields := strings.Fields(spec)
	if len(fields) != 5 {
		return nil, fmt.Errorf("expected exactly 5 fields, found %d: %s", len(fields), spec)
	}
	s := &schedule{}
	var err error
	for i, f := range []struct {
		bits     *uint64
		min, max int
		names    []string
	}{{&s.minute, 0, 59, nil}, {&s.hour, 0, 23, nil}, {&s.dom, 1, 31, nil}, {&s.month, 1, 12, months}, {&s.dow, 0, 6, days}} {
		if *f.bits, err = parseField(fields[i], f.min, f.max, f.names); err != nil {
			return nil, err
		}
	}
	s.domStar = fields[2] == "*" || fields[2] == "?"
	s.dowStar = fields[4] == "*" || fields[4] == "?"
	return s, nil
}

// parseField reads one field's list of ranges (a, a-b, a-b/n, */n, *).
func parseField(field string, min, max int, names []string) (uint64, error) {
	var bits uint64
	for _, part := range strings.Split(field, ",") {
		rng, stepText, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			var err error
			if step, err = strconv.Atoi(stepText); err != nil || step <= 0 {
				return 0, fmt.Errorf("bad increment in %q", part)
			}
		}
		lo, hi := min, max
		if rng != "*" && rng != "?" {
			a, b, isRange := strings.Cut(rng, "-")
			var err error
			if lo, err = value(a, min, names); err != nil {
				return 0, err
			}
			hi = lo
			if isRange {
				if hi, err = value(b, min, names); err != nil {
					return 0, err
				}
			} else if hasStep {
				hi = max
			}
		}
		if lo < min || hi > max || lo > hi {
			return 0, fmt.Errorf("end of range (%d) above maximum (%d): %s", hi, max, part)
		}
		for v := lo; v <= hi; v += step {
			bits |= 1 << v
		}
	}
	return bits, nil
}

func value(s string, min int, names []string) (int, error) {
	for i, n := range names {
		if strings.EqualFold(s, n) {
			return i + min, nil
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("failed to parse int from %s: %v", s, err)
	}
	return v, nil
}

// next is the first time the schedule fires after t (zero: never, within
// five years).
func (s *schedule) next(t time.Time) time.Time {
	if s.every > 0 {
		return t.Add(s.every - time.Duration(t.Nanosecond())).Truncate(time.Second)
	}
	t = t.Add(time.Minute - time.Duration(t.Second())*time.Second - time.Duration(t.Nanosecond()))
	limit := t.AddDate(5, 0, 0)
	for t.Before(limit) {
		switch {
		case s.month&(1<<uint(t.Month())) == 0:
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, t.Location())
		case !s.dayMatches(t):
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, t.Location())
		case s.hour&(1<<uint(t.Hour())) == 0:
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour()+1, 0, 0, 0, t.Location())
		case s.minute&(1<<uint(t.Minute())) == 0:
			t = t.Add(time.Minute)
		default:
			return t
		}
	}
	return time.Time{}
}

// dayMatches is cron's day rule: both the day of month and of week when one
// of them is *, either of them otherwise.
func (s *schedule) dayMatches(t time.Time) bool {
	dom, dow := s.dom&(1<<uint(t.Day())) != 0, s.dow&(1<<uint(t.Weekday())) != 0
	if s.domStar || s.dowStar {
		return dom && dow
	}
	return dom || dow
}

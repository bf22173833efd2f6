package table

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"kubeplay/core/object"
)

// Objects arrive as decoded JSON (map[string]any, []any, string, json.Number,
// bool, nil), sometimes with Go numbers that defaulting put in. These accessors
// read them the way a typed decode would, treating anything of the wrong shape as
// absent, so that no input can make a printer panic.

func strAt(v any, path ...string) string {
	s, _ := object.Path(v, path...).(string)
	return s
}

func mapAt(v any, path ...string) map[string]any {
	m, _ := object.Path(v, path...).(map[string]any)
	return m
}

func listAt(v any, path ...string) []any {
	l, _ := object.Path(v, path...).([]any)
	return l
}

func boolAt(v any, path ...string) bool {
	b, _ := object.Path(v, path...).(bool)
	return b
}

// intAt reads an integer field; a missing field or a value that is not an
// integer reads as 0.
func intAt(v any, path ...string) int64 {
	n, _ := toInt(object.Path(v, path...))
	return n
}

// toInt converts a JSON or Go integer; fractions and out-of-range values fail.
func toInt(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, 64)
		return i, err == nil
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<63 {
			return int64(n), true
		}
	}
	return 0, false
}

// timeAt reads an RFC 3339 timestamp; missing or unparseable reads as the zero
// time, which the cells show as <unknown>.
func timeAt(v any, path ...string) time.Time {
	s, _ := object.Path(v, path...).(string)
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// has says whether a field holds an object: a pointer field that a typed decode
// would set (container state running/waiting/terminated, event series).
func has(v any, path ...string) bool {
	return mapAt(v, path...) != nil
}

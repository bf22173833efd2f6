package kubectl

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// This file owns reading objects as encoding/json gives them (maps, slices,
// strings, bools, json.Number): the accessors the describers and the other
// commands use to walk a path without a typed client.

// field walks path from v through maps; nil when something on the way is
// missing or not a map.
func field(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// stringAt is the string at path; "" when absent. Numbers and bools print
// as JSON does.
func stringAt(v any, path ...string) string {
	switch x := field(v, path...).(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case int64, float64, bool:
		return fmt.Sprint(x)
	}
	return ""
}

// num is the integer at path; 0 when absent.
func num(v any, path ...string) int64 {
	switch x := field(v, path...).(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return int64(f)
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return 0
}

// has says whether path leads to a value (null is none).
func has(v any, path ...string) bool { return field(v, path...) != nil }

// boolean is the bool at path; false when absent.
func boolean(v any, path ...string) bool {
	b, _ := field(v, path...).(bool)
	return b
}

// obj is the map at path; nil when absent.
func obj(v any, path ...string) map[string]any {
	m, _ := field(v, path...).(map[string]any)
	return m
}

// list is the slice at path; nil when absent.
func list(v any, path ...string) []any {
	l, _ := field(v, path...).([]any)
	return l
}

// strs is the strings of the slice at path.
func strs(v any, path ...string) []string {
	var out []string
	for _, x := range list(v, path...) {
		out = append(out, stringAt(x))
	}
	return out
}

// strMap is the map of strings at path (labels, annotations, a selector).
func strMap(v any, path ...string) map[string]string {
	m := obj(v, path...)
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		out[k] = stringAt(x)
	}
	return out
}

// sortedKeys is m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// selectorString is a metav1.LabelSelector as a selector string (kubectl's
// LabelSelectorAsSelector(...).String()): the matchLabels and the
// expressions, sorted by key; "" selects everything.
func selectorString(sel map[string]any) string {
	type req struct{ key, text string }
	var reqs []req
	for k, v := range strMap(sel, "matchLabels") {
		reqs = append(reqs, req{k, k + "=" + v})
	}
	for _, e := range list(sel, "matchExpressions") {
		k := stringAt(e, "key")
		vals := strs(e, "values")
		sort.Strings(vals)
		var text string
		switch stringAt(e, "operator") {
		case "In":
			text = k + " in (" + strings.Join(vals, ",") + ")"
		case "NotIn":
			text = k + " notin (" + strings.Join(vals, ",") + ")"
		case "Exists":
			text = k
		case "DoesNotExist":
			text = "!" + k
		}
		reqs = append(reqs, req{k, text})
	}
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].key < reqs[j].key })
	parts := make([]string, len(reqs))
	for i, r := range reqs {
		parts[i] = r.text
	}
	return strings.Join(parts, ",")
}

// formatLabelSelector is a LabelSelector as metav1.FormatLabelSelector
// prints it: "<none>" for none or an empty one.
func formatLabelSelector(sel map[string]any) string {
	if sel == nil {
		return "<none>"
	}
	if s := selectorString(sel); s != "" {
		return s
	}
	return "<none>"
}

// controllerOf is the ownerReference with controller: true, or nil.
func controllerOf(o map[string]any) map[string]any {
	for _, ref := range list(o, "metadata", "ownerReferences") {
		if boolean(ref, "controller") {
			return ref.(map[string]any)
		}
	}
	return nil
}

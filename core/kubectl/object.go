package kubectl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// This file owns reading objects as encoding/json gives them (maps, slices,
// strings, bools, json.Number): the accessors the describers and the other
// commands use to walk a path without a typed client.

// decodeObject parses an answer's JSON, keeping numbers as json.Number so
// that integers print as the server sent them.
func decodeObject(data []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var obj map[string]any
	if err := d.Decode(&obj); err != nil {
		return nil, err
	}
	return obj, nil
}

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

// str is the string at path; "" when absent. Numbers and bools print as JSON.
func str(v any, path ...string) string {
	switch x := field(v, path...).(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
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
		out = append(out, str(x))
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
		out[k] = str(x)
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

// formatLabels is a label map as labels.FormatLabels prints it: k=v pairs in
// key order, joined by commas, "<none>" when empty.
func formatLabels(m map[string]string) string {
	if len(m) == 0 {
		return "<none>"
	}
	parts := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ",")
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
		k := str(e, "key")
		vals := strs(e, "values")
		sort.Strings(vals)
		var text string
		switch str(e, "operator") {
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

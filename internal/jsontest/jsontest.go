// Package jsontest holds what tests comparing JSON objects across servers
// share.
package jsontest

// DropEmpty removes, in place, what two servers may write differently for
// the same object: null values and empty objects, and with zeros also empty
// strings, false and 0 (what a typed object writes for fields it leaves
// unset). It says whether v itself is empty.
func DropEmpty(v any, zeros bool) bool {
	switch v := v.(type) {
	case nil:
		return true
	case map[string]any:
		for k, e := range v {
			if DropEmpty(e, zeros) {
				delete(v, k)
			}
		}
		return len(v) == 0
	case []any:
		for _, e := range v {
			DropEmpty(e, zeros)
		}
	case string:
		return zeros && v == ""
	case bool:
		return zeros && !v
	case float64:
		return zeros && v == 0
	}
	return false
}

// WithoutNulls drops null fields, at every depth: a pointer to a zero Time decodes as null and,
// JSON having no other way to say it, encodes as no pointer at all (in kube too).
func WithoutNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			if e != nil {
				out[k] = WithoutNulls(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = WithoutNulls(e)
		}
		return out
	}
	return v
}

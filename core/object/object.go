// Package object owns the in-memory form of API objects: JSON decoded into maps with
// numbers kept exact (by a Scanner, which the typed decoders of
// core/encoding/protobuf read bodies with too), encoding in kube-apiserver's field
// order, and accessors for the metadata fields the server reads and writes.
//
// Objects are stored without their TypeMeta (kind and apiVersion), as typed list items
// are served by kube-apiserver; WithTypeMeta puts it back for single objects and watch
// events without decoding.
//
// The accessors are kept out of line (go:noinline): every package calls them at
// hundreds of places, and inlined there they cost the wasm binary some 40 KB
// of gzip.
package object

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"
)

// Object is a decoded API object.
type Object = map[string]any

// Decode parses one JSON object, keeping numbers as json.Number so that integers
// survive a round trip exactly. Trailing data after the object is an error.
func Decode(data []byte) (Object, error) {
	if obj, ok := decodeFast(data); ok {
		return obj, nil
	}
	var v any
	if err := decodeStd(data, &v); err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("json: cannot unmarshal %s into Go value of type struct", jsonKind(v))
	}
	return obj, nil
}

// decodeStd parses one JSON value with encoding/json, numbers as json.Number.
func decodeStd(data []byte, v *any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("invalid character after top-level value")
	}
	return nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return "object"
}

// A FieldOrder orders a JSON object's keys as a Go type writes its fields
// (core/encoding/protobuf has those of the built-in kinds).
type FieldOrder interface {
	// Keys are m's keys in order.
	Keys(m map[string]any) []string
	// Field is the order of the object at key, or of each object in the list
	// there; nil orders its keys by name.
	Field(key string) FieldOrder
}

// Encode writes obj as JSON without kind and apiVersion, in the order of an
// object without a Go type: metadata first in ObjectMeta's order, then the
// other fields by name. Values are written as encoding/json writes them
// (HTML-safe string escaping).
func Encode(obj Object) ([]byte, error) { return EncodeOrdered(obj, untyped{}) }

// EncodeOrdered writes obj as JSON without kind and apiVersion, its keys in
// order's order (nil: by name). This is the stored form.
func EncodeOrdered(obj Object, order FieldOrder) ([]byte, error) {
	return appendObject(make([]byte, 0, 512), obj, order, true)
}

// appendObject writes m in order; top leaves kind and apiVersion out.
func appendObject(b []byte, m map[string]any, order FieldOrder, top bool) ([]byte, error) {
	var keys []string
	if order != nil {
		keys = order.Keys(m)
	} else {
		keys = sortedKeys(m)
	}
	b = append(b, '{')
	first := true
	var err error
	for _, k := range keys {
		if top && (k == "kind" || k == "apiVersion") {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = AppendString(b, k)
		b = append(b, ':')
		var inner FieldOrder
		if order != nil {
			inner = order.Field(k)
		}
		if b, err = appendOrdered(b, m[k], inner); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendOrdered writes v, its objects' keys in order.
func appendOrdered(b []byte, v any, order FieldOrder) ([]byte, error) {
	if order == nil {
		return appendValue(b, v)
	}
	switch x := v.(type) {
	case map[string]any:
		return appendObject(b, x, order, false)
	case []any:
		b = append(b, '[')
		var err error
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendOrdered(b, e, order); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	return appendValue(b, v)
}

// untyped is the order of an object without a Go type: metadata first, in
// ObjectMeta's order (its managedFields entries in ManagedFieldsEntry's), then
// the other fields by name.
type untyped struct{}

func (untyped) Keys(m map[string]any) []string {
	keys := sortedKeys(m)
	if i := sort.SearchStrings(keys, "metadata"); i < len(keys) && keys[i] == "metadata" {
		copy(keys[1:i+1], keys[:i])
		keys[0] = "metadata"
	}
	return keys
}

func (untyped) Field(key string) FieldOrder {
	if key == "metadata" {
		return metadataOrder
	}
	return nil
}

// ranked orders the keys it ranks first, in its order, then the others by name.
type ranked struct {
	rank   map[string]int
	fields map[string]FieldOrder
}

func newRanked(order []string, fields map[string]FieldOrder) ranked {
	r := ranked{rank: make(map[string]int, len(order)), fields: fields}
	for i, k := range order {
		r.rank[k] = i
	}
	return r
}

func (r ranked) Keys(m map[string]any) []string {
	keys := sortedKeys(m)
	sort.SliceStable(keys, func(i, j int) bool {
		ri, iok := r.rank[keys[i]]
		rj, jok := r.rank[keys[j]]
		switch {
		case iok && jok:
			return ri < rj
		case iok != jok:
			return iok
		}
		return false
	})
	return keys
}

func (r ranked) Field(key string) FieldOrder { return r.fields[key] }

// metadataOrder is ObjectMeta's field order in kube-apiserver's JSON, with
// ManagedFieldsEntry's for its managedFields.
var metadataOrder = newRanked([]string{
	"name", "generateName", "namespace", "selfLink", "uid", "resourceVersion",
	"generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
	"labels", "annotations", "ownerReferences", "finalizers", "managedFields",
}, map[string]FieldOrder{
	"managedFields": newRanked([]string{"manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"}, nil),
})

// appendValue writes a decoded JSON value; other Go values go through
// encoding/json.
func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return AppendString(b, x), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case json.Number:
		if x == "" {
			return append(b, '0'), nil
		}
		return append(b, x...), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case map[string]any:
		return appendObject(b, x, nil, false)
	case []any:
		b = append(b, '[')
		var err error
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, data...), nil
}

const hexDigits = "0123456789abcdef"

// AppendString quotes s exactly as encoding/json does, HTML escaping included.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// WithTypeMeta returns stored object bytes with kind and apiVersion put in front,
// as kube-apiserver serves a single object or a watch event's object.
//
//go:noinline
func WithTypeMeta(stored []byte, kind, apiVersion string) []byte {
	out := make([]byte, 0, len(stored)+len(kind)+len(apiVersion)+32)
	return AppendWithTypeMeta(out, stored, kind, apiVersion)
}

// AppendWithTypeMeta appends stored with kind and apiVersion in front to dst.
func AppendWithTypeMeta(dst, stored []byte, kind, apiVersion string) []byte {
	dst = append(dst, `{"kind":`...)
	dst = strconv.AppendQuote(dst, kind)
	dst = append(dst, `,"apiVersion":`...)
	dst = strconv.AppendQuote(dst, apiVersion)
	rest := bytes.TrimLeft(stored, " \t\r\n")
	if len(rest) > 0 && rest[0] == '{' {
		rest = rest[1:]
	}
	if r := bytes.TrimLeft(rest, " \t\r\n"); len(r) > 0 && r[0] != '}' {
		dst = append(dst, ',')
	}
	return append(dst, rest...)
}

// AppendPartialObjectMetadata appends obj reduced to its metadata, as the
// PartialObjectMetadata of apiVersion (meta.k8s.io/v1 or v1beta1) that
// meta.AsPartialObjectMetadata makes: the whole ObjectMeta, with a missing
// creationTimestamp written as null as a typed ObjectMeta writes it.
func AppendPartialObjectMetadata(dst []byte, obj Object, apiVersion string) ([]byte, error) {
	m := map[string]any{"creationTimestamp": nil}
	if md, ok := obj["metadata"].(map[string]any); ok {
		for k, v := range md {
			m[k] = v
		}
	}
	raw, err := Encode(Object{"metadata": m})
	if err != nil {
		return dst, err
	}
	return AppendWithTypeMeta(dst, raw, "PartialObjectMetadata", apiVersion), nil
}

// Meta returns obj's metadata map, creating it if absent. A metadata value that
// is not an object is replaced; callers validate before they get here.
func Meta(obj Object) map[string]any { return Child(obj, "metadata") }

// Child is the object at key in m, created when absent (a value that is not
// an object is replaced).
func Child(m map[string]any, key string) map[string]any {
	c, ok := m[key].(map[string]any)
	if !ok {
		c = map[string]any{}
		m[key] = c
	}
	return c
}

// MetaString returns a string field of obj's metadata, or "".
//
//go:noinline
func MetaString(obj Object, field string) string {
	m, _ := obj["metadata"].(map[string]any)
	s, _ := m[field].(string)
	return s
}

// StringMap returns a map[string]string field of m (labels, annotations, data), or nil.
//
//go:noinline
func StringMap(m map[string]any, field string) map[string]string {
	raw, ok := m[field].(map[string]any)
	if !ok {
		return nil
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// Labels returns obj's metadata.labels.
//
//go:noinline
func Labels(obj Object) map[string]string {
	m, _ := obj["metadata"].(map[string]any)
	return StringMap(m, "labels")
}

// SameStrings says whether a and b hold the same strings, in any order.
func SameStrings(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}

// SetStrings sets a []string field of m (finalizers) to list.
func SetStrings(m map[string]any, field string, list []string) {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	m[field] = out
}

// Strings returns a []string field of m (finalizers), or nil.
//
//go:noinline
func Strings(m map[string]any, field string) []string {
	raw, ok := m[field].([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(raw))
	for _, v := range raw {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Objects returns the objects in a list field of m (containers), skipping
// elements of other types.
//
//go:noinline
func Objects(m map[string]any, field string) []map[string]any {
	raw, _ := m[field].([]any)
	out := make([]map[string]any, 0, len(raw))
	for _, v := range raw {
		if o, ok := v.(map[string]any); ok {
			out = append(out, o)
		}
	}
	return out
}

// Path returns the value at a path of nested maps ("spec", "nodeName") in v, or
// nil when a key is missing or a value on the way is not a map.
//
//go:noinline
func Path(v any, path ...string) any {
	cur := v
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

// String is v when it is a string (a field read with Path), else "".
func String(v any) string {
	s, _ := v.(string)
	return s
}

// SetResourceVersion sets metadata.resourceVersion to rev.
//
//go:noinline
func SetResourceVersion(obj Object, rev int64) {
	Meta(obj)["resourceVersion"] = strconv.FormatInt(rev, 10)
}

// Restamp decodes stored bytes, sets metadata.resourceVersion to rev and encodes
// them again: the form of an object in a DELETED event, which carries the revision
// of its deletion.
func Restamp(stored []byte, rev int64) ([]byte, error) {
	if b, ok := restampInPlace(stored, rev); ok {
		return b, nil
	}
	obj, err := Decode(stored)
	if err != nil {
		return nil, err
	}
	SetResourceVersion(obj, rev)
	return Encode(obj)
}

// restampInPlace rewrites the resourceVersion of an object in the stored form
// without decoding it. Encode writes metadata first and, in it, resourceVersion
// after name, generateName, namespace, selfLink and uid, all strings: the first
// "resourceVersion":" after {"metadata":{ is the object's own, unless one of
// those fields is not a string, which the scan then refuses.
func restampInPlace(stored []byte, rev int64) ([]byte, bool) {
	const head, field = `{"metadata":{`, `"resourceVersion":"`
	if !bytes.HasPrefix(stored, []byte(head)) {
		return nil, false
	}
	i := bytes.Index(stored, []byte(field))
	if i < 0 {
		return nil, false
	}
	// Everything between the head and the field must be string members.
	for at := len(head); at < i; {
		n, ok := skipStringMember(stored[at:i])
		if !ok {
			return nil, false
		}
		at += n
	}
	start := i + len(field)
	end := start
	for end < len(stored) && stored[end] >= '0' && stored[end] <= '9' {
		end++
	}
	if end == len(stored) || stored[end] != '"' {
		return nil, false
	}
	out := make([]byte, 0, len(stored)+20)
	out = append(out, stored[:start]...)
	out = strconv.AppendInt(out, rev, 10)
	return append(out, stored[end:]...), true
}

// skipStringMember reads `"key":"value",` (the comma optional at the end of b)
// and returns its length.
func skipStringMember(b []byte) (int, bool) {
	at := 0
	for part := 0; part < 2; part++ {
		n, ok := skipString(b[at:])
		if !ok {
			return 0, false
		}
		at += n
		if part == 0 {
			if at >= len(b) || b[at] != ':' {
				return 0, false
			}
			at++
		}
	}
	if at < len(b) {
		if b[at] != ',' {
			return 0, false
		}
		at++
	}
	return at, true
}

// skipString reads one JSON string at the start of b and returns its length.
func skipString(b []byte) (int, bool) {
	if len(b) == 0 || b[0] != '"' {
		return 0, false
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return 0, false
}

// DeepCopy copies obj and every map and list in it; strings, numbers and other
// leaves are immutable and shared.
//
//go:noinline
func DeepCopy(obj Object) Object {
	return copyValue(map[string]any(obj)).(map[string]any)
}

// DeepCopyValue copies a value of the object form, as DeepCopy does.
func DeepCopyValue(v any) any { return copyValue(v) }

func copyValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(t))
		for k, e := range t {
			c[k] = copyValue(e)
		}
		return c
	case []any:
		c := make([]any, len(t))
		for i, e := range t {
			c[i] = copyValue(e)
		}
		return c
	}
	return v
}

// Equal says whether two values of the object form are the same JSON: maps with
// the same keys and equal values, lists with equal elements in order, equal
// leaves (numbers compared as they are written).
func Equal(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, e := range x {
			f, ok := y[k]
			if !ok || !Equal(e, f) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return leafJSON(a) == leafJSON(b)
}

// numberText is a number as it is written, whatever its Go type.
type numberText string

// leafJSON is what a leaf compares by: numbers by their text.
func leafJSON(v any) any {
	switch n := v.(type) {
	case json.Number:
		return numberText(n)
	case float64, float32, int, int32, int64, uint, uint32, uint64:
		if b, err := appendValue(nil, n); err == nil {
			return numberText(b)
		}
	}
	return v
}

// NewUID is a random (version 4) UUID, as kube gives an object's metadata.uid.
// Its bytes come from the runtime's ChaCha8 generator, seeded from the system's
// randomness: crypto/rand would cross into JavaScript (getRandomValues) for
// every request's Audit-Id in WebAssembly.
func NewUID() string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// Int reads a JSON number as an int64: 0 when absent or not an integer.
//
//go:noinline
func Int(v any) int64 {
	n, _ := strconv.ParseInt(fmt.Sprint(v), 10, 64)
	return n
}

// Timestamp formats t as metav1.Time does: RFC 3339, seconds, UTC.
func Timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// The propagation policies of metav1.DeleteOptions: what becomes of an
// object's dependents when it is deleted.
const (
	PropagationOrphan     = "Orphan"
	PropagationBackground = "Background"
	PropagationForeground = "Foreground"
)

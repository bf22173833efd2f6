package envoypb

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"kubeplay/core/field"
)

// Encode appends to b the wire encoding of v, a message of type m in proto
// JSON as core/object decodes it (map[string]any, []any, string, json.Number
// or float64, bool, nil), and returns the errors found, each at its field
// under path. Fields are written in field number order and map entries by
// key, so equal messages encode equally. When errors are returned the bytes
// mean nothing.
func (m *Message) Encode(b []byte, v any, path *field.Path) ([]byte, field.ErrorList) {
	e := encoder{}
	b = e.message(b, m, v, path)
	return b, e.errs
}

// EncodeFields is Encode for a message written as obj with a member that is
// not one of its fields, skip (an Any's "@type", when the type is known
// apart); a well-known type is read from obj's "value", as in an Any.
func (m *Message) EncodeFields(b []byte, obj map[string]any, path *field.Path, skip string) ([]byte, field.ErrorList) {
	e := encoder{}
	if wellKnown(m.Name) != nil {
		b = e.message(b, m, obj["value"], path.Child("value"))
	} else {
		b = e.fields(b, m, obj, path, skip)
	}
	return b, e.errs
}

type encoder struct {
	errs  field.ErrorList
	depth int
}

// maxDepth bounds nesting (protobuf's own limit), so hostile input cannot
// exhaust the stack.
const maxDepth = 100

func (e *encoder) fail(err *field.Error) { e.errs = append(e.errs, err) }

func (e *encoder) invalid(p *field.Path, v any, format string, args ...any) {
	e.fail(field.Invalid(p, v, fmt.Sprintf(format, args...)))
}

// message encodes v, a message of type m, without its tag and length.
func (e *encoder) message(b []byte, m *Message, v any, p *field.Path) []byte {
	if e.depth++; e.depth > maxDepth {
		e.invalid(p, nil, "nested too deeply")
		return b
	}
	defer func() { e.depth-- }()
	if special := wellKnown(m.Name); special != nil {
		return special(e, b, m, v, p)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		e.invalid(p, v, "must be an object (%s)", m.Name)
		return b
	}
	return e.fields(b, m, obj, p, "")
}

// fields encodes the members of obj as fields of m; skip is a key that is not
// a field (Any's @type).
func (e *encoder) fields(b []byte, m *Message, obj map[string]any, p *field.Path, skip string) []byte {
	type member struct {
		f   *Field
		key string
		v   any
	}
	members := make([]member, 0, len(obj))
	for key, v := range obj {
		if skip != "" && key == skip {
			continue
		}
		f := m.Field(key)
		if f == nil {
			e.fail(field.Forbidden(p.Child(key), "unknown field of "+m.Name))
			continue
		}
		members = append(members, member{f, key, v})
	}
	sort.Slice(members, func(i, j int) bool {
		if members[i].f.Number != members[j].f.Number {
			return members[i].f.Number < members[j].f.Number
		}
		return members[i].key < members[j].key
	})
	oneofs := map[int]string{}
	for i, mb := range members {
		fp := p.Child(mb.key)
		if i > 0 && members[i-1].f == mb.f {
			e.fail(field.Duplicate(fp, mb.f.Name))
			continue
		}
		if mb.v == nil && !(mb.f.Message != nil && mb.f.Message.Name == "google.protobuf.Value" && !mb.f.Repeated) &&
			!(mb.f.Enum != nil && mb.f.Enum.Name == "google.protobuf.NullValue") {
			continue // null is the field's default
		}
		if mb.f.Oneof > 0 {
			if other, set := oneofs[mb.f.Oneof]; set {
				e.fail(field.Forbidden(fp, fmt.Sprintf("only one of %q and %q may be set (a oneof of %s)", other, mb.key, m.Name)))
				continue
			}
			oneofs[mb.f.Oneof] = mb.key
		}
		b = e.field(b, mb.f, mb.v, fp)
	}
	return b
}

// field encodes one field's value: a list, a map or a single value.
func (e *encoder) field(b []byte, f *Field, v any, p *field.Path) []byte {
	switch {
	case f.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			e.invalid(p, v, "must be an object (a map)")
			return b
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		key, val := f.Message.Fields[0], f.Message.Fields[1]
		if key.Number != 1 {
			key, val = val, key
		}
		for _, k := range keys {
			var entry []byte
			entry = e.mapKey(entry, key, k, p.Key(k))
			if obj[k] == nil && !(val.Message != nil && val.Message.Name == "google.protobuf.Value") {
				e.invalid(p.Key(k), nil, "a map value may not be null")
				continue
			}
			entry = e.single(entry, val, obj[k], p.Key(k), true)
			b = protowire.AppendTag(b, f.Number, protowire.BytesType)
			b = protowire.AppendBytes(b, entry)
		}
		return b
	case f.Repeated:
		list, ok := v.([]any)
		if !ok {
			e.invalid(p, v, "must be a list")
			return b
		}
		if packable(f.Kind) {
			var packed []byte
			for i, it := range list {
				packed = e.scalar(packed, f, it, p.Index(i))
			}
			if len(list) > 0 {
				b = protowire.AppendTag(b, f.Number, protowire.BytesType)
				b = protowire.AppendBytes(b, packed)
			}
			return b
		}
		for i, it := range list {
			if it == nil && !(f.Message != nil && f.Message.Name == "google.protobuf.Value") {
				e.invalid(p.Index(i), nil, "a list item may not be null")
				continue
			}
			b = e.single(b, f, it, p.Index(i), true)
		}
		return b
	}
	return e.single(b, f, v, p, f.Presence)
}

// mapKey encodes a map entry's key, written in JSON as a string.
func (e *encoder) mapKey(b []byte, f *Field, k string, p *field.Path) []byte {
	var v any = k
	switch f.Kind {
	case BoolKind:
		switch k {
		case "true":
			v = true
		case "false":
			v = false
		default:
			e.invalid(p, k, "a map key must be true or false")
			return b
		}
	case StringKind:
	default:
		v = json.Number(k)
	}
	return e.single(b, f, v, p, true)
}

func packable(k Kind) bool {
	return k != StringKind && k != BytesKind && k != MessageKind && k != GroupKind
}

// single encodes one value of f with its tag; a zero scalar is left out
// unless the field tracks presence (or the value is an item of a list or
// map).
func (e *encoder) single(b []byte, f *Field, v any, p *field.Path, keepZero bool) []byte {
	switch f.Kind {
	case MessageKind, GroupKind:
		inner := e.message(nil, f.Message, v, p)
		b = protowire.AppendTag(b, f.Number, protowire.BytesType)
		return protowire.AppendBytes(b, inner)
	case StringKind, BytesKind:
		var raw []byte
		if f.Kind == StringKind {
			s, ok := v.(string)
			if !ok || !utf8.ValidString(s) {
				e.invalid(p, v, "must be a string")
				return b
			}
			raw = []byte(s)
		} else {
			raw = e.bytes(v, p)
		}
		if len(raw) == 0 && !keepZero {
			return b
		}
		b = protowire.AppendTag(b, f.Number, protowire.BytesType)
		return protowire.AppendBytes(b, raw)
	}
	before := len(b)
	scalar := e.scalar(nil, f, v, p)
	if !keepZero && isZero(scalar) {
		return b[:before]
	}
	b = protowire.AppendTag(b, f.Number, wireType(f.Kind))
	return append(b, scalar...)
}

// isZero says whether an encoded scalar is its type's zero: every byte 0
// (varint 0, fixed 0, +0.0).
func isZero(enc []byte) bool {
	for _, c := range enc {
		if c != 0 {
			return false
		}
	}
	return true
}

func wireType(k Kind) protowire.Type {
	switch k {
	case DoubleKind, Fixed64Kind, Sfixed64Kind:
		return protowire.Fixed64Type
	case FloatKind, Fixed32Kind, Sfixed32Kind:
		return protowire.Fixed32Type
	}
	return protowire.VarintType
}

// scalar encodes a number, bool or enum value without its tag.
func (e *encoder) scalar(b []byte, f *Field, v any, p *field.Path) []byte {
	switch f.Kind {
	case BoolKind:
		t, ok := v.(bool)
		if !ok {
			e.invalid(p, v, "must be true or false")
			return b
		}
		return protowire.AppendVarint(b, protowire.EncodeBool(t))
	case EnumKind:
		return protowire.AppendVarint(b, uint64(int64(e.enum(f.Enum, v, p))))
	case DoubleKind:
		return protowire.AppendFixed64(b, math.Float64bits(e.float(v, 64, p)))
	case FloatKind:
		return protowire.AppendFixed32(b, math.Float32bits(float32(e.float(v, 32, p))))
	case Int32Kind:
		return protowire.AppendVarint(b, uint64(e.integer(v, math.MinInt32, math.MaxInt32, p)))
	case Sint32Kind:
		return protowire.AppendVarint(b, protowire.EncodeZigZag(e.integer(v, math.MinInt32, math.MaxInt32, p)))
	case Sfixed32Kind:
		return protowire.AppendFixed32(b, uint32(e.integer(v, math.MinInt32, math.MaxInt32, p)))
	case Int64Kind:
		return protowire.AppendVarint(b, uint64(e.integer(v, math.MinInt64, math.MaxInt64, p)))
	case Sint64Kind:
		return protowire.AppendVarint(b, protowire.EncodeZigZag(e.integer(v, math.MinInt64, math.MaxInt64, p)))
	case Sfixed64Kind:
		return protowire.AppendFixed64(b, uint64(e.integer(v, math.MinInt64, math.MaxInt64, p)))
	case Uint32Kind:
		return protowire.AppendVarint(b, e.unsigned(v, math.MaxUint32, p))
	case Fixed32Kind:
		return protowire.AppendFixed32(b, uint32(e.unsigned(v, math.MaxUint32, p)))
	case Uint64Kind:
		return protowire.AppendVarint(b, e.unsigned(v, math.MaxUint64, p))
	case Fixed64Kind:
		return protowire.AppendFixed64(b, e.unsigned(v, math.MaxUint64, p))
	}
	e.invalid(p, v, "a list of %s cannot be packed", f.Name)
	return b
}

// numberText is a JSON number, or a number written as a string (proto JSON
// allows both for every numeric type), as text.
func numberText(v any) (string, bool) {
	switch t := v.(type) {
	case json.Number:
		return string(t), true
	case string:
		return t, isJSONNumber(t)
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64), true
	case int:
		return strconv.Itoa(t), true
	case int64:
		return strconv.FormatInt(t, 10), true
	}
	return "", false
}

// isJSONNumber says whether s is a number by JSON's grammar.
func isJSONNumber(s string) bool {
	digits := func(i int) int {
		j := i
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		return j
	}
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch j := digits(i); {
	case j == i:
		return false
	case s[i] == '0' && j > i+1:
		return false
	default:
		i = j
	}
	if i < len(s) && s[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s)
}

func (e *encoder) integer(v any, lo, hi int64, p *field.Path) int64 {
	s, ok := numberText(v)
	if !ok {
		e.invalid(p, v, "must be an integer")
		return 0
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < lo || n > hi {
			e.invalid(p, v, "out of range")
		}
		return n
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || f < float64(lo) || f >= -float64(math.MinInt64) || f > float64(hi) {
		e.invalid(p, v, "must be an integer in range")
		return 0
	}
	return int64(f)
}

func (e *encoder) unsigned(v any, hi uint64, p *field.Path) uint64 {
	s, ok := numberText(v)
	if !ok {
		e.invalid(p, v, "must be a non-negative integer")
		return 0
	}
	if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		if n > hi {
			e.invalid(p, v, "out of range")
		}
		return n
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || f < 0 || f >= float64(math.MaxUint64) || f > float64(hi) {
		e.invalid(p, v, "must be a non-negative integer in range")
		return 0
	}
	return uint64(f)
}

func (e *encoder) float(v any, bits int, p *field.Path) float64 {
	if s, ok := v.(string); ok {
		switch s {
		case "NaN":
			return math.NaN()
		case "Infinity":
			return math.Inf(1)
		case "-Infinity":
			return math.Inf(-1)
		}
	}
	s, ok := numberText(v)
	if !ok {
		e.invalid(p, v, "must be a number")
		return 0
	}
	f, err := strconv.ParseFloat(s, bits)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		e.invalid(p, v, "must be a finite number in range (or \"NaN\", \"Infinity\", \"-Infinity\")")
		return 0
	}
	return f
}

func (e *encoder) enum(en *Enum, v any, p *field.Path) int32 {
	switch t := v.(type) {
	case nil:
		if en.Name == "google.protobuf.NullValue" {
			return 0
		}
	case string:
		if n, ok := en.Values[t]; ok {
			return n
		}
		names := make([]string, 0, len(en.Values))
		for name := range en.Values {
			names = append(names, name)
		}
		sort.Strings(names)
		e.fail(field.NotSupported(p, t, names))
		return 0
	case json.Number, float64, int, int64:
		return int32(e.integer(t, math.MinInt32, math.MaxInt32, p))
	}
	e.invalid(p, v, "must be a name of %s", en.Name)
	return 0
}

func (e *encoder) bytes(v any, p *field.Path) []byte {
	s, ok := v.(string)
	if !ok {
		e.invalid(p, v, "must be a base64 string")
		return nil
	}
	enc := base64.StdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.URLEncoding
	}
	if len(s)%4 != 0 {
		enc = enc.WithPadding(base64.NoPadding)
	}
	raw, err := enc.DecodeString(s)
	if err != nil {
		e.invalid(p, "", "must be base64: %v", err)
	}
	return raw
}

// wellKnown is the encoder of a type proto JSON writes in a form of its own,
// or nil.
func wellKnown(name string) func(e *encoder, b []byte, m *Message, v any, p *field.Path) []byte {
	switch name {
	case "google.protobuf.Any":
		return (*encoder).any
	case "google.protobuf.Duration":
		return (*encoder).duration
	case "google.protobuf.Timestamp":
		return (*encoder).timestamp
	case "google.protobuf.FieldMask":
		return (*encoder).fieldMask
	case "google.protobuf.Struct":
		return (*encoder).structValue
	case "google.protobuf.ListValue":
		return (*encoder).listValue
	case "google.protobuf.Value":
		return (*encoder).value
	case "google.protobuf.DoubleValue", "google.protobuf.FloatValue", "google.protobuf.Int64Value",
		"google.protobuf.UInt64Value", "google.protobuf.Int32Value", "google.protobuf.UInt32Value",
		"google.protobuf.BoolValue", "google.protobuf.StringValue", "google.protobuf.BytesValue":
		return (*encoder).wrapper
	}
	return nil
}

// any is {"@type": URL, ...the message's fields}, or {"@type": URL, "value":
// ...} for a well-known type.
func (e *encoder) any(b []byte, _ *Message, v any, p *field.Path) []byte {
	obj, ok := v.(map[string]any)
	if !ok {
		e.invalid(p, v, "must be an object with @type")
		return b
	}
	if len(obj) == 0 {
		return b // the empty Any
	}
	url, ok := obj["@type"].(string)
	if !ok || url == "" {
		e.fail(field.Required(p.Child("@type"), "the type URL of the message (an Any)"))
		return b
	}
	inner := ForTypeURL(url)
	if inner == nil {
		e.fail(field.NotFound(p.Child("@type"), url))
		return b
	}
	var value []byte
	if wellKnown(inner.Name) != nil {
		for k := range obj {
			if k != "@type" && k != "value" {
				e.fail(field.Forbidden(p.Child(k), "unknown field of an Any holding "+inner.Name))
			}
		}
		value = e.message(nil, inner, obj["value"], p.Child("value"))
	} else {
		value = e.fields(nil, inner, obj, p, "@type")
	}
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, url)
	if len(value) > 0 {
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, value)
	}
	return b
}

// maxSeconds is the range of Duration and Timestamp seconds proto allows.
const maxDurationSeconds = 315576000000

func (e *encoder) duration(b []byte, _ *Message, v any, p *field.Path) []byte {
	s, ok := v.(string)
	secs, nanos, err := parseDuration(s)
	if !ok || err != nil {
		e.invalid(p, v, "must be a duration in seconds with an s suffix, e.g. \"1.5s\"")
		return b
	}
	return secondsNanos(b, secs, nanos)
}

// ParseDuration reads a proto JSON Duration ("-1.500s").
func ParseDuration(s string) (time.Duration, error) {
	secs, nanos, err := parseDuration(s)
	if err != nil {
		return 0, err
	}
	if secs > math.MaxInt64/int64(time.Second)-1 || secs < math.MinInt64/int64(time.Second)+1 {
		return 0, fmt.Errorf("duration %q out of range", s)
	}
	return time.Duration(secs)*time.Second + time.Duration(nanos), nil
}

// parseDuration reads a Duration as protojson does: an optional sign, an
// integer part without leading zeros (or none before a point), an optional
// point with up to nine digits, and "s".
func parseDuration(s string) (secs int64, nanos int32, err error) {
	bad := fmt.Errorf("invalid duration %q", s)
	body, ok := strings.CutSuffix(s, "s")
	if !ok || body == "" {
		return 0, 0, bad
	}
	neg := body[0] == '-'
	if body[0] == '-' || body[0] == '+' {
		body = body[1:]
	}
	whole, frac, hasFrac := strings.Cut(body, ".")
	if body == "" || strings.Trim(whole, "0123456789") != "" || (len(whole) > 1 && whole[0] == '0') ||
		len(frac) > 9 || strings.Trim(frac, "0123456789") != "" || (whole == "" && !hasFrac) {
		return 0, 0, bad
	}
	if whole != "" {
		secs, err = strconv.ParseInt(whole, 10, 64)
		if err != nil || secs > maxDurationSeconds {
			return 0, 0, bad
		}
	}
	if frac != "" {
		n, _ := strconv.Atoi(frac + strings.Repeat("0", 9-len(frac)))
		nanos = int32(n)
	}
	if neg {
		secs, nanos = -secs, -nanos
	}
	return secs, nanos, nil
}

func secondsNanos(b []byte, secs int64, nanos int32) []byte {
	if secs != 0 {
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(secs))
	}
	if nanos != 0 {
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(int64(nanos)))
	}
	return b
}

func (e *encoder) timestamp(b []byte, _ *Message, v any, p *field.Path) []byte {
	s, ok := v.(string)
	t, err := time.Parse(time.RFC3339Nano, s)
	if !ok || err != nil || t.Year() < 1 || t.Year() > 9999 {
		e.invalid(p, v, "must be an RFC 3339 time, e.g. \"2024-01-01T00:00:00Z\"")
		return b
	}
	return secondsNanos(b, t.Unix(), int32(t.Nanosecond()))
}

func (e *encoder) fieldMask(b []byte, _ *Message, v any, p *field.Path) []byte {
	s, ok := v.(string)
	if !ok {
		e.invalid(p, v, "must be a string of comma-separated paths")
		return b
	}
	if s == "" {
		return b
	}
	for _, path := range strings.Split(s, ",") {
		var snake strings.Builder
		for _, r := range path {
			if r >= 'A' && r <= 'Z' {
				snake.WriteByte('_')
				r += 'a' - 'A'
			} else if r == '_' {
				e.invalid(p, v, "paths are written in lowerCamelCase")
				return b
			}
			snake.WriteRune(r)
		}
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, snake.String())
	}
	return b
}

func (e *encoder) structValue(b []byte, m *Message, v any, p *field.Path) []byte {
	if _, ok := v.(map[string]any); !ok {
		e.invalid(p, v, "must be an object")
		return b
	}
	return e.field(b, m.Field("fields"), v, p)
}

func (e *encoder) listValue(b []byte, m *Message, v any, p *field.Path) []byte {
	if _, ok := v.([]any); !ok {
		e.invalid(p, v, "must be a list")
		return b
	}
	return e.field(b, m.Field("values"), v, p)
}

// value is any JSON value as a google.protobuf.Value.
func (e *encoder) value(b []byte, m *Message, v any, p *field.Path) []byte {
	var name string
	switch t := v.(type) {
	case nil:
		name = "null_value"
	case bool:
		name = "bool_value"
	case string:
		name = "string_value"
	case json.Number, float64, int, int64:
		name = "number_value"
		if f, err := strconv.ParseFloat(fmt.Sprint(t), 64); err != nil || math.IsInf(f, 0) {
			e.invalid(p, v, "must be a finite number")
			return b
		}
	case map[string]any:
		name = "struct_value"
	case []any:
		name = "list_value"
	default:
		e.invalid(p, v, "is not a JSON value")
		return b
	}
	return e.single(b, m.Field(name), v, p, true)
}

// wrapper is a wrapped scalar, written as the scalar.
func (e *encoder) wrapper(b []byte, m *Message, v any, p *field.Path) []byte {
	return e.single(b, m.Field("value"), v, p, false)
}

package protobuf

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"kubeplay/core/types"
)

// fieldError is an encoding or decoding error at a path of JSON field names,
// built up as the error returns through the nesting.
type fieldError struct {
	path []string // outermost last while unwinding; reversed when printed
	msg  string
}

func (e *fieldError) Error() string {
	var b strings.Builder
	for i := len(e.path) - 1; i >= 0; i-- {
		p := e.path[i]
		if b.Len() > 0 && p[0] != '[' {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	if b.Len() == 0 {
		return e.msg
	}
	return b.String() + ": " + e.msg
}

// at adds one path element to err if it is a fieldError.
func at(err error, elem string) error {
	if fe, ok := err.(*fieldError); ok && elem != "" {
		fe.path = append(fe.path, elem)
	}
	return err
}

func index(i int) string { return "[" + strconv.Itoa(i) + "]" }

func typeError(want string, v any) error {
	got := "object"
	switch v := v.(type) {
	case string:
		got = "string " + strconv.Quote(v)
	case json.Number, float64, int, int32, int64:
		got = fmt.Sprintf("number %v", v)
	case bool:
		got = "bool"
	case []any:
		got = "array"
	}
	return &fieldError{msg: "expected " + want + ", got " + got}
}

// appendMessage writes obj's fields as message m, in field-number order, writing
// what gogo's Marshal writes for the typed object that encoding/json would decode
// obj into: value fields always, pointers only when set, JSON fields m does not
// have nowhere.
func appendMessage(b []byte, m *types.Message, obj map[string]any) ([]byte, error) {
	var err error
	for i := range m.Fields {
		f := &m.Fields[i]
		if f.Flags&types.FlagInline != 0 {
			b, err = appendNested(b, f.Num, &types.Messages[f.Msg], obj)
			if err != nil {
				return nil, err
			}
			continue
		}
		v := obj[f.Name]
		switch {
		case f.Flags&types.FlagMap != 0:
			b, err = appendMap(b, f, v)
		case f.Flags&types.FlagRepeated != 0:
			b, err = appendRepeated(b, f, v)
		case v == nil && (f.Flags&types.FlagPointer != 0 || f.Kind == types.KindBytes):
			// nil pointer or nil []byte: not written
		default:
			b, err = appendValue(b, f.Num, f, v)
		}
		if err != nil {
			return nil, at(err, f.Name)
		}
	}
	return b, nil
}

func appendMap(b []byte, f *types.Field, v any) ([]byte, error) {
	if v == nil {
		return b, nil
	}
	entries, ok := v.(map[string]any)
	if !ok {
		return nil, typeError("an object", v)
	}
	var buf [16]string
	keys := buf[:0]
	for k := range entries {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b = protowire.AppendTag(b, protowire.Number(f.Num), protowire.BytesType)
		start := len(b)
		b = append(b, 0)
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, k)
		var err error
		if ev := entries[k]; ev != nil || f.Kind != types.KindBytes {
			if b, err = appendValue(b, 2, f, ev); err != nil {
				return nil, at(err, k)
			}
		}
		b = finishNested(b, start)
	}
	return b, nil
}

func appendRepeated(b []byte, f *types.Field, v any) ([]byte, error) {
	if v == nil {
		return b, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, typeError("an array", v)
	}
	var err error
	for i, ev := range list {
		if b, err = appendValue(b, f.Num, f, ev); err != nil {
			return nil, at(err, index(i))
		}
	}
	return b, nil
}

// appendNested writes field num as the embedded message m holding obj.
func appendNested(b []byte, num int32, m *types.Message, obj map[string]any) ([]byte, error) {
	b = protowire.AppendTag(b, protowire.Number(num), protowire.BytesType)
	start := len(b)
	b = append(b, 0)
	b, err := appendMessage(b, m, obj)
	if err != nil {
		return nil, err
	}
	return finishNested(b, start), nil
}

// finishNested writes the length of the message that follows b[start], where one
// byte was reserved for it, moving the message when the length needs more.
func finishNested(b []byte, start int) []byte {
	n := len(b) - start - 1
	if n < 0x80 {
		b[start] = byte(n)
		return b
	}
	size := protowire.SizeVarint(uint64(n))
	b = append(b, make([]byte, size-1)...)
	copy(b[start+size:], b[start+1:start+1+n])
	protowire.AppendVarint(b[:start], uint64(n))
	return b
}

// appendValue writes one value of f's kind as field num; nil is the kind's zero
// value, as encoding/json leaves a value field for JSON null.
func appendValue(b []byte, num int32, f *types.Field, v any) ([]byte, error) {
	n := protowire.Number(num)
	switch f.Kind {
	case types.KindString:
		s, ok := v.(string)
		if !ok && v != nil {
			return nil, typeError("a string", v)
		}
		b = protowire.AppendTag(b, n, protowire.BytesType)
		return protowire.AppendString(b, s), nil
	case types.KindBytes:
		s, ok := v.(string)
		if !ok && v != nil {
			return nil, typeError("a base64 string", v)
		}
		raw, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, &fieldError{msg: "illegal base64 data: " + err.Error()}
		}
		b = protowire.AppendTag(b, n, protowire.BytesType)
		return protowire.AppendBytes(b, raw), nil
	case types.KindBool:
		x, ok := v.(bool)
		if !ok && v != nil {
			return nil, typeError("a bool", v)
		}
		b = protowire.AppendTag(b, n, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeBool(x)), nil
	case types.KindInt32, types.KindInt64:
		bits := 64
		if f.Kind == types.KindInt32 {
			bits = 32
		}
		x, err := toInt(v, bits)
		if err != nil {
			return nil, err
		}
		b = protowire.AppendTag(b, n, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(x)), nil
	case types.KindDouble:
		x, err := toFloat(v)
		if err != nil {
			return nil, err
		}
		b = protowire.AppendTag(b, n, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(x)), nil
	case types.KindMessage:
		obj, ok := v.(map[string]any)
		if !ok && v != nil {
			return nil, typeError("an object", v)
		}
		return appendNested(b, num, &types.Messages[f.Msg], obj)
	case types.KindSchemaOrArray, types.KindSchemaOrBool, types.KindSchemaOrStringArray:
		fields, err := eitherFields(f.Kind, v)
		if err != nil {
			return nil, err
		}
		return appendNested(b, num, &types.Messages[f.Msg], fields)
	}
	b = protowire.AppendTag(b, n, protowire.BytesType)
	start := len(b)
	b = append(b, 0)
	b, err := appendSpecial(b, f.Kind, v)
	if err != nil {
		return nil, err
	}
	return finishNested(b, start), nil
}

// toInt reads an integer of the given size as encoding/json does: no fraction, no
// exponent, in range.
func toInt(v any, bits int) (int64, error) {
	want := "an int64"
	if bits == 32 {
		want = "an int32"
	}
	var x int64
	switch v := v.(type) {
	case nil:
		return 0, nil
	case json.Number:
		var err error
		if x, err = strconv.ParseInt(string(v), 10, 64); err != nil {
			return 0, typeError(want, v)
		}
	case float64:
		if v != math.Trunc(v) || v < math.MinInt64 || v >= math.MaxInt64 {
			return 0, typeError(want, v)
		}
		x = int64(v)
	case int:
		x = int64(v)
	case int32:
		x = int64(v)
	case int64:
		x = v
	default:
		return 0, typeError(want, v)
	}
	if bits == 32 && (x < math.MinInt32 || x > math.MaxInt32) {
		return 0, typeError(want, v)
	}
	return x, nil
}

// toFloat reads a float64 as encoding/json does.
func toFloat(v any) (float64, error) {
	switch v := v.(type) {
	case nil:
		return 0, nil
	case json.Number:
		x, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return 0, typeError("a float64", v)
		}
		return x, nil
	case float64:
		return v, nil
	case int:
		return float64(v), nil
	case int32:
		return float64(v), nil
	case int64:
		return float64(v), nil
	}
	return 0, typeError("a float64", v)
}

// appendSpecial writes the body of a special type's message, as its own
// (custom or generated) Marshal writes it after its UnmarshalJSON read v.
func appendSpecial(b []byte, k types.Kind, v any) ([]byte, error) {
	switch k {
	case types.KindTime, types.KindMicroTime:
		s, ok := v.(string)
		if !ok && v != nil {
			return nil, typeError("an RFC 3339 time string", v)
		}
		if v == nil {
			return b, nil
		}
		layout := time.RFC3339
		if k == types.KindMicroTime {
			layout = types.RFC3339Micro
		}
		t, err := time.Parse(layout, s)
		if err != nil {
			return nil, &fieldError{msg: err.Error()}
		}
		if t.IsZero() {
			return b, nil // a zero Time marshals to an empty message
		}
		nanos := int64(0) // Time keeps seconds only
		if k == types.KindMicroTime {
			nanos = int64(time.Duration(t.Nanosecond()).Truncate(time.Microsecond))
		}
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(t.Unix()))
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(nanos)), nil
	case types.KindQuantity:
		// kube-apiserver writes the canonical form of the parsed quantity; the
		// stored string is written as it is (stored quantities are expected to be
		// canonical already).
		var s string
		switch v := v.(type) {
		case nil:
			s = "0"
		case string:
			s = v
		case json.Number:
			s = string(v)
		default:
			return nil, typeError("a quantity string", v)
		}
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		return protowire.AppendString(b, s), nil
	case types.KindIntOrString:
		var typ, i int64
		s, isString := v.(string)
		if isString {
			typ = 1
		} else {
			var err error
			if i, err = toInt(v, 32); err != nil {
				return nil, typeError("an int32 or a string", v)
			}
		}
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(typ))
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(i))
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		return protowire.AppendString(b, s), nil
	case types.KindRawExtension, types.KindFieldsV1:
		if v == nil {
			return b, nil // JSON null leaves Raw nil
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, &fieldError{msg: err.Error()}
		}
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		return protowire.AppendBytes(b, raw), nil
	}
	return nil, &fieldError{msg: fmt.Sprintf("no encoding for kind %d", k)}
}

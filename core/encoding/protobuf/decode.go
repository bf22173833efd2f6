package protobuf

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"kubeplay/core/object"
	"kubeplay/core/quantity"
	"kubeplay/core/types"
)

func parseError(n int) error { return &fieldError{msg: protowire.ParseError(n).Error()} }

// decodeMessage reads the fields of message m from data into out, as gogo's
// generated Unmarshal reads them into a typed struct: the last value of a scalar
// wins, embedded messages merge, repeated fields append, unknown fields are
// skipped. finish then makes out what encoding/json writes for that struct.
func decodeMessage(data []byte, m *types.Message, out map[string]any) error {
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return parseError(n)
		}
		data = data[n:]
		f := m.LookupField(int32(num))
		if f == nil {
			if n = protowire.ConsumeFieldValue(num, typ, data); n < 0 {
				return parseError(n)
			}
			data = data[n:]
			continue
		}
		n, err := decodeField(data, typ, f, out)
		if err != nil {
			return at(err, f.Name)
		}
		data = data[n:]
	}
	return nil
}

func isVarint(k types.Kind) bool {
	return k == types.KindBool || k == types.KindInt32 || k == types.KindInt64
}

// wireType is the wire type of a single value of kind k.
func wireType(k types.Kind) protowire.Type {
	switch {
	case isVarint(k):
		return protowire.VarintType
	case k == types.KindDouble:
		return protowire.Fixed64Type
	}
	return protowire.BytesType
}

// doubleValue is a float64 as encoding/json writes it.
func doubleValue(bits uint64) (any, error) {
	b, err := json.Marshal(math.Float64frombits(bits))
	if err != nil {
		return nil, &fieldError{msg: err.Error()}
	}
	return json.Number(b), nil
}

func varintValue(k types.Kind, v uint64) any {
	switch k {
	case types.KindBool:
		return v != 0
	case types.KindInt32:
		return json.Number(strconv.FormatInt(int64(int32(v)), 10))
	}
	return json.Number(strconv.FormatInt(int64(v), 10))
}

// decodeField reads the value of f at the start of data, whose wire type is typ,
// into out, and reports how many bytes it used.
func decodeField(data []byte, typ protowire.Type, f *types.Field, out map[string]any) (int, error) {
	packed := isVarint(f.Kind) && f.Flags&types.FlagRepeated != 0 && typ == protowire.BytesType
	if want := protowire.BytesType; !packed {
		if f.Flags&types.FlagMap == 0 {
			want = wireType(f.Kind)
		}
		if typ != want {
			return 0, &fieldError{msg: fmt.Sprintf("wrong wire type %d", typ)}
		}
	}
	if typ == protowire.Fixed64Type {
		bits, n := protowire.ConsumeFixed64(data)
		if n < 0 {
			return 0, parseError(n)
		}
		v, err := doubleValue(bits)
		if err != nil {
			return 0, err
		}
		if f.Flags&types.FlagRepeated != 0 {
			out[f.Name] = appendList(out[f.Name], v)
		} else {
			out[f.Name] = v
		}
		return n, nil
	}
	if typ == protowire.VarintType {
		v, n := protowire.ConsumeVarint(data)
		if n < 0 {
			return 0, parseError(n)
		}
		if f.Flags&types.FlagRepeated != 0 {
			out[f.Name] = appendList(out[f.Name], varintValue(f.Kind, v))
		} else {
			out[f.Name] = varintValue(f.Kind, v)
		}
		return n, nil
	}
	payload, n := protowire.ConsumeBytes(data)
	if n < 0 {
		return 0, parseError(n)
	}
	switch {
	case packed:
		for len(payload) > 0 {
			v, m := protowire.ConsumeVarint(payload)
			if m < 0 {
				return 0, parseError(m)
			}
			out[f.Name] = appendList(out[f.Name], varintValue(f.Kind, v))
			payload = payload[m:]
		}
	case f.Flags&types.FlagInline != 0:
		return n, decodeMessage(payload, &types.Messages[f.Msg], out)
	case f.Flags&types.FlagMap != 0:
		key, v, err := decodeEntry(payload, f)
		if err != nil {
			return 0, err
		}
		entries, _ := out[f.Name].(map[string]any)
		if entries == nil {
			entries = map[string]any{}
			out[f.Name] = entries
		}
		entries[key] = v
	case f.Kind == types.KindMessage && f.Flags&types.FlagRepeated != 0:
		list, _ := out[f.Name].([]any)
		obj := map[string]any{}
		out[f.Name] = append(list, obj)
		if err := decodeMessage(payload, &types.Messages[f.Msg], obj); err != nil {
			return 0, at(err, index(len(list)))
		}
	case f.Kind == types.KindMessage:
		obj, _ := out[f.Name].(map[string]any)
		if obj == nil {
			obj = map[string]any{}
			out[f.Name] = obj
		}
		return n, decodeMessage(payload, &types.Messages[f.Msg], obj)
	default:
		v, err := decodeBytesValue(payload, f.Kind, f.Msg)
		if err != nil {
			return 0, err
		}
		if f.Flags&types.FlagRepeated != 0 {
			out[f.Name] = appendList(out[f.Name], v)
		} else {
			out[f.Name] = v
		}
	}
	return n, nil
}

func appendList(list any, v any) []any {
	l, _ := list.([]any)
	return append(l, v)
}

// decodeBytesValue reads one length-delimited value of kind k.
func decodeBytesValue(payload []byte, k types.Kind, msg uint16) (any, error) {
	switch k {
	case types.KindString:
		return string(payload), nil
	case types.KindBytes:
		return base64.StdEncoding.EncodeToString(payload), nil
	case types.KindMessage:
		obj := map[string]any{}
		return obj, decodeMessage(payload, &types.Messages[msg], obj)
	case types.KindSchemaOrArray, types.KindSchemaOrBool, types.KindSchemaOrStringArray:
		fields := map[string]any{}
		if err := decodeMessage(payload, &types.Messages[msg], fields); err != nil {
			return nil, err
		}
		return eitherJSON(k, fields), nil
	}
	return decodeSpecial(payload, k)
}

// decodeEntry reads one map entry {key = 1, value = 2}; a missing part is its
// zero value, as gogo reads it.
func decodeEntry(data []byte, f *types.Field) (string, any, error) {
	var key string
	var value any
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return "", nil, parseError(n)
		}
		data = data[n:]
		if (num == 1 || num == 2) && typ != protowire.BytesType {
			return "", nil, &fieldError{msg: fmt.Sprintf("wrong wire type %d in a map entry", typ)}
		}
		switch num {
		case 1:
			var s []byte
			if s, n = protowire.ConsumeBytes(data); n >= 0 {
				key = string(s)
			}
		case 2:
			var payload []byte
			if payload, n = protowire.ConsumeBytes(data); n >= 0 {
				v, err := decodeBytesValue(payload, f.Kind, f.Msg)
				if err != nil {
					return "", nil, at(err, key)
				}
				value = v
			}
		default:
			n = protowire.ConsumeFieldValue(num, typ, data)
		}
		if n < 0 {
			return "", nil, parseError(n)
		}
		data = data[n:]
	}
	if value == nil {
		v, err := decodeBytesValue(nil, f.Kind, f.Msg)
		if err != nil {
			return "", nil, at(err, key)
		}
		value = v
	}
	return key, value, nil
}

// scalars reads a special type's message, whose fields are all scalars: each
// field's last value by number (varints as uint64, bytes as []byte). Fields other
// than 1..3 are skipped; wire types must match want (indexed by number - 1).
func scalars(data []byte, want []protowire.Type) ([3]any, error) {
	var vals [3]any
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return vals, parseError(n)
		}
		data = data[n:]
		if int(num) > len(want) {
			if n = protowire.ConsumeFieldValue(num, typ, data); n < 0 {
				return vals, parseError(n)
			}
			data = data[n:]
			continue
		}
		if typ != want[num-1] {
			return vals, &fieldError{msg: fmt.Sprintf("wrong wire type %d for field %d", typ, num)}
		}
		if typ == protowire.VarintType {
			v, n := protowire.ConsumeVarint(data)
			if n < 0 {
				return vals, parseError(n)
			}
			vals[num-1] = v
			data = data[n:]
		} else {
			v, n := protowire.ConsumeBytes(data)
			if n < 0 {
				return vals, parseError(n)
			}
			vals[num-1] = v
			data = data[n:]
		}
	}
	return vals, nil
}

var (
	timestampWire = []protowire.Type{protowire.VarintType, protowire.VarintType}
	intstrWire    = []protowire.Type{protowire.VarintType, protowire.VarintType, protowire.BytesType}
	bytesWire     = []protowire.Type{protowire.BytesType}
)

// decodeSpecial reads a special type's message into the JSON value its
// MarshalJSON writes.
func decodeSpecial(data []byte, k types.Kind) (any, error) {
	switch k {
	case types.KindTime, types.KindMicroTime:
		if len(data) == 0 {
			return nil, nil // zero time
		}
		vals, err := scalars(data, timestampWire)
		if err != nil {
			return nil, err
		}
		seconds, _ := vals[0].(uint64)
		nanos, _ := vals[1].(uint64)
		if k == types.KindTime {
			t := time.Unix(int64(seconds), 0) // Time drops the nanoseconds
			if t.IsZero() {
				return nil, nil
			}
			return t.UTC().Format(time.RFC3339), nil
		}
		t := time.Unix(int64(seconds), int64(time.Duration(int32(nanos)).Truncate(time.Microsecond)))
		if t.IsZero() {
			return nil, nil
		}
		return t.UTC().Format(types.RFC3339Micro), nil
	case types.KindQuantity:
		vals, err := scalars(data, bytesWire)
		if err != nil {
			return nil, err
		}
		s, ok := vals[0].([]byte)
		if !ok {
			return "0", nil // the zero Quantity
		}
		q, err := quantity.Canonical(string(s))
		if err != nil {
			return nil, &fieldError{msg: err.Error()}
		}
		return q, nil
	case types.KindIntOrString:
		vals, err := scalars(data, intstrWire)
		if err != nil {
			return nil, err
		}
		typ, _ := vals[0].(uint64)
		switch typ {
		case 0:
			i, _ := vals[1].(uint64)
			return json.Number(strconv.FormatInt(int64(int32(i)), 10)), nil
		case 1:
			s, _ := vals[2].([]byte)
			return string(s), nil
		}
		return nil, &fieldError{msg: "impossible IntOrString.Type"}
	case types.KindRawExtension, types.KindFieldsV1:
		vals, err := scalars(data, bytesWire)
		if err != nil {
			return nil, err
		}
		raw, ok := vals[0].([]byte)
		if !ok {
			return nil, nil // Raw nil marshals as null
		}
		return decodeJSONValue(raw)
	}
	return nil, &fieldError{msg: fmt.Sprintf("no decoding for kind %d", k)}
}

// decodeJSONValue parses raw JSON embedded in a message (RawExtension, FieldsV1).
func decodeJSONValue(raw []byte) (any, error) {
	v, err := object.DecodeValue(raw)
	if err != nil {
		return nil, &fieldError{msg: "embedded JSON: " + err.Error()}
	}
	return v, nil
}

package types

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"kubeplay/core/encoding"
	"kubeplay/core/object"
	"kubeplay/core/quantity"
)

// cborTypeError is fxamacker/cbor's UnmarshalTypeError as kube's CBOR decoding
// words it: the field named is the top-level field of the kind's struct that
// holds the value, since every enclosing struct renames the error.
type cborTypeError struct {
	cborType string // "positive integer", "byte string", "UTF-8 text string", "map", "primitives", ...
	goType   string
	field    string // "v1.Pod.spec"; empty for a Go value
	detail   string // "2147483648 overflows int32"
}

func (e *cborTypeError) Error() string {
	s := "cbor: cannot unmarshal " + e.cborType + " into Go value of type " + e.goType
	if e.field != "" {
		s = "cbor: cannot unmarshal " + e.cborType + " into Go struct field " + e.field + " of type " + e.goType
	}
	if e.detail != "" {
		s += " (" + e.detail + ")"
	}
	return s
}

// cborType names the CBOR type of a value DecodeCBORValue read.
func cborType(v any) string {
	switch v := v.(type) {
	case map[string]any:
		return "map"
	case []any:
		return "array"
	case string:
		return "UTF-8 text string"
	case encoding.ByteString:
		return "byte string"
	case uint64:
		return "positive integer"
	case int64:
		if v >= 0 {
			return "positive integer"
		}
		return "negative integer"
	}
	return "primitives" // floats, bools, null
}

// DecodeCBOR reads data, a CBOR request body for kind in apiVersion, as
// kube-apiserver reads it into the kind's Go type (fxamacker/cbor in kube's
// modes, and the special types' UnmarshalCBOR), and returns the object that
// type holds in JSON form, as DecodeJSON does for JSON. The rules are CBOR's:
//
//   - A document kube's modes reject, one that is no map, or a kind or
//     apiVersion that is not a string is a *KindError; but a key given twice
//     in a nested map is fxamacker/cbor's error, as kube's typed decoding
//     names it.
//   - The first error in the document stops decoding; maps are visited in the
//     canonical key order every kube client writes.
//   - Integers do not fit a float field, nor floats an integer one; strings may
//     be text or byte strings, but a []byte is a byte string holding base64
//     (or one tagged as raw bytes), never text.
//   - null leaves a value field as it was; an int-or-string reads it as the
//     empty string.
//   - As DecodeJSON, a time whose year in UTC leaves 0000..9999 is an error.
func DecodeCBOR(apiVersion, kind string, data []byte) (object.Object, error) {
	m, err := lookup(apiVersion, kind)
	if err != nil {
		return nil, err
	}
	v, err := encoding.DecodeCBORValue(data)
	if err != nil {
		if encoding.CBORNestedDuplicate(data, err) {
			return nil, err // kube's typed decoding names it
		}
		return nil, &KindError{msg: "unable to determine group/version/kind: " + err.Error()}
	}
	in, isMap := v.(map[string]any)
	if !isMap && v != nil {
		e := &cborTypeError{cborType: cborType(v), goType: "v1.TypeMeta"}
		if _, isArray := v.([]any); isArray {
			e.detail = "cannot decode CBOR array to struct without toarray option"
		}
		return nil, &KindError{msg: "unable to determine group/version/kind: " + e.Error()}
	}
	for _, key := range []string{"kind", "apiVersion"} { // TypeMeta's fields, as CBOR orders them
		switch x := in[key]; x.(type) {
		case nil, string, encoding.ByteString:
		default:
			e := &cborTypeError{cborType: cborType(x), goType: "string", field: "v1.TypeMeta." + key}
			return nil, &KindError{msg: "unable to determine group/version/kind: " + e.Error()}
		}
	}
	d := cborDecoder{root: GoTypes[m.GoType]}
	obj := object.Object{}
	if err := d.message(m, in, obj, true); err != nil {
		return nil, err
	}
	return obj, nil
}

type cborDecoder struct {
	root string // the kind's Go type
	top  string // the kind's top-level field being decoded
}

func (d *cborDecoder) typeErr(v any, goType, detail string) error {
	return &cborTypeError{cborType: cborType(v), goType: goType, field: d.root + "." + d.top, detail: detail}
}

// canonicalOrder sorts map keys as canonical CBOR does: shorter first.
func canonicalOrder(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

func (d *cborDecoder) message(m *Message, in, out map[string]any, root bool) error {
	for _, key := range slices.SortedFunc(maps.Keys(in), canonicalOrder) {
		v := in[key]
		f := m.byName(key)
		if root {
			d.top = key
		}
		switch {
		case f != nil:
			if err := d.field(out, f, v); err != nil {
				return err
			}
		case m.TypeMeta && (key == "kind" || key == "apiVersion"):
			switch s := v.(type) {
			case string:
				out[key] = s
			case encoding.ByteString:
				out[key] = string(s)
			case nil:
			default:
				return d.typeErr(v, "string", "")
			}
		}
	}
	return nil
}

func (d *cborDecoder) field(out map[string]any, f *Field, v any) error {
	var err error
	var set bool
	switch {
	case v == nil && f.Flags&(FlagPointer|FlagRepeated|FlagMap) != 0:
		set = true
	case v == nil:
		// A plain value field keeps what it had; the special types read
		// null themselves.
		switch f.Kind {
		case KindQuantity:
			v, set = "0", true
		case KindIntOrString:
			v, set = "", true
		case KindBytes, KindTime, KindMicroTime, KindRawExtension, KindFieldsV1:
			set = true
		}
	case f.Flags&FlagMap != 0:
		entries, ok := v.(map[string]any)
		if !ok {
			return d.typeErr(v, GoTypes[f.GoType], "")
		}
		m := make(map[string]any, len(entries))
		for _, key := range slices.SortedFunc(maps.Keys(entries), canonicalOrder) {
			if m[key], err = d.one(f, GoTypes[f.ElemType], entries[key]); err != nil {
				return err
			}
		}
		v, set = m, true
	case f.Flags&FlagRepeated != 0:
		list, ok := v.([]any)
		if !ok {
			return d.typeErr(v, GoTypes[f.GoType], "")
		}
		l := make([]any, len(list))
		for i, e := range list {
			if l[i], err = d.one(f, GoTypes[f.ElemType], e); err != nil {
				return err
			}
		}
		v, set = l, true
	default:
		if v, err = d.one(f, GoTypes[f.GoType], v); err != nil {
			return err
		}
		set = true
	}
	setField(out, f.Name, v, set)
	return nil
}

// one decodes one value of f's kind whose Go type is goType (the field's, or
// an element's); null is the zero value (of a map value or list element).
func (d *cborDecoder) one(f *Field, goType string, v any) (any, error) {
	if v == nil {
		switch f.Kind {
		case KindQuantity:
			return "0", nil
		case KindIntOrString, KindString, KindBytes: // IntOrString reads null as ""
			return "", nil
		case KindBool:
			return false, nil
		case KindInt32, KindInt64:
			return json.Number("0"), nil
		case KindMessage:
			return map[string]any{}, nil
		}
		return nil, nil
	}
	switch f.Kind {
	case KindString:
		switch s := v.(type) {
		case string:
			return s, nil
		case encoding.ByteString:
			return string(s), nil
		}
	case KindBool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case KindInt32, KindInt64:
		bits := 64
		if f.Kind == KindInt32 {
			bits = 32
		}
		return d.integer(v, goType, bits)
	case KindBytes:
		return d.bytes(v, goType)
	case KindMessage:
		in, ok := v.(map[string]any)
		if !ok {
			detail := ""
			if _, isArray := v.([]any); isArray {
				detail = "cannot decode CBOR array to struct without toarray option"
			}
			return nil, d.typeErr(v, goType, detail)
		}
		out := map[string]any{}
		return out, d.message(&Messages[f.Msg], in, out, false)
	default:
		return d.special(f.Kind, v)
	}
	return nil, d.typeErr(v, goType, "")
}

// integer reads an integer of the given size.
func (d *cborDecoder) integer(v any, goType string, bits int) (any, error) {
	var s string
	switch n := v.(type) {
	case int64:
		if bits == 32 && int64(int32(n)) != n {
			s = strconv.FormatInt(n, 10)
			break
		}
		return json.Number(strconv.FormatInt(n, 10)), nil
	case uint64:
		if n <= 1<<(bits-1)-1 {
			return json.Number(strconv.FormatUint(n, 10)), nil
		}
		s = strconv.FormatUint(n, 10)
	default:
		return nil, d.typeErr(v, goType, "")
	}
	return nil, d.typeErr(v, goType, s+" overflows "+goType)
}

// bytes reads a []byte: a byte string holding base64, or an array of bytes.
func (d *cborDecoder) bytes(v any, goType string) (any, error) {
	switch v := v.(type) {
	case encoding.ByteString:
		raw, err := base64.StdEncoding.DecodeString(string(v))
		if err != nil {
			return nil, errors.New("cbor: failed to decode base64 from byte string: " + err.Error())
		}
		return base64.StdEncoding.EncodeToString(raw), nil
	case []any:
		raw := make([]byte, len(v))
		for i, e := range v {
			var n uint64
			switch e := e.(type) {
			case nil:
			case uint64:
				n = e
			case int64:
				if e < 0 {
					return nil, d.typeErr(e, "uint8", "")
				}
				n = uint64(e)
			default:
				return nil, d.typeErr(e, "uint8", "")
			}
			if n > 255 {
				return nil, d.typeErr(e, "uint8", strconv.FormatUint(n, 10)+" overflows uint8")
			}
			raw[i] = byte(n)
		}
		return base64.StdEncoding.EncodeToString(raw), nil
	}
	return nil, d.typeErr(v, goType, "")
}

// special reads a value of a type with its own UnmarshalCBOR.
func (d *cborDecoder) special(k Kind, v any) (any, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case encoding.ByteString:
		s = string(x)
	default:
		switch k {
		case KindTime, KindMicroTime, KindQuantity: // read as a string
			return nil, d.typeErr(v, "string", "")
		case KindIntOrString: // not a string, so an int32
			return d.integer(v, "int32", 32)
		}
		return encoding.CBORToObject(v) // RawExtension, FieldsV1: any value
	}
	switch k {
	case KindTime, KindMicroTime:
		layout := time.RFC3339
		if k == KindMicroTime {
			layout = RFC3339Micro
		}
		t, err := time.Parse(layout, s)
		if err != nil {
			return nil, err
		}
		return timeValue(t, layout)
	case KindQuantity:
		return quantity.Canonical(strings.TrimSpace(s))
	}
	return s, nil // IntOrString's string; a raw value's string
}

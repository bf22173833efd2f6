package types

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/quantity"
)

// A KindError is the serializer's error when the kind and apiVersion of a body
// cannot be read: the body is no JSON (or CBOR), or not an object, or kind or
// apiVersion is not a string. kube-apiserver answers it as an unrecognized
// object; other errors as an object it cannot handle.
type KindError struct{ msg string }

func (e *KindError) Error() string { return e.msg }

// unmarshalTypeError is encoding/json's UnmarshalTypeError, worded as the JSON decoding
// of kube's typed objects (sigs.k8s.io/json) words it: the innermost struct and
// the JSON field names from the root, without map keys or list indexes.
type unmarshalTypeError struct {
	value  string // "string", "number", "number 1.5", "bool", "object", "array"
	goType string
	strct  string
	field  string
}

func (e *unmarshalTypeError) Error() string {
	if e.strct != "" || e.field != "" {
		return "json: cannot unmarshal " + e.value + " into Go struct field " + e.strct + "." + e.field + " of type " + e.goType
	}
	return "json: cannot unmarshal " + e.value + " into Go value of type " + e.goType
}

// DecodeJSON reads data, a request body for kind in apiVersion (JSON, or YAML
// made JSON), as kube-apiserver reads it into the kind's Go type, and returns
// the object that type holds in JSON form:
//
//   - A syntax error, a body that is not an object, or a kind or apiVersion
//     (matched case-insensitively) that is not a string is a *KindError, with
//     encoding/json's wording.
//   - A value of the wrong type is an error naming the struct, the JSON path and
//     the Go type ("json: cannot unmarshal number into Go struct field
//     ConfigMap.data of type string"); a time, quantity or int-or-string that
//     does not parse is its own error. As in kube, the first of these in the
//     body wins, except that the special types' errors stop decoding at once
//     and so win over the others.
//   - Fields the type does not have are dropped, and keys are matched
//     case-sensitively. A key given twice is decoded twice: structs and maps
//     merge, list elements are decoded into the elements already there.
//   - null leaves a value field as it was and clears a pointer, list or map; a
//     null map value or list element is the element type's zero value.
//   - Values come out as the typed object writes them: integers in decimal,
//     []byte in standard base64 (a JSON array of bytes is read too), quantities
//     canonical, times in UTC at their precision (a zero time is dropped).
//   - Stricter than kube, as kube would then serve what it cannot read back: a
//     time whose year in UTC leaves 0000..9999 is an error, and so is a number
//     no float64 holds in a free-form value (below).
//   - Free-form values (RawExtension, FieldsV1) are kept as JSON. Their numbers
//     must fit a float64, as kube's CBOR and unstructured forms need: kube
//     would accept a larger one here and then fail to serve it.
func DecodeJSON(apiVersion, kind string, data []byte) (object.Object, error) {
	m, err := lookup(apiVersion, kind)
	if err != nil {
		return nil, err
	}
	d := jsonDecoder{s: object.NewScanner(data)}
	obj := object.Object{}
	ok := false
	switch d.s.Peek() {
	case '{':
		d.s.Consume('{')
		ok = d.message(m, m.StructName(), obj, true) && d.s.AtEnd()
	case 'n': // null decodes into the zero object
		ok = d.s.Literal("null") && d.s.AtEnd()
	}
	if !ok || d.suspect {
		if err := interpretKind(data); err != nil {
			return nil, err
		}
		if !ok { // never: encoding/json read what the scanner could not
			return nil, &KindError{msg: "couldn't get version/kind; json parse error: unreadable JSON"}
		}
	}
	if d.fatal != nil {
		return nil, d.fatal
	}
	if d.saved != nil {
		return nil, d.saved
	}
	return obj, nil
}

// interpretKind reads kind and apiVersion off a body as kube's JSON serializer
// first does (encoding/json, so keys match case-insensitively), for its errors.
func interpretKind(data []byte) error {
	var findKind struct {
		APIVersion string `json:"apiVersion,omitempty"`
		Kind       string `json:"kind,omitempty"`
	}
	if err := json.Unmarshal(data, &findKind); err != nil {
		return &KindError{msg: "couldn't get version/kind; json parse error: " + err.Error()}
	}
	return nil
}

type jsonDecoder struct {
	s     *object.Scanner
	path  []string // JSON field names from the root, as errors name them
	saved error    // the first error decoding goes on after
	fatal error    // the first error that stops kube's decoding (it wins)
	// suspect: a top-level key that encoding/json matches to kind or
	// apiVersion holds something other than a string.
	suspect bool
}

func (d *jsonDecoder) typeErr(value, goType, strct string) {
	if d.saved == nil {
		d.saved = &unmarshalTypeError{value: value, goType: goType, strct: strct, field: strings.Join(d.path, ".")}
	}
}

func (d *jsonDecoder) fail(err error) {
	if d.fatal == nil {
		d.fatal = err
	}
}

// tokenKind is how encoding/json names the JSON value starting with c.
func tokenKind(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

func isNumberStart(c byte) bool { return c == '-' || c >= '0' && c <= '9' }

// byName finds the field a JSON key names in m or the messages m inlines.
func (m *Message) byName(name string) *Field {
	for i := range m.Fields {
		f := &m.Fields[i]
		if f.Flags&FlagInline != 0 {
			if g := Messages[f.Msg].byName(name); g != nil {
				return g
			}
		} else if f.Name == name {
			return f
		}
	}
	return nil
}

// message decodes the members of an object (its '{' read) into out as message
// m; strct names m's Go struct (its parent's, for an inlined message).
func (d *jsonDecoder) message(m *Message, strct string, out map[string]any, root bool) bool {
	if d.s.Empty('}') {
		return true
	}
	for {
		key, ok := d.s.Key()
		if !ok {
			return false
		}
		if root && (strings.EqualFold(key, "kind") || strings.EqualFold(key, "apiVersion")) {
			if c := d.s.Peek(); c != '"' && c != 'n' {
				d.suspect = true
			}
		}
		switch f := m.byName(key); {
		case f != nil:
			d.path = append(d.path, key)
			ok = d.field(out, f, strct)
			d.path = d.path[:len(d.path)-1]
		case m.TypeMeta && (key == "kind" || key == "apiVersion"):
			d.path = append(d.path, key)
			ok = d.typeMeta(out, key, strct)
			d.path = d.path[:len(d.path)-1]
		default:
			ok = d.s.Skip()
		}
		if !ok {
			return false
		}
		more, ok := d.s.Next('}')
		if !more {
			return ok
		}
	}
}

// typeMeta decodes kind or apiVersion, the string fields of metav1.TypeMeta.
func (d *jsonDecoder) typeMeta(out map[string]any, key, strct string) bool {
	switch c := d.s.Peek(); c {
	case '"':
		s, ok := d.s.String()
		out[key] = s
		return ok
	case 'n':
		return d.s.Literal("null")
	default:
		d.typeErr(tokenKind(c), "string", strct)
		return d.s.Skip()
	}
}

// field decodes the value of field f into out.
func (d *jsonDecoder) field(out map[string]any, f *Field, strct string) bool {
	cur := out[f.Name]
	var v any
	var set, ok bool
	switch {
	case d.s.Peek() == 'n' && f.Flags&(FlagPointer|FlagRepeated|FlagMap) != 0:
		v, set, ok = nil, true, d.s.Literal("null")
	case f.Flags&FlagMap != 0:
		v, set, ok = d.mapValue(f, strct, cur)
	case f.Flags&FlagRepeated != 0:
		v, set, ok = d.list(f, strct, cur)
	default:
		v, set, ok = d.one(f, false, strct, cur)
	}
	setField(out, f.Name, v, set)
	return ok
}

// setField stores v as out's field name when set, or removes the field when v
// is nil.
func setField(out map[string]any, name string, v any, set bool) {
	switch {
	case !set:
	case v == nil:
		delete(out, name)
	default:
		out[name] = v
	}
}

// mapValue decodes a map field. A key given twice merges into the map there.
func (d *jsonDecoder) mapValue(f *Field, strct string, cur any) (any, bool, bool) {
	if c := d.s.Peek(); c != '{' {
		d.typeErr(tokenKind(c), GoTypes[f.GoType], strct)
		return nil, false, d.s.Skip()
	}
	d.s.Consume('{')
	entries, _ := cur.(map[string]any)
	if entries == nil {
		entries = map[string]any{}
	}
	if d.s.Empty('}') {
		return entries, true, true
	}
	for {
		key, ok := d.s.Key()
		if !ok {
			return nil, false, false
		}
		v, set, ok := d.one(f, true, strct, nil)
		if !ok {
			return nil, false, false
		}
		if set {
			entries[key] = v
		}
		more, ok := d.s.Next('}')
		if !more {
			return entries, true, ok
		}
	}
}

// list decodes a repeated field. A key given twice decodes its elements into
// the elements already there and then drops the rest.
func (d *jsonDecoder) list(f *Field, strct string, cur any) (any, bool, bool) {
	if c := d.s.Peek(); c != '[' {
		d.typeErr(tokenKind(c), GoTypes[f.GoType], strct)
		return nil, false, d.s.Skip()
	}
	d.s.Consume('[')
	old, _ := cur.([]any)
	list := old[:0]
	if d.s.Empty(']') {
		return []any{}, true, true
	}
	for i := 0; ; i++ {
		var prev any
		if i < len(old) {
			prev = old[i]
		}
		v, set, ok := d.one(f, true, strct, prev)
		if !ok {
			return nil, false, false
		}
		if !set {
			v = prev
		}
		list = append(list, v)
		more, ok := d.s.Next(']')
		if !more {
			return list, true, ok
		}
	}
}

// one decodes one value of f's kind: the field itself, or (elem) a map value
// or list element. cur is what it holds already. It returns the value, whether
// to store it (nil: remove the field), and whether the syntax was good.
func (d *jsonDecoder) one(f *Field, elem bool, strct string, cur any) (any, bool, bool) {
	goType := GoTypes[f.GoType]
	if elem {
		goType = GoTypes[f.ElemType]
	}
	c := d.s.Peek()
	if c == 'n' {
		v, set := nullValue(f, elem, cur)
		return v, set, d.s.Literal("null")
	}
	switch f.Kind {
	case KindString:
		if c == '"' {
			s, ok := d.s.String()
			return s, true, ok
		}
	case KindBool:
		if c == 't' {
			return true, true, d.s.Literal("true")
		}
		if c == 'f' {
			return false, true, d.s.Literal("false")
		}
	case KindInt32, KindInt64:
		if isNumberStart(c) {
			lit, ok := d.s.Number()
			n, err := strconv.ParseInt(lit, 10, 64)
			if err != nil || f.Kind == KindInt32 && int64(int32(n)) != n {
				d.typeErr("number "+lit, goType, strct)
				return nil, false, ok
			}
			return intNumber(lit), true, ok
		}
	case KindBytes:
		switch c {
		case '"':
			return d.base64String()
		case '[':
			return d.byteArray(strct)
		}
	case KindMessage:
		if c == '{' {
			d.s.Consume('{')
			obj, _ := cur.(map[string]any)
			if obj == nil {
				obj = map[string]any{}
			}
			m := &Messages[f.Msg]
			return obj, true, d.message(m, m.StructName(), obj, false)
		}
	default:
		return d.special(f.Kind, c, strct)
	}
	// A value of another type: kube notes the error and goes on.
	d.typeErr(tokenKind(c), goType, strct)
	return nil, false, d.s.Skip()
}

// intNumber is an integer literal as the typed object writes it back.
func intNumber(lit string) json.Number {
	if lit == "-0" {
		return "0"
	}
	return json.Number(lit)
}

// nullValue is what null leaves: a value field as it was (not set), a map
// value or new list element the zero value of its type, a list element as it
// was. The special types read null themselves: a zero quantity or
// int-or-string, no time, no raw value.
func nullValue(f *Field, elem bool, cur any) (any, bool) {
	switch f.Kind {
	case KindQuantity:
		return "0", true
	case KindIntOrString:
		return json.Number("0"), true
	case KindTime, KindMicroTime, KindRawExtension, KindFieldsV1:
		return nil, !elem
	}
	if !elem {
		return nil, f.Kind == KindBytes
	}
	if cur != nil {
		return cur, true
	}
	switch f.Kind {
	case KindString, KindBytes:
		return "", true
	case KindBool:
		return false, true
	case KindInt32, KindInt64:
		return json.Number("0"), true
	}
	return map[string]any{}, true
}

// base64String decodes a []byte written as a string. A bad one is kube's
// base64 error, which names no field.
func (d *jsonDecoder) base64String() (any, bool, bool) {
	s, ok := d.s.String()
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(raw, []byte(s))
	if err != nil {
		if d.saved == nil {
			d.saved = err
		}
		return nil, false, ok
	}
	return base64.StdEncoding.EncodeToString(raw[:n]), true, ok
}

// byteArray decodes a []byte written as a JSON array of numbers.
func (d *jsonDecoder) byteArray(strct string) (any, bool, bool) {
	d.s.Consume('[')
	var raw []byte
	if d.s.Empty(']') {
		return "", true, true
	}
	for {
		switch c := d.s.Peek(); {
		case c == 'n':
			if !d.s.Literal("null") {
				return nil, false, false
			}
			raw = append(raw, 0)
		case isNumberStart(c):
			lit, ok := d.s.Number()
			if !ok {
				return nil, false, false
			}
			n, err := strconv.ParseUint(lit, 10, 8)
			if err != nil {
				d.typeErr("number "+lit, "uint8", strct)
			}
			raw = append(raw, byte(n))
		default:
			d.typeErr(tokenKind(c), "uint8", strct)
			if !d.s.Skip() {
				return nil, false, false
			}
			raw = append(raw, 0)
		}
		more, ok := d.s.Next(']')
		if !more {
			return base64.StdEncoding.EncodeToString(raw), true, ok
		}
	}
}

// special decodes a value of a type with its own UnmarshalJSON; its errors
// stop kube's decoding.
func (d *jsonDecoder) special(k Kind, c byte, strct string) (any, bool, bool) {
	switch k {
	case KindTime, KindMicroTime:
		// Time reads a JSON string, then parses it.
		if c != '"' {
			d.fail(&unmarshalTypeError{value: tokenKind(c), goType: "string", strct: strct, field: strings.Join(d.path, ".")})
			return nil, false, d.s.Skip()
		}
		s, ok := d.s.String()
		layout := time.RFC3339
		if k == KindMicroTime {
			layout = RFC3339Micro
		}
		t, err := time.Parse(layout, s)
		if err != nil {
			d.fail(err)
			return nil, false, ok
		}
		v, err := timeValue(t, layout)
		if err != nil {
			d.fail(err)
			return nil, false, ok
		}
		return v, true, ok
	case KindQuantity:
		// Quantity parses the raw bytes, without the quotes of a string and
		// without unescaping it.
		start := d.s.Pos()
		if !d.s.Skip() {
			return nil, false, false
		}
		raw := d.s.Span(start)
		if c == '"' {
			raw = raw[1 : len(raw)-1]
		}
		q, err := quantity.Canonical(strings.TrimSpace(string(raw)))
		if err != nil {
			d.fail(err)
			return nil, false, true
		}
		return q, true, true
	case KindIntOrString:
		// IntOrString reads a JSON string, or else an int32.
		switch {
		case c == '"':
			s, ok := d.s.String()
			return s, true, ok
		case isNumberStart(c):
			lit, ok := d.s.Number()
			n, err := strconv.ParseInt(lit, 10, 32)
			if err != nil {
				d.fail(&unmarshalTypeError{value: "number " + lit, goType: "int32", strct: strct, field: strings.Join(d.path, ".")})
				return nil, false, ok
			}
			return intNumber(strconv.FormatInt(n, 10)), true, ok
		}
		d.fail(&unmarshalTypeError{value: tokenKind(c), goType: "int32", strct: strct, field: strings.Join(d.path, ".")})
		return nil, false, d.s.Skip()
	}
	// RawExtension and FieldsV1 keep any JSON value, whose numbers must be
	// what kube's unstructured form holds (a float64 at most).
	start := d.s.Pos()
	if !d.s.Skip() {
		return nil, false, false
	}
	raw := d.s.Span(start)
	var unstructured any
	if err := json.Unmarshal(raw, &unstructured); err != nil {
		d.fail(err)
		return nil, false, true
	}
	v, err := object.DecodeValue(raw)
	return v, err == nil, err == nil
}

// errTimeRange rejects a time whose year in UTC leaves 0000..9999: kube would
// store it and then serve JSON it cannot read back ("-0001-12-31T23:00:00Z").
var errTimeRange = errors.New("Time.MarshalJSON: year outside of range [0,9999]")

// timeValue is a parsed time as Time or MicroTime writes it: in UTC at the
// layout's precision, nothing for the zero time.
func timeValue(t time.Time, layout string) (any, error) {
	if t.IsZero() {
		return nil, nil
	}
	u := t.UTC()
	if y := u.Year(); y < 0 || y > 9999 {
		return nil, errTimeRange
	}
	return u.Format(layout), nil
}

package types

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

	"kubeplay/core/encoding"
	"kubeplay/core/object"
)

// Strict decoding: the fields kube-apiserver's strict decoders report in a body
// (field validation, fieldValidation=Warn or Strict). These walk a body that
// DecodeJSON or DecodeCBOR read without error; a body with a value of the wrong
// type is that error alone, as in kube.

// A FieldError is a field strict JSON decoding reports: one the kind's Go type
// does not have, or one given twice in the same object. Its text is
// sigs.k8s.io/json's: `unknown field "spec.foo"`, `duplicate field "data"`.
type FieldError struct {
	Duplicate bool
	Path      string // JSON field names from the root, list indexes as [i]
}

func (e *FieldError) Error() string {
	if e.Duplicate {
		return "duplicate field " + strconv.Quote(e.Path)
	}
	return "unknown field " + strconv.Quote(e.Path)
}

// maxFieldErrors is how many field errors kube's decoder keeps.
const maxFieldErrors = 100

// StrictJSON returns the field errors of data, a JSON body for kind in
// apiVersion that DecodeJSON read, as kube's strict JSON decoding
// (sigs.k8s.io/json) reports them: in the order of the body, each once, at
// most 100. Keys the type does not have are unknown (matched case-sensitively;
// what they hold is not looked into); keys given twice in an object, struct or
// map, are duplicates. Values with their own decoding (times, quantities,
// int-or-strings, raw JSON) are not looked into either.
func StrictJSON(apiVersion, kind string, data []byte) []error {
	m, err := lookup(apiVersion, kind)
	if err != nil {
		return nil
	}
	w := strictWalker{s: object.NewScanner(data)}
	w.value(m, nil)
	return w.errs
}

// DuplicateJSONFields returns the keys given twice in the objects of data, any
// JSON value, as kube's strict decoding of a patch into a map reports them.
func DuplicateJSONFields(data []byte) []error {
	w := strictWalker{s: object.NewScanner(data)}
	w.value(nil, nil)
	return w.errs
}

// jsonPatchOp is kube's handlers.jsonPatchOp, which it strictly decodes a JSON
// patch's operations into: op, path and from strings, and any value.
var jsonPatchOp = Message{Fields: []Field{
	{Name: "op", Kind: KindString}, {Name: "path", Kind: KindString}, {Name: "from", Kind: KindString}, {Name: "value"},
}}

// StrictJSONPatch returns the field errors kube's strict decoding of a JSON
// patch (data, which decodes) reports: unknown keys of its operations, and
// keys given twice in an operation or in any object of a value, each as
// `json patch unknown field "[0].valu"`.
func StrictJSONPatch(data []byte) []error {
	w := strictWalker{s: object.NewScanner(data)}
	if w.s.Consume('[') && !w.s.Empty(']') {
		for i := 0; ; i++ {
			w.push("", i)
			ok := w.value(&jsonPatchOp, nil)
			w.pop()
			if more, _ := w.s.Next(']'); !ok || !more {
				break
			}
		}
	}
	for i, e := range w.errs {
		w.errs[i] = errors.New("json patch " + e.Error())
	}
	return w.errs
}

// UnknownUnstructured returns the unknown fields of data, an object of kind in
// apiVersion that DecodeJSON read, as kube's unstructured converter
// (FromUnstructuredWithValidation, which checks a strategic merge patch's
// result) reports them: sorted, each once per place, `unknown field "%s"`
// with the path unquoted and without map keys.
func UnknownUnstructured(apiVersion, kind string, data []byte) []error {
	m, err := lookup(apiVersion, kind)
	if err != nil {
		return nil
	}
	w := strictWalker{s: object.NewScanner(data), converter: true}
	w.value(m, nil)
	slices.SortFunc(w.errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return w.errs
}

// strictWalker walks a JSON value along the message table (or, without a
// message, as free-form JSON), noting field errors: as sigs.k8s.io/json does,
// or (converter) as kube's unstructured converter does.
type strictWalker struct {
	s         *object.Scanner
	path      []pathStep // from the root to the value walked
	errs      []error
	seen      map[FieldError]bool
	converter bool
}

// pathStep is a key, or a list index when index >= 0. A map's key is not part
// of the converter's paths.
type pathStep struct {
	key    string
	index  int
	mapKey bool
}

func (w *strictWalker) push(key string, index int) {
	w.path = append(w.path, pathStep{key, index, false})
}
func (w *strictWalker) pushMapKey(key string) { w.path = append(w.path, pathStep{key, -1, true}) }
func (w *strictWalker) pop()                  { w.path = w.path[:len(w.path)-1] }

// report notes a field error for key in the value walked.
func (w *strictWalker) report(duplicate bool, key string) {
	if w.converter && duplicate || !w.converter && len(w.errs) >= maxFieldErrors {
		return
	}
	var b strings.Builder
	for _, p := range w.path {
		switch {
		case p.index >= 0:
			b.WriteString("[" + strconv.Itoa(p.index) + "]")
			continue
		case p.mapKey && w.converter:
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p.key)
	}
	if b.Len() > 0 {
		b.WriteByte('.')
	}
	b.WriteString(key)
	if w.converter {
		w.errs = append(w.errs, errors.New(`unknown field "`+b.String()+`"`))
		return
	}
	e := FieldError{Duplicate: duplicate, Path: b.String()}
	if w.seen[e] {
		return
	}
	if w.seen == nil {
		w.seen = map[FieldError]bool{}
	}
	w.seen[e] = true
	w.errs = append(w.errs, &e)
}

// value walks one value: an object of message m, of field f's kind when m is
// nil and f is not, or free-form JSON when both are nil.
func (w *strictWalker) value(m *Message, f *Field) bool {
	switch c := w.s.Peek(); {
	case c == '{' && (m != nil || f == nil):
		w.s.Consume('{')
		return w.object(m)
	case c == '[' && m == nil && f == nil:
		w.s.Consume('[')
		if w.s.Empty(']') {
			return true
		}
		for i := 0; ; i++ {
			w.push("", i)
			ok := w.value(nil, nil)
			w.pop()
			if !ok {
				return false
			}
			if more, ok := w.s.Next(']'); !more {
				return ok
			}
		}
	case f != nil && f.Kind == KindMessage:
		return w.value(&Messages[f.Msg], nil)
	}
	return w.s.Skip()
}

// object walks the members of an object (its '{' read): of message m, or
// free-form when m is nil.
func (w *strictWalker) object(m *Message) bool {
	if w.s.Empty('}') {
		return true
	}
	var fieldBuf [16]*Field
	fields := fieldBuf[:0] // the message's fields seen, for duplicates
	var keys keySet        // the keys seen that are no message field
	for {
		key, ok := w.s.Key()
		if !ok {
			return false
		}
		var f *Field
		known := m == nil
		if m != nil {
			if f = m.byName(key); f != nil {
				known = true
				if slices.Contains(fields, f) {
					w.report(true, key)
				}
				fields = append(fields, f)
			} else if m.TypeMeta && (key == "kind" || key == "apiVersion") {
				known = true
			}
		}
		if known && f == nil && keys.add(key) {
			w.report(true, key) // a free-form key, or TypeMeta's kind or apiVersion
		}
		switch {
		case !known:
			w.report(false, key)
			ok = w.s.Skip()
		case m != nil && f == nil:
			ok = w.s.Skip()
		case m == &jsonPatchOp:
			w.push(key, -1)
			if key == "value" {
				ok = w.fieldValue(nil)
			} else {
				ok = w.s.Skip()
			}
			w.pop()
		default:
			w.push(key, -1)
			ok = w.fieldValue(f)
			w.pop()
		}
		if !ok {
			return false
		}
		if more, ok := w.s.Next('}'); !more {
			return ok
		}
	}
}

// fieldValue walks the value of field f (free-form when f is nil): a map's
// entries and a list's elements each of f's kind.
func (w *strictWalker) fieldValue(f *Field) bool {
	if f == nil || f.Flags&(FlagMap|FlagRepeated) == 0 {
		return w.value(nil, f)
	}
	elem := *f
	elem.Flags &^= FlagMap | FlagRepeated
	switch c := w.s.Peek(); {
	case c == '{' && f.Flags&FlagMap != 0:
		w.s.Consume('{')
		if w.s.Empty('}') {
			return true
		}
		var keys keySet
		for {
			key, ok := w.s.Key()
			if !ok {
				return false
			}
			if keys.add(key) {
				w.report(true, key)
			}
			w.pushMapKey(key)
			ok = w.value(nil, &elem)
			w.pop()
			if !ok {
				return false
			}
			if more, ok := w.s.Next('}'); !more {
				return ok
			}
		}
	case c == '[' && f.Flags&FlagRepeated != 0:
		w.s.Consume('[')
		if w.s.Empty(']') {
			return true
		}
		for i := 0; ; i++ {
			w.push("", i)
			ok := w.value(nil, &elem)
			w.pop()
			if !ok {
				return false
			}
			if more, ok := w.s.Next(']'); !more {
				return ok
			}
		}
	}
	return w.s.Skip()
}

// keySet is the keys of one object, in a slice while there are few.
type keySet struct {
	few  []string
	many map[string]bool
}

// add adds key and says whether it was there already.
func (k *keySet) add(key string) bool {
	if k.many != nil {
		if k.many[key] {
			return true
		}
		k.many[key] = true
		return false
	}
	if slices.Contains(k.few, key) {
		return true
	}
	if len(k.few) < 16 {
		k.few = append(k.few, key)
		return false
	}
	k.many = map[string]bool{key: true}
	for _, x := range k.few {
		k.many[x] = true
	}
	return false
}

// CBORUnknownFieldError is fxamacker/cbor's error for the first key of a map
// that the struct it decodes into does not have, which is all kube's strict
// CBOR decoding reports (duplicate keys are an error in every mode).
type CBORUnknownFieldError struct{ Index int }

func (e *CBORUnknownFieldError) Error() string {
	return "cbor: found unknown field at map element index " + strconv.Itoa(e.Index)
}

// StrictCBOR returns the unknown field kube's strict CBOR decoding reports in
// data, a CBOR body for kind in apiVersion that DecodeCBOR read, or nil. As
// fxamacker/cbor decodes a struct, an unknown key of its own ends it with that
// error, which replaces any error of the fields before it; else the first
// error of its fields (in order) is its error. Maps are taken in the canonical
// order kube's clients write.
func StrictCBOR(apiVersion, kind string, data []byte) error {
	m, err := lookup(apiVersion, kind)
	if err != nil {
		return nil
	}
	v, err := encoding.DecodeCBORValue(data)
	if err != nil {
		return nil
	}
	in, _ := v.(map[string]any)
	if e := cborUnknown(m, in); e != nil {
		return e
	}
	return nil
}

func cborUnknown(m *Message, in map[string]any) *CBORUnknownFieldError {
	var first *CBORUnknownFieldError
	for j, key := range slices.SortedFunc(maps.Keys(in), canonicalOrder) {
		f := m.byName(key)
		if f == nil {
			if m.TypeMeta && (key == "kind" || key == "apiVersion") {
				continue
			}
			return &CBORUnknownFieldError{Index: j}
		}
		if e := cborUnknownField(f, in[key]); e != nil && first == nil {
			first = e
		}
	}
	return first
}

// cborUnknownField finds the unknown field in the value of field f: in its
// message, or the first of its map values or list elements.
func cborUnknownField(f *Field, v any) *CBORUnknownFieldError {
	if f.Kind != KindMessage {
		return nil
	}
	var elems []any
	switch x := v.(type) {
	case map[string]any:
		if f.Flags&FlagMap == 0 {
			return cborUnknown(&Messages[f.Msg], x)
		}
		for _, k := range slices.SortedFunc(maps.Keys(x), canonicalOrder) {
			elems = append(elems, x[k])
		}
	case []any:
		if f.Flags&FlagRepeated != 0 {
			elems = x
		}
	}
	for _, e := range elems {
		if in, ok := e.(map[string]any); ok {
			if u := cborUnknown(&Messages[f.Msg], in); u != nil {
				return u
			}
		}
	}
	return nil
}

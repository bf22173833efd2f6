package types

import (
	"encoding/json"
	"slices"
	"sync"

	"kubeplay/core/object"
)

// The typed form. kube-apiserver writes an object of a built-in kind as
// encoding/json writes its Go type: the struct's fields in their order, and
// every field omitempty does not leave out, so a struct always (an empty one
// as {}; omitempty never leaves a struct out), a zero metav1.Time as null, and
// a field without omitempty even when it holds its zero value. Complete gives
// an object those fields, Order their order.

// Complete makes obj, an object of kind in apiVersion in JSON form, what its
// Go type writes: the fields it always writes though obj lacks them (a struct
// as an object with its own such fields, a Container's resources: {}; a time
// as null, a template's creationTimestamp; a field without omitempty as its
// zero value), and without the empty values omitempty leaves out. Kinds
// without a Go type here are left as they are.
func Complete(apiVersion, kind string, obj object.Object) {
	if i, ok := kinds[apiVersion+"/"+kind]; ok {
		finish(&Messages[i], obj)
	}
}

// CompleteMessage is Complete for an object of message m (LookupProtobuf's).
func CompleteMessage(m *Message, obj object.Object) { finish(m, obj) }

// GoType is the Go type of kind in apiVersion as kube's messages print it
// ("v1.ReplicaSet"), "" for a kind without one here.
func GoType(apiVersion, kind string) string {
	if i, ok := kinds[apiVersion+"/"+kind]; ok {
		return GoTypes[Messages[i].GoType]
	}
	return ""
}

// Order is the field order of kind's Go type in apiVersion, nil for a kind
// without one here.
func Order(apiVersion, kind string) object.FieldOrder {
	if i, ok := kinds[apiVersion+"/"+kind]; ok {
		return messageOrder(i)
	}
	return nil
}

// messageOrder is the order of messages[i]: its fields as the Go struct has
// them (an inlined struct's in its place), then keys it does not have by name.
type messageOrder uint16

func (o messageOrder) Keys(obj map[string]any) []string {
	jf := jsonFieldsOf(o)
	keys := make([]string, 0, len(obj))
	for _, f := range jf.fields {
		if _, ok := obj[f.Name]; ok {
			keys = append(keys, f.Name)
		}
	}
	if len(keys) < len(obj) {
		n := len(keys)
		for k := range obj {
			if jf.byName[k] == nil {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys[n:])
	}
	return keys
}

func (o messageOrder) Field(key string) object.FieldOrder {
	f := jsonFieldsOf(o).byName[key]
	if f == nil || f.Kind != KindMessage || f.Flags&FlagMap != 0 {
		return nil
	}
	return messageOrder(f.Msg)
}

// jsonFields are a message's JSON fields in the order encoding/json writes them.
type jsonFields struct {
	fields []*Field
	byName map[string]*Field
}

var (
	jsonFieldsOnce sync.Once
	jsonFieldsAll  []jsonFields // by message
)

func jsonFieldsOf(o messageOrder) *jsonFields {
	jsonFieldsOnce.Do(func() {
		jsonFieldsAll = make([]jsonFields, len(Messages))
		for i := range Messages {
			jf := jsonFields{byName: map[string]*Field{}}
			jf.add(&Messages[i])
			jsonFieldsAll[i] = jf
		}
	})
	return &jsonFieldsAll[o]
}

func (jf *jsonFields) add(m *Message) {
	for i := range m.Fields {
		f := &m.Fields[i]
		if m.Order != nil {
			f = &m.Fields[m.Order[i]]
		}
		if f.Flags&FlagInline != 0 {
			jf.add(&Messages[f.Msg])
			continue
		}
		jf.fields = append(jf.fields, f)
		jf.byName[f.Name] = f
	}
}

// finish makes out, holding the fields of message m (as decodeMessage or a
// typed JSON decoding read them), what encoding/json writes for the typed
// struct: absent fields become their zero JSON value unless omitempty leaves
// them out, and omitempty drops empty values. Values of other types than the
// fields' are left as they are.
func finish(m *Message, out map[string]any) {
	for i := range m.Fields {
		f := &m.Fields[i]
		if f.Flags&FlagInline != 0 {
			finish(&Messages[f.Msg], out)
			continue
		}
		v, present := out[f.Name]
		omit := f.Flags&FlagOmitEmpty != 0
		switch {
		case f.Flags&(FlagRepeated|FlagMap) != 0:
			switch {
			case !present && !omit:
				out[f.Name] = nil
			case present && f.Flags&FlagRepeated != 0:
				list, _ := v.([]any)
				for _, e := range list {
					finishValue(f, e)
				}
			case present:
				entries, _ := v.(map[string]any)
				for _, e := range entries {
					finishValue(f, e)
				}
			}
		case f.Flags&FlagPointer != 0:
			if !present && !omit {
				out[f.Name] = nil
			} else {
				finishValue(f, v)
			}
		case f.Kind == KindMessage:
			obj, ok := v.(map[string]any)
			if !ok && v != nil {
				continue
			}
			if obj == nil {
				obj = map[string]any{}
				out[f.Name] = obj
			}
			finish(&Messages[f.Msg], obj)
		case !present:
			if zero, ok := zeroJSON(f.Kind); !omit || !ok {
				out[f.Name] = zero
			}
		case omit && f.Kind <= KindInt64 && isEmpty(v):
			delete(out, f.Name)
		}
	}
}

// finishValue finishes v, one value of f (an element of a list or a map, or
// what a pointer points at), when it holds messages: a message, or one of
// the forms of a schema type (a schema, a list of schemas).
func finishValue(f *Field, v any) {
	switch f.Kind {
	case KindMessage:
		if obj, ok := v.(map[string]any); ok {
			finish(&Messages[f.Msg], obj)
		}
	case KindSchemaOrArray, KindSchemaOrBool, KindSchemaOrStringArray:
		var schema *Message // the type's Schema field's
		for _, sf := range Messages[f.Msg].Fields {
			if sf.Name == "Schema" {
				schema = &Messages[sf.Msg]
			}
		}
		switch v := v.(type) {
		case map[string]any:
			finish(schema, v)
		case []any:
			for _, e := range v {
				if e, ok := e.(map[string]any); ok {
					finish(schema, e)
				}
			}
		}
	}
}

// zeroJSON is the JSON encoding/json writes for a zero value of kind k, and
// whether omitempty drops it (structs are never dropped).
func zeroJSON(k Kind) (any, bool) {
	switch k {
	case KindString:
		return "", true
	case KindBool:
		return false, true
	case KindInt32, KindInt64:
		return json.Number("0"), true
	case KindQuantity:
		return "0", false
	case KindIntOrString:
		return json.Number("0"), false
	case KindBytes:
		return nil, true
	}
	return nil, false // Time, MicroTime, RawExtension, FieldsV1: null
}

// isEmpty reports whether omitempty drops a present scalar: "", false, 0 or
// an empty []byte.
func isEmpty(v any) bool {
	switch v := v.(type) {
	case string:
		return v == ""
	case bool:
		return !v
	case json.Number:
		return v == "0"
	}
	return false
}

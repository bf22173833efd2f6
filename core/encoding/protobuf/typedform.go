package protobuf

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

// Complete gives obj, an object of kind in apiVersion in JSON form, the fields
// its Go type writes though obj lacks them: a struct as an object with its own
// such fields (a Container's resources: {}), a time as null (a template's
// creationTimestamp), a quantity as "0", an int-or-string as 0, and a field
// without omitempty as its zero value ("", 0, false; null for a pointer, a
// list, a map or bytes); a null that omitempty leaves out goes. Kinds without
// a Go type here are left as they are.
func Complete(apiVersion, kind string, obj object.Object) {
	if i, ok := kinds[apiVersion+"/"+kind]; ok {
		completeMessage(&messages[i], obj)
	}
}

func completeMessage(m *message, obj map[string]any) {
	for i := range m.fields {
		f := &m.fields[i]
		if f.flags&flagInline != 0 {
			completeMessage(&messages[f.msg], obj)
			continue
		}
		v, present := obj[f.name]
		if present && v != nil {
			if f.kind != kindMessage || f.flags&flagMap != 0 {
				continue
			}
			switch v := v.(type) {
			case map[string]any:
				completeMessage(&messages[f.msg], v)
			case []any:
				for _, e := range v {
					if e, ok := e.(map[string]any); ok {
						completeMessage(&messages[f.msg], e)
					}
				}
			}
			continue
		}
		switch {
		case f.flags&(flagPointer|flagRepeated|flagMap) != 0 || f.kind == kindBytes:
			if f.flags&flagOmitEmpty == 0 {
				obj[f.name] = nil
			} else if present {
				delete(obj, f.name)
			}
		case f.kind == kindMessage:
			empty := map[string]any{}
			completeMessage(&messages[f.msg], empty)
			obj[f.name] = empty
		case f.kind == kindTime || f.kind == kindMicroTime || f.kind == kindRawExtension || f.kind == kindFieldsV1:
			obj[f.name] = nil
		case f.kind == kindQuantity:
			obj[f.name] = "0"
		case f.kind == kindIntOrString:
			obj[f.name] = json.Number("0")
		case f.flags&flagOmitEmpty != 0:
			if present {
				delete(obj, f.name)
			}
		case f.kind == kindString:
			obj[f.name] = ""
		case f.kind == kindBool:
			obj[f.name] = false
		default: // the integers
			obj[f.name] = json.Number("0")
		}
	}
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
		if _, ok := obj[f.name]; ok {
			keys = append(keys, f.name)
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
	if f == nil || f.kind != kindMessage || f.flags&flagMap != 0 {
		return nil
	}
	return messageOrder(f.msg)
}

// jsonFields are a message's JSON fields in the order encoding/json writes them.
type jsonFields struct {
	fields []*field
	byName map[string]*field
}

var (
	jsonFieldsOnce sync.Once
	jsonFieldsAll  []jsonFields // by message
)

func jsonFieldsOf(o messageOrder) *jsonFields {
	jsonFieldsOnce.Do(func() {
		jsonFieldsAll = make([]jsonFields, len(messages))
		for i := range messages {
			jf := jsonFields{byName: map[string]*field{}}
			jf.add(&messages[i])
			jsonFieldsAll[i] = jf
		}
	})
	return &jsonFieldsAll[o]
}

func (jf *jsonFields) add(m *message) {
	for i := range m.fields {
		f := &m.fields[i]
		if m.order != nil {
			f = &m.fields[m.order[i]]
		}
		if f.flags&flagInline != 0 {
			jf.add(&messages[f.msg])
			continue
		}
		jf.fields = append(jf.fields, f)
		jf.byName[f.name] = f
	}
}

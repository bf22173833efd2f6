package protobuf

import (
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
		finish(&messages[i], obj)
	}
}

// GoType is the Go type of kind in apiVersion as kube's messages print it
// ("v1.ReplicaSet"), "" for a kind without one here.
func GoType(apiVersion, kind string) string {
	if i, ok := kinds[apiVersion+"/"+kind]; ok {
		return goTypes[messages[i].goType]
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

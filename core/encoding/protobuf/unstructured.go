package protobuf

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"

	"kubeplay/core/object"
)

// FromUnstructured reads obj, an object of kind in apiVersion in kube's
// unstructured form (objects, lists, strings, bools, int64 and float64), as
// kube's unstructured converter reads it into the kind's Go type (what a
// strategic merge patch's result goes through), and returns the converter's
// error, in its words and without a path: the first value the type cannot
// hold, fields taken in the table's order. Fields the type does not have are
// no error.
func FromUnstructured(apiVersion, kind string, obj map[string]any) error {
	m, err := lookup(apiVersion, kind)
	if err != nil {
		return err
	}
	return structFromUnstructured(m, obj)
}

// structFromUnstructured checks the fields of message m in v.
func structFromUnstructured(m *message, v map[string]any) error {
	if m.typeMeta {
		for _, k := range []string{"apiVersion", "kind"} {
			if s, ok := v[k]; ok && s != nil {
				if err := scalarFromUnstructured(s, kindString, "string"); err != nil {
					return err
				}
			}
		}
	}
	for i := range m.fields {
		f := &m.fields[i]
		if f.flags&flagInline != 0 {
			if err := structFromUnstructured(&messages[f.msg], v); err != nil {
				return err
			}
			continue
		}
		val := v[f.name]
		if val == nil {
			continue
		}
		var err error
		switch {
		case f.flags&flagMap != 0:
			err = mapFromUnstructured(f, val)
		case f.flags&flagRepeated != 0:
			err = sliceFromUnstructured(f, val)
		default:
			err = valueFromUnstructured(f, val, goTypes[f.goType])
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// kindOf is the Go kind of an unstructured value, as the converter names it.
func kindOf(v any) string { return reflect.TypeOf(v).Kind().String() }

func mapFromUnstructured(f *field, val any) error {
	m, ok := val.(map[string]any)
	if !ok {
		return fmt.Errorf("cannot restore map from %v", kindOf(val))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys) // kube's order is a map's: any
	for _, k := range keys {
		if m[k] != nil {
			if err := valueFromUnstructured(f, m[k], goTypes[f.elemType]); err != nil {
				return err
			}
		}
	}
	return nil
}

func sliceFromUnstructured(f *field, val any) error {
	l, ok := val.([]any)
	if !ok {
		return fmt.Errorf("cannot restore slice from %v", kindOf(val))
	}
	for _, e := range l {
		if e != nil {
			if err := valueFromUnstructured(f, e, goTypes[f.elemType]); err != nil {
				return err
			}
		}
	}
	return nil
}

// valueFromUnstructured checks one value of f's kind, whose Go type is goType.
func valueFromUnstructured(f *field, val any, goType string) error {
	switch f.kind {
	case kindString, kindBool, kindInt32, kindInt64:
		return scalarFromUnstructured(val, f.kind, goType)
	case kindBytes:
		switch val := val.(type) {
		case string:
			if _, err := base64.StdEncoding.DecodeString(val); err != nil {
				return fmt.Errorf("error decoding from json: %v", err)
			}
			return nil
		case []any:
			for _, e := range val {
				if e != nil {
					if err := scalarFromUnstructured(e, kindInt32, "uint8"); err != nil {
						return err
					}
				}
			}
			return nil
		}
		return fmt.Errorf("cannot restore slice from %v", kindOf(val))
	case kindMessage:
		m, ok := val.(map[string]any)
		if !ok {
			return fmt.Errorf("cannot restore struct from: %v", kindOf(val))
		}
		return structFromUnstructured(&messages[f.msg], m)
	}
	// The types with their own UnmarshalJSON read the value's JSON.
	data, err := json.Marshal(val)
	if err != nil {
		return fmt.Errorf("error encoding %s to json: %v", goType, err)
	}
	d := jsonDecoder{s: object.NewScanner(data)}
	d.special(f.kind, d.s.Peek(), "")
	if d.fatal != nil {
		return d.fatal
	}
	return d.saved
}

// scalarFromUnstructured checks a value for a string, bool or integer field:
// JSON's kinds do not convert into each other, but an integral float64 is an
// integer.
func scalarFromUnstructured(val any, k kind, goType string) error {
	switch val := val.(type) {
	case string:
		if k == kindString {
			return nil
		}
	case bool:
		if k == kindBool {
			return nil
		}
	case int64:
		switch k {
		case kindInt32, kindInt64:
			return nil
		case kindString: // Go converts an integer to a string; the converter refuses it
			return fmt.Errorf("cannot convert int64 to %s", goType)
		}
	case float64:
		if k == kindInt32 || k == kindInt64 {
			if val == math.Trunc(val) {
				return nil
			}
			return fmt.Errorf("cannot convert float64 to %s", goType)
		}
	}
	return fmt.Errorf("unrecognized type: %s", goKind(k, goType))
}

// goKind is the Go kind of a scalar field.
func goKind(k kind, goType string) string {
	switch k {
	case kindString:
		return "string"
	case kindBool:
		return "bool"
	case kindInt64:
		return "int64"
	}
	if goType == "uint8" {
		return "uint8"
	}
	return "int32"
}

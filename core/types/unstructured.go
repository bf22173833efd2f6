package types

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
func structFromUnstructured(m *Message, v map[string]any) error {
	if m.TypeMeta {
		for _, k := range []string{"apiVersion", "kind"} {
			if s, ok := v[k]; ok && s != nil {
				if err := scalarFromUnstructured(s, KindString, "string"); err != nil {
					return err
				}
			}
		}
	}
	for i := range m.Fields {
		f := &m.Fields[i]
		if f.Flags&FlagInline != 0 {
			if err := structFromUnstructured(&Messages[f.Msg], v); err != nil {
				return err
			}
			continue
		}
		val := v[f.Name]
		if val == nil {
			continue
		}
		var err error
		switch {
		case f.Flags&FlagMap != 0:
			err = mapFromUnstructured(f, val)
		case f.Flags&FlagRepeated != 0:
			err = sliceFromUnstructured(f, val)
		default:
			err = valueFromUnstructured(f, val, GoTypes[f.GoType])
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// kindOf is the Go kind of an unstructured value, as the converter names it.
func kindOf(v any) string { return reflect.TypeOf(v).Kind().String() }

func mapFromUnstructured(f *Field, val any) error {
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
			if err := valueFromUnstructured(f, m[k], GoTypes[f.ElemType]); err != nil {
				return err
			}
		}
	}
	return nil
}

func sliceFromUnstructured(f *Field, val any) error {
	l, ok := val.([]any)
	if !ok {
		return fmt.Errorf("cannot restore slice from %v", kindOf(val))
	}
	for _, e := range l {
		if e != nil {
			if err := valueFromUnstructured(f, e, GoTypes[f.ElemType]); err != nil {
				return err
			}
		}
	}
	return nil
}

// valueFromUnstructured checks one value of f's kind, whose Go type is goType.
func valueFromUnstructured(f *Field, val any, goType string) error {
	switch f.Kind {
	case KindString, KindBool, KindInt32, KindInt64:
		return scalarFromUnstructured(val, f.Kind, goType)
	case KindBytes:
		switch val := val.(type) {
		case string:
			if _, err := base64.StdEncoding.DecodeString(val); err != nil {
				return fmt.Errorf("error decoding from json: %v", err)
			}
			return nil
		case []any:
			for _, e := range val {
				if e != nil {
					if err := scalarFromUnstructured(e, KindInt32, "uint8"); err != nil {
						return err
					}
				}
			}
			return nil
		}
		return fmt.Errorf("cannot restore slice from %v", kindOf(val))
	case KindMessage:
		m, ok := val.(map[string]any)
		if !ok {
			return fmt.Errorf("cannot restore struct from: %v", kindOf(val))
		}
		return structFromUnstructured(&Messages[f.Msg], m)
	}
	// The types with their own UnmarshalJSON read the value's JSON.
	data, err := json.Marshal(val)
	if err != nil {
		return fmt.Errorf("error encoding %s to json: %v", goType, err)
	}
	d := jsonDecoder{s: object.NewScanner(data)}
	d.special(f.Kind, d.s.Peek(), "")
	if d.fatal != nil {
		return d.fatal
	}
	return d.saved
}

// scalarFromUnstructured checks a value for a string, bool or integer field:
// JSON's kinds do not convert into each other, but an integral float64 is an
// integer.
func scalarFromUnstructured(val any, k Kind, goType string) error {
	switch val := val.(type) {
	case string:
		if k == KindString {
			return nil
		}
	case bool:
		if k == KindBool {
			return nil
		}
	case int64:
		switch k {
		case KindInt32, KindInt64:
			return nil
		case KindString: // Go converts an integer to a string; the converter refuses it
			return fmt.Errorf("cannot convert int64 to %s", goType)
		}
	case float64:
		if k == KindInt32 || k == KindInt64 {
			if val == math.Trunc(val) {
				return nil
			}
			return fmt.Errorf("cannot convert float64 to %s", goType)
		}
	}
	return fmt.Errorf("unrecognized type: %s", goKind(k, goType))
}

// goKind is the Go kind of a scalar field.
func goKind(k Kind, goType string) string {
	switch k {
	case KindString:
		return "string"
	case KindBool:
		return "bool"
	case KindInt64:
		return "int64"
	}
	if goType == "uint8" {
		return "uint8"
	}
	return "int32"
}

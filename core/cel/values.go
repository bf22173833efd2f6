package cel

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// value is a JSON value (as encoding/json decodes it with UseNumber) as CEL
// sees it under schema s, as kube's UnstructuredToVal makes it: objects
// with their properties' CEL names, formatted strings as bytes, durations
// and timestamps, lists of x-kubernetes-list-type set and map with their
// equality and concatenation.
func value(v any, s *Schema) ref.Val {
	if v == nil {
		if s.Nullable {
			return types.NullValue
		}
		return types.NewErr("invalid data, got null for schema with nullable=false")
	}
	if s.IntOrString {
		switch v := v.(type) {
		case string:
			return types.String(v)
		case json.Number:
			if i, err := v.Int64(); err == nil {
				return types.Int(i)
			}
		}
		return types.NewErr("invalid data, expected XIntOrString value to be either a string or integer")
	}
	switch s.Type {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return types.NewErr("invalid data, expected a map for the provided schema with type=object")
		}
		out := make(map[ref.Val]ref.Val, len(m))
		switch {
		case s.EmbeddedResource || s.Properties != nil:
			if s.EmbeddedResource {
				s = s.withTypeAndObjectMeta()
			}
			for k, e := range m {
				p := s.Properties[k]
				name, ok := Escape(k)
				if p == nil || !ok {
					continue
				}
				out[types.String(name)] = value(e, p)
			}
		case s.additionalSchema() != nil:
			for k, e := range m {
				out[types.String(k)] = value(e, s.additionalSchema())
			}
		}
		return types.NewRefValMap(types.DefaultTypeAdapter, out)
	case "array":
		l, ok := v.([]any)
		if !ok {
			return types.NewErr("invalid data, expected an array for the provided schema with type=array")
		}
		if s.Items == nil {
			return types.NewErr("invalid array type, expected Items with a non-empty Schema")
		}
		elems := make([]ref.Val, len(l))
		for i, e := range l {
			elems[i] = value(e, s.Items)
		}
		list := types.NewRefValList(types.DefaultTypeAdapter, elems)
		switch s.ListType {
		case "map":
			keys := make([]types.String, 0, len(s.ListMapKeys))
			for _, k := range s.ListMapKeys {
				if e, ok := Escape(k); ok {
					keys = append(keys, types.String(e))
				}
			}
			return &mapList{Lister: list, keys: keys}
		case "set":
			return &setList{Lister: list}
		case "", "atomic":
			return list
		}
		return types.NewErr("invalid x-kubernetes-list-type, expected 'map', 'set' or 'atomic' but got %s", s.ListType)
	case "string":
		str, ok := v.(string)
		if !ok {
			return types.NewErr("invalid data, expected string, got %s", goType(v))
		}
		switch s.Format {
		case "duration":
			d, err := parseDuration(str)
			if err != nil {
				return types.NewErr("Invalid duration %s: %v", str, err)
			}
			return types.Duration{Duration: d}
		case "date":
			d, err := time.Parse("2006-01-02", str)
			if err != nil {
				return types.NewErr("Invalid date formatted string %s: %v", str, err)
			}
			return types.Timestamp{Time: d}
		case "date-time":
			d, err := parseDateTime(str)
			if err != nil {
				return types.NewErr("Invalid date-time formatted string %s: %v", str, err)
			}
			return types.Timestamp{Time: d}
		case "byte":
			b, err := base64.StdEncoding.DecodeString(str)
			if err != nil {
				return types.NewErr("Invalid byte formatted string %s: %v", str, err)
			}
			return types.Bytes(b)
		}
		return types.String(str)
	case "number":
		if n, ok := v.(json.Number); ok {
			if f, err := n.Float64(); err == nil {
				return types.Double(f)
			}
		}
		return types.NewErr("invalid data, expected float, got %s", goType(v))
	case "integer":
		if n, ok := v.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				return types.Int(i)
			}
		}
		return types.NewErr("invalid data, expected int, got %s", goType(v))
	case "boolean":
		b, ok := v.(bool)
		if !ok {
			return types.NewErr("invalid data, expected bool, got %s", goType(v))
		}
		return types.Bool(b)
	}
	return types.NewErr("invalid type, expected object, array, number, integer, boolean or string, or no type with x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields is true, got %s", s.Type)
}

// goType is the Go type kube's unstructured objects hold v as.
func goType(v any) string {
	switch v := v.(type) {
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			return "float64"
		}
		return "int64"
	case string:
		return "string"
	case bool:
		return "bool"
	case []any:
		return "[]interface {}"
	}
	return "map[string]interface {}"
}

// setList is a list of x-kubernetes-list-type set: equal to another with the
// same elements in any order; concatenation keeps the left's elements and
// appends the right's it lacks.
type setList struct{ traits.Lister }

func (l *setList) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if l.Size() != o.Size() {
		return types.False
	}
	for it := o.Iterator(); it.HasNext() == types.True; {
		if l.Contains(it.Next()) != types.True {
			return types.False
		}
	}
	return types.True
}

func (l *setList) Add(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	elems := listElems(l.Lister)
	for it := o.Iterator(); it.HasNext() == types.True; {
		if e := it.Next(); l.Contains(e) != types.True {
			elems = append(elems, e)
		}
	}
	return &setList{Lister: types.NewRefValList(types.DefaultTypeAdapter, elems)}
}

// mapList is a list of x-kubernetes-list-type map: equal to another whose
// elements with the same keys are equal, in any order; concatenation
// replaces the left's elements by the right's of the same keys, in place,
// and appends the others.
type mapList struct {
	traits.Lister
	keys []types.String
}

// keyOf is the element's keys as a string (JSON of their values).
func (l *mapList) keyOf(e ref.Val) string {
	m, ok := e.(traits.Mapper)
	if !ok {
		return ""
	}
	var b strings.Builder
	for _, k := range l.keys {
		v, found := m.Find(k)
		if found {
			j, _ := json.Marshal(v.Value())
			b.Write(j)
		}
		b.WriteByte(0)
	}
	return b.String()
}

func (l *mapList) index() map[string]ref.Val {
	out := map[string]ref.Val{}
	for it := l.Iterator(); it.HasNext() == types.True; {
		e := it.Next()
		out[l.keyOf(e)] = e
	}
	return out
}

func (l *mapList) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if l.Size() != o.Size() {
		return types.False
	}
	mine := l.index()
	for it := o.Iterator(); it.HasNext() == types.True; {
		e := it.Next()
		m, ok := mine[l.keyOf(e)]
		if !ok || m.Equal(e) != types.True {
			return types.False
		}
	}
	return types.True
}

func (l *mapList) Add(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	elems := listElems(l.Lister)
	at := map[string]int{}
	for i, e := range elems {
		at[l.keyOf(e)] = i
	}
	for it := o.Iterator(); it.HasNext() == types.True; {
		e := it.Next()
		if i, ok := at[l.keyOf(e)]; ok {
			elems[i] = e
		} else {
			at[l.keyOf(e)] = len(elems)
			elems = append(elems, e)
		}
	}
	return &mapList{Lister: types.NewRefValList(types.DefaultTypeAdapter, elems), keys: l.keys}
}

func listElems(l traits.Lister) []ref.Val {
	var out []ref.Val
	for it := l.Iterator(); it.HasNext() == types.True; {
		out = append(out, it.Next())
	}
	return out
}

package cel

import (
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// Sizes kube's cost estimates assume (k8s.io/apiserver/pkg/cel's limits).
const (
	maxRequestSize      = 3 * 1024 * 1024 // the largest request kube accepts
	maxDurationSizeJSON = 32
	maxDatetimeSizeJSON = 32
	minDurationSizeJSON = 3
	jsonDateSize        = 12
	minDatetimeSizeJSON = 21
	minStringSize       = 2
	minBoolSize         = 4
	minNumberSize       = 1
)

// declType is a schema as a CEL type, with what kube's cost estimates know of
// its values: the most elements (a string's length, a list's items, a map's
// entries) and the fewest bytes one takes in JSON.
type declType struct {
	name    string
	cel     *cel.Type
	fields  map[string]*declField // an object's, by their CEL names
	key     *declType             // a map's
	elem    *declType             // a list's or a map's
	maxElem int64
	minSize int64
}

// declField is a field of an object type.
type declField struct {
	name string // the property's name
	typ  *declType
}

func (t *declType) isObject() bool { return t.fields != nil }
func (t *declType) isList() bool   { return t.elem != nil && t.key == nil }
func (t *declType) isMap() bool    { return t.key != nil }

var (
	stringDecl = &declType{name: "string", cel: cel.StringType, minSize: minStringSize}
	boolDecl   = &declType{name: "bool", cel: cel.BoolType, minSize: minBoolSize}
	doubleDecl = &declType{name: "double", cel: cel.DoubleType, minSize: minNumberSize}
	intDecl    = &declType{name: "int", cel: cel.IntType, minSize: minNumberSize}
)

func simple(name string, t *cel.Type, minSize int64) *declType {
	return &declType{name: name, cel: t, minSize: minSize}
}

func listDecl(elem *declType, maxItems int64) *declType {
	return &declType{name: "list", cel: cel.ListType(elem.cel), elem: elem, maxElem: maxItems, minSize: 2}
}

func mapDecl(key, elem *declType, maxProps int64) *declType {
	return &declType{name: "map", cel: cel.MapType(key.cel, elem.cel), key: key, elem: elem, maxElem: maxProps, minSize: 2}
}

func objectDecl(name string, fields map[string]*declField) *declType {
	return &declType{name: name, cel: cel.ObjectType(name), fields: fields, minSize: 2}
}

func zeroIfNegative(v int64) int64 { return max(v, 0) }

// schemaDecl is s's CEL type, as kube's SchemaDeclType makes it; nil when s
// has none (an array without items, an object whose additional properties
// have no type).
func schemaDecl(s *Schema, resourceRoot bool) *declType {
	if s == nil {
		return nil
	}
	if s.IntOrString {
		// the smallest int-or-string in JSON is 0
		return &declType{name: "dyn", cel: cel.DynType, minSize: 1, maxElem: maxRequestSize - 2}
	}
	if resourceRoot {
		s = s.withTypeAndObjectMeta()
	}
	switch s.Type {
	case "array":
		if s.Items == nil {
			return nil
		}
		items := schemaDecl(s.Items, s.Items.EmbeddedResource)
		if items == nil {
			return nil
		}
		n := (maxRequestSize - 2) / (items.minSize + 1)
		if s.MaxItems != nil {
			n = zeroIfNegative(*s.MaxItems)
		}
		return listDecl(items, n)
	case "object":
		if a := s.additionalSchema(); a != nil {
			values := schemaDecl(a, a.EmbeddedResource)
			if values == nil {
				return nil
			}
			n := (maxRequestSize - 2) / (values.minSize + 6) // "":,
			if s.MaxProperties != nil {
				n = zeroIfNegative(*s.MaxProperties)
			}
			return mapDecl(stringDecl, values, n)
		}
		fields := make(map[string]*declField, len(s.Properties))
		required := map[string]bool{}
		for _, r := range s.Required {
			required[r] = true
		}
		minSize := int64(2)
		for name, p := range s.Properties {
			t := schemaDecl(p, p.EmbeddedResource)
			if t == nil {
				continue
			}
			if escaped, ok := Escape(name); ok {
				fields[escaped] = &declField{name: name, typ: t}
			}
			if required[name] && p.Default == nil {
				minSize += int64(len(name)) + t.minSize + 4
			}
		}
		t := objectDecl("object", fields)
		t.minSize = minSize
		return t
	case "string":
		switch s.Format {
		case "byte":
			t := simple("bytes", cel.BytesType, minStringSize)
			t.maxElem = maxRequestSize - 2
			if s.MaxLength != nil {
				t.maxElem = zeroIfNegative(*s.MaxLength)
			}
			return t
		case "duration":
			t := simple("duration", cel.DurationType, minDurationSizeJSON)
			t.maxElem = maxDurationSizeJSON
			return t
		case "date":
			t := simple("timestamp", cel.TimestampType, jsonDateSize)
			t.maxElem = jsonDateSize
			return t
		case "date-time":
			t := simple("timestamp", cel.TimestampType, minDatetimeSizeJSON)
			t.maxElem = maxDatetimeSizeJSON
			return t
		}
		t := simple("string", cel.StringType, minStringSize)
		switch {
		case s.MaxLength != nil:
			t.maxElem = zeroIfNegative(*s.MaxLength) * 4 // runes of up to 4 bytes
		case len(s.Enum) > 0:
			for _, e := range s.Enum {
				if e, ok := e.(string); ok {
					t.maxElem = max(t.maxElem, int64(len(e)))
				}
			}
		default:
			t.maxElem = maxRequestSize - 2
		}
		return t
	case "boolean":
		return boolDecl
	case "number":
		return doubleDecl
	case "integer":
		return intDecl
	}
	return nil
}

// named is t with its object types named after where they are under name
// (kube's MaybeAssignTypeName): "selfType", "selfType.spec",
// "selfType.spec.items.@idx".
func (t *declType) named(name string) *declType {
	switch {
	case t.isObject():
		if t.name != "object" {
			name = t.name
		}
		fields := make(map[string]*declField, len(t.fields))
		for n, f := range t.fields {
			fields[n] = &declField{name: f.name, typ: f.typ.named(name + "." + n)}
		}
		out := objectDecl(name, fields)
		out.minSize = t.minSize
		return out
	case t.isMap():
		return mapDecl(t.key, t.elem.named(name+".@elem"), t.maxElem)
	case t.isList():
		return listDecl(t.elem.named(name+".@idx"), t.maxElem)
	}
	return t
}

// objects are the object types of t and under it, by name.
func (t *declType) objects(into map[string]*declType) map[string]*declType {
	if t.isObject() {
		into[t.name] = t
		for _, f := range t.fields {
			f.typ.objects(into)
		}
	}
	if t.elem != nil {
		t.elem.objects(into)
	}
	return into
}

// provider is the CEL type provider of a rule's environment: the object
// types of the schema, then the environment's own.
type provider struct {
	types.Provider
	objects map[string]*declType
}

func (p *provider) FindStructType(name string) (*types.Type, bool) {
	if t, ok := p.objects[name]; ok {
		return types.NewTypeTypeWithParam(t.cel), true
	}
	return p.Provider.FindStructType(name)
}

func (p *provider) FindStructFieldNames(name string) ([]string, bool) {
	if t, ok := p.objects[name]; ok {
		names := make([]string, 0, len(t.fields))
		for n := range t.fields {
			names = append(names, n)
		}
		return names, true
	}
	return p.Provider.FindStructFieldNames(name)
}

func (p *provider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	if t, ok := p.objects[name]; ok {
		f, ok := t.fields[field]
		if !ok {
			return nil, false
		}
		return &types.FieldType{Type: f.typ.cel}, true
	}
	return p.Provider.FindStructFieldType(name, field)
}

func (p *provider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if _, ok := p.objects[name]; ok {
		return types.NewErr("cannot create values of type %s", name)
	}
	return p.Provider.NewValue(name, fields)
}

// celReserved are the words a property's name is escaped from (kube's list:
// CEL's keywords and the words it reserves).
var celReserved = map[string]bool{
	"true": true, "false": true, "null": true, "in": true, "as": true, "break": true, "const": true,
	"continue": true, "else": true, "for": true, "function": true, "if": true, "import": true, "let": true,
	"loop": true, "package": true, "namespace": true, "return": true, "var": true, "void": true, "while": true,
}

// Escape is the name CEL knows a property by, as kube escapes it: a reserved
// word as __word__, and "__", ".", "-" and "/" spelled out; false when the
// property cannot be named in CEL (it starts with a digit or has another
// character).
func Escape(name string) (string, bool) {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return "", false
	}
	if celReserved[name] {
		return "__" + name + "__", true
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' && i+1 < len(name) && name[i+1] == '_':
			b.WriteString("__underscores__")
			i++
		case c == '.':
			b.WriteString("__dot__")
		case c == '-':
			b.WriteString("__dash__")
		case c == '/':
			b.WriteString("__slash__")
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			b.WriteByte(c)
		default:
			return "", false
		}
	}
	return b.String(), true
}

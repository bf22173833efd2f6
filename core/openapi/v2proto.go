package openapi

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// The v2 document's protobuf form (gnostic's openapi_v2.Document) with
// definitions added: a Document's definitions field given again is merged
// into the first by every protobuf reader, its schemas appended, so the
// built-in document's bytes are kept and the added definitions follow them.

// Field numbers of gnostic's messages.
const (
	documentDefinitions   = 9  // Document.definitions
	namedValue            = 2  // NamedSchema.value, NamedAny.value
	anyYAML               = 2  // Any.yaml
	additionalSchema      = 1  // AdditionalPropertiesItem.schema
	additionalBoolean     = 2  // AdditionalPropertiesItem.boolean
	schemaRequired        = 19 // Schema.required
	schemaEnum            = 20
	schemaAdditional      = 21
	schemaType            = 22
	schemaItems           = 23
	schemaProperties      = 25
	schemaVendorExtension = 31
)

// Schema's scalar fields, by their JSON name.
var (
	schemaStrings = map[string]protowire.Number{"$ref": 1, "format": 2, "title": 3, "description": 4, "pattern": 13}
	schemaDoubles = map[string]protowire.Number{"multipleOf": 6, "maximum": 7, "minimum": 9}
	schemaBools   = map[string]protowire.Number{"exclusiveMaximum": 8, "exclusiveMinimum": 10, "uniqueItems": 16}
	schemaInts    = map[string]protowire.Number{"maxLength": 11, "minLength": 12, "maxItems": 14, "minItems": 15, "maxProperties": 17, "minProperties": 18}
)

// withProtoDefinitions is the protobuf document doc with defs (JSON schemas,
// by name) among its definitions.
func withProtoDefinitions(doc []byte, defs map[string]any) []byte {
	var named []byte
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		named = appendMessage(named, 1, appendNamedSchema(nil, name, defs[name]))
	}
	out := slices.Clip(doc)
	return appendMessage(out, documentDefinitions, named)
}

// appendMessage appends an embedded message field.
func appendMessage(b []byte, n protowire.Number, msg []byte) []byte {
	b = protowire.AppendTag(b, n, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}

func appendString(b []byte, n protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, n, protowire.BytesType)
	return protowire.AppendString(b, s)
}

// appendNamedSchema appends a NamedSchema's fields.
func appendNamedSchema(b []byte, name string, schema any) []byte {
	b = appendString(b, 1, name)
	return appendMessage(b, namedValue, appendSchema(nil, schema))
}

// appendAny appends an Any's fields: v as YAML (its JSON, which YAML reads).
func appendAny(b []byte, v any) []byte {
	j, _ := json.Marshal(v)
	return appendString(b, anyYAML, string(j)+"\n")
}

// number reads a JSON number however the schema holds it.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case string:
		f, err := strconv.ParseFloat(n, 64)
		return f, err == nil
	}
	return 0, false
}

// appendSchema appends the fields of the Schema a JSON schema is, in field
// order.
func appendSchema(b []byte, v any) []byte {
	s, _ := v.(map[string]any)
	type field struct {
		n   protowire.Number
		add func([]byte) []byte
	}
	var fields []field
	for _, k := range slices.Sorted(maps.Keys(s)) {
		val := s[k]
		switch {
		case schemaStrings[k] != 0:
			str, _ := val.(string)
			fields = append(fields, field{schemaStrings[k], func(b []byte) []byte { return appendString(b, schemaStrings[k], str) }})
		case schemaDoubles[k] != 0:
			if f, ok := number(val); ok {
				fields = append(fields, field{schemaDoubles[k], func(b []byte) []byte {
					return protowire.AppendFixed64(protowire.AppendTag(b, schemaDoubles[k], protowire.Fixed64Type), math.Float64bits(f))
				}})
			}
		case schemaInts[k] != 0:
			if f, ok := number(val); ok {
				fields = append(fields, field{schemaInts[k], func(b []byte) []byte {
					return protowire.AppendVarint(protowire.AppendTag(b, schemaInts[k], protowire.VarintType), uint64(int64(f)))
				}})
			}
		case schemaBools[k] != 0:
			if val == true {
				fields = append(fields, field{schemaBools[k], func(b []byte) []byte {
					return protowire.AppendVarint(protowire.AppendTag(b, schemaBools[k], protowire.VarintType), 1)
				}})
			}
		case k == "required":
			list, _ := val.([]any)
			fields = append(fields, field{schemaRequired, func(b []byte) []byte {
				for _, r := range list {
					str, _ := r.(string)
					b = appendString(b, schemaRequired, str)
				}
				return b
			}})
		case k == "enum":
			list, _ := val.([]any)
			fields = append(fields, field{schemaEnum, func(b []byte) []byte {
				for _, e := range list {
					b = appendMessage(b, schemaEnum, appendAny(nil, e))
				}
				return b
			}})
		case k == "additionalProperties":
			fields = append(fields, field{schemaAdditional, func(b []byte) []byte {
				if allows, ok := val.(bool); ok {
					var item []byte
					if allows {
						item = protowire.AppendVarint(protowire.AppendTag(nil, additionalBoolean, protowire.VarintType), 1)
					} else {
						item = protowire.AppendTag(nil, additionalBoolean, protowire.VarintType)
						item = protowire.AppendVarint(item, 0)
					}
					return appendMessage(b, schemaAdditional, item)
				}
				return appendMessage(b, schemaAdditional, appendMessage(nil, additionalSchema, appendSchema(nil, val)))
			}})
		case k == "type":
			var types []string
			switch t := val.(type) {
			case string:
				types = []string{t}
			case []any:
				for _, e := range t {
					str, _ := e.(string)
					types = append(types, str)
				}
			}
			fields = append(fields, field{schemaType, func(b []byte) []byte {
				var item []byte
				for _, t := range types {
					item = appendString(item, 1, t)
				}
				return appendMessage(b, schemaType, item)
			}})
		case k == "items":
			fields = append(fields, field{schemaItems, func(b []byte) []byte {
				return appendMessage(b, schemaItems, appendMessage(nil, 1, appendSchema(nil, val)))
			}})
		case k == "properties":
			props, _ := val.(map[string]any)
			fields = append(fields, field{schemaProperties, func(b []byte) []byte {
				var item []byte
				for _, name := range slices.Sorted(maps.Keys(props)) {
					item = appendMessage(item, 1, appendNamedSchema(nil, name, props[name]))
				}
				return appendMessage(b, schemaProperties, item)
			}})
		case strings.HasPrefix(k, "x-"):
			fields = append(fields, field{schemaVendorExtension, func(b []byte) []byte {
				named := appendString(nil, 1, k)
				return appendMessage(b, schemaVendorExtension, appendMessage(named, namedValue, appendAny(nil, val)))
			}})
		}
	}
	// In field order, vendor extensions by name.
	slices.SortStableFunc(fields, func(a, b field) int { return int(a.n) - int(b.n) })
	for _, f := range fields {
		b = f.add(b)
	}
	return b
}

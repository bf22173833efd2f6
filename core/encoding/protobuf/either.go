package protobuf

import (
	"kubeplay/core/types"
)

// apiextensions' JSONSchemaPropsOrArray, JSONSchemaPropsOrBool and
// JSONSchemaPropsOrStringArray are messages on the wire whose JSON is one of
// two forms (their own MarshalJSON and UnmarshalJSON). Their messages' fields
// are named by their Go names: Schema, JSONSchemas, Allows, Property.

// eitherFields is the message fields the UnmarshalJSON of a type of kind k
// reads from v.
func eitherFields(k types.Kind, v any) (map[string]any, error) {
	fields := map[string]any{}
	switch v := v.(type) {
	case map[string]any:
		fields["Schema"] = v
		if k == types.KindSchemaOrBool {
			fields["Allows"] = true
		}
	case []any:
		switch k {
		case types.KindSchemaOrArray:
			fields["JSONSchemas"] = v
		case types.KindSchemaOrStringArray:
			fields["Property"] = v
		default:
			return nil, &fieldError{msg: "boolean or JSON schema expected"}
		}
	case bool:
		if k == types.KindSchemaOrBool {
			fields["Allows"] = v
		}
	default:
		if k == types.KindSchemaOrBool {
			return nil, &fieldError{msg: "boolean or JSON schema expected"}
		}
	}
	return fields, nil
}

// eitherJSON is what the MarshalJSON of a type of kind k writes for its
// message's fields.
func eitherJSON(k types.Kind, fields map[string]any) any {
	switch k {
	case types.KindSchemaOrBool:
		if s := fields["Schema"]; s != nil {
			return s
		}
		allows, _ := fields["Allows"].(bool)
		return allows
	case types.KindSchemaOrStringArray:
		if p, _ := fields["Property"].([]any); len(p) > 0 {
			return p
		}
		return fields["Schema"]
	}
	if l, _ := fields["JSONSchemas"].([]any); len(l) > 0 {
		return l
	}
	return fields["Schema"]
}

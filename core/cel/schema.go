package cel

import (
	"bytes"
	"encoding/json"
)

// Schema is the part of a structural schema (a CustomResourceDefinition
// version's openAPIV3Schema) that CEL reads: the types, their bounds and the
// rules.
type Schema struct {
	Type                 string             `json:"type"`
	Format               string             `json:"format"`
	Properties           map[string]*Schema `json:"properties"`
	Items                *Schema            `json:"items"`
	AdditionalProperties *additional        `json:"additionalProperties"`
	Required             []string           `json:"required"`
	Enum                 []any              `json:"enum"`
	Default              any                `json:"default"`
	Nullable             bool               `json:"nullable"`
	MaxLength            *int64             `json:"maxLength"`
	MaxItems             *int64             `json:"maxItems"`
	MaxProperties        *int64             `json:"maxProperties"`
	PreserveUnknown      bool               `json:"x-kubernetes-preserve-unknown-fields"`
	IntOrString          bool               `json:"x-kubernetes-int-or-string"`
	EmbeddedResource     bool               `json:"x-kubernetes-embedded-resource"`
	ListType             string             `json:"x-kubernetes-list-type"`
	ListMapKeys          []string           `json:"x-kubernetes-list-map-keys"`
	MapType              string             `json:"x-kubernetes-map-type"`
	Rules                []Rule             `json:"x-kubernetes-validations"`
}

// Rule is one x-kubernetes-validations rule.
type Rule struct {
	Rule              string  `json:"rule"`
	Message           string  `json:"message"`
	MessageExpression string  `json:"messageExpression"`
	Reason            *string `json:"reason"`
	FieldPath         string  `json:"fieldPath"`
	OptionalOldSelf   *bool   `json:"optionalOldSelf"`
}

// additional is additionalProperties: a schema, or a boolean.
type additional struct{ Schema *Schema }

func (a *additional) UnmarshalJSON(b []byte) error {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] != '{' {
		return nil
	}
	return json.Unmarshal(b, &a.Schema)
}

// ParseSchema reads an openAPIV3Schema's JSON.
func ParseSchema(b []byte) (*Schema, error) {
	var s *Schema
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&s); err != nil {
		return nil, err
	}
	return s, nil
}

// additionalSchema is the schema of an object's additional properties, nil
// if it has none.
func (s *Schema) additionalSchema() *Schema {
	if s == nil || s.AdditionalProperties == nil {
		return nil
	}
	return s.AdditionalProperties.Schema
}

// withTypeAndObjectMeta is s as kube sees a resource's root (or an embedded
// resource): with kind, apiVersion and metadata's name and generateName.
func (s *Schema) withTypeAndObjectMeta() *Schema {
	str := func(p *Schema) bool { return p != nil && p.Type == "string" }
	if m := s.Properties["metadata"]; str(s.Properties["kind"]) && str(s.Properties["apiVersion"]) && m != nil && m.Type == "object" &&
		str(m.Properties["name"]) && str(m.Properties["generateName"]) {
		return s
	}
	out := *s
	out.Properties = make(map[string]*Schema, len(s.Properties)+3)
	for k, p := range s.Properties {
		out.Properties[k] = p
	}
	out.Properties["kind"] = &Schema{Type: "string"}
	out.Properties["apiVersion"] = &Schema{Type: "string"}
	out.Properties["metadata"] = &Schema{Type: "object", Properties: map[string]*Schema{"name": {Type: "string"}, "generateName": {Type: "string"}}}
	return &out
}

// hasRules says whether s or a schema under it has rules.
func (s *Schema) hasRules() bool {
	if s == nil {
		return false
	}
	if len(s.Rules) > 0 || s.Items.hasRules() || s.additionalSchema().hasRules() {
		return true
	}
	for _, p := range s.Properties {
		if p.hasRules() {
			return true
		}
	}
	return false
}

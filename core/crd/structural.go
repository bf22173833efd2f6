package crd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"kubeplay/core/field"
	"kubeplay/core/object"
)

// Schema is a version's openAPIV3Schema (apiextensions' JSONSchemaProps), the
// parts a structural schema may use that kubeplay reads.
type Schema struct {
	Type                 string             `json:"type"`
	Format               string             `json:"format"`
	Description          string             `json:"description"`
	Properties           map[string]*Schema `json:"properties"`
	Items                *Schema            `json:"items"`
	AdditionalProperties *SchemaOrBool      `json:"additionalProperties"`
	Required             []string           `json:"required"`
	Enum                 []any              `json:"enum"`
	DefaultValue         any                `json:"default"`
	Nullable             bool               `json:"nullable"`
	Minimum              *float64           `json:"minimum"`
	Maximum              *float64           `json:"maximum"`
	ExclusiveMinimum     bool               `json:"exclusiveMinimum"`
	ExclusiveMaximum     bool               `json:"exclusiveMaximum"`
	MultipleOf           *float64           `json:"multipleOf"`
	MinLength            *int64             `json:"minLength"`
	MaxLength            *int64             `json:"maxLength"`
	Pattern              string             `json:"pattern"`
	MinItems             *int64             `json:"minItems"`
	MaxItems             *int64             `json:"maxItems"`
	UniqueItems          bool               `json:"uniqueItems"`
	MinProperties        *int64             `json:"minProperties"`
	MaxProperties        *int64             `json:"maxProperties"`
	PreserveUnknown      bool               `json:"x-kubernetes-preserve-unknown-fields"`
	IntOrString          bool               `json:"x-kubernetes-int-or-string"`
	EmbeddedResource     bool               `json:"x-kubernetes-embedded-resource"`
	ListType             string             `json:"x-kubernetes-list-type"`
	ListMapKeys          []string           `json:"x-kubernetes-list-map-keys"`
	MapType              string             `json:"x-kubernetes-map-type"`
	Validations          []any              `json:"x-kubernetes-validations"`

	pattern *regexp.Regexp
}

// SchemaOrBool is additionalProperties: a schema, or whether any is allowed.
type SchemaOrBool struct {
	Allows bool
	Schema *Schema
}

// UnmarshalJSON reads a schema or a boolean.
func (s *SchemaOrBool) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &s.Allows); err == nil {
		return nil
	}
	s.Allows = true
	return decodeSchema(b, &s.Schema)
}

// MarshalJSON writes it back as read.
func (s *SchemaOrBool) MarshalJSON() ([]byte, error) {
	if s.Schema != nil {
		return json.Marshal(s.Schema)
	}
	return json.Marshal(s.Allows)
}

// decodeSchema reads a schema, numbers (defaults, enums) as json.Number, as
// objects hold them.
func decodeSchema(b []byte, into any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(into)
}

// ParseSchema reads an openAPIV3Schema as the object holds it.
func ParseSchema(v any) (*Schema, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var s *Schema
	if err := decodeSchema(b, &s); err != nil {
		return nil, err
	}
	return s, s.compile()
}

// compile compiles the patterns of s and what it holds.
func (s *Schema) compile() (err error) {
	s.walk(func(s *Schema) {
		if s.Pattern != "" && err == nil {
			s.pattern, err = regexp.Compile(s.Pattern)
		}
	})
	return err
}

// walk calls fn on s and every schema it holds.
func (s *Schema) walk(fn func(*Schema)) {
	if s == nil {
		return
	}
	fn(s)
	for _, p := range s.Properties {
		p.walk(fn)
	}
	s.Items.walk(fn)
	if s.AdditionalProperties != nil {
		s.AdditionalProperties.Schema.walk(fn)
	}
}

// sortedProperties are the names of s's properties, sorted.
func (s *Schema) sortedProperties() []string {
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// metadataFields are ObjectMeta's fields: a custom object's metadata keeps
// only these.
var metadataFields = []string{"name", "generateName", "namespace", "selfLink", "uid", "resourceVersion",
	"generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
	"annotations", "ownerReferences", "finalizers", "managedFields"}

// Prune removes from a custom object what its schema does not know, as kube's
// structural pruning does (apiVersion, kind and ObjectMeta's fields are always
// known), and returns the paths it removed.
func (s *Schema) Prune(obj object.Object) []string {
	var pruned []string
	for k, v := range obj {
		switch k {
		case "apiVersion", "kind":
		case "metadata":
			if meta, ok := v.(map[string]any); ok {
				for mk := range meta {
					if !slices.Contains(metadataFields, mk) {
						delete(meta, mk)
						pruned = append(pruned, "metadata."+mk)
					}
				}
			}
		default:
			var child *Schema
			if s != nil {
				child = s.Properties[k]
			}
			if child == nil && (s == nil || !s.PreserveUnknown) {
				delete(obj, k)
				pruned = append(pruned, k)
				continue
			}
			child.prune(v, field.NewPath(k), &pruned)
		}
	}
	slices.Sort(pruned)
	return pruned
}

// prune prunes v, at p, adding the paths it removes to pruned (written out
// only then, so a deep object costs no path per level).
func (s *Schema) prune(v any, p *field.Path, pruned *[]string) {
	if s == nil {
		return // under x-kubernetes-preserve-unknown-fields
	}
	switch v := v.(type) {
	case map[string]any:
		if s.EmbeddedResource {
			*pruned = append(*pruned, (&Schema{Properties: s.Properties, PreserveUnknown: s.PreserveUnknown}).Prune(v)...)
			return
		}
		for k, e := range v {
			child := s.Properties[k]
			if child == nil && s.AdditionalProperties != nil {
				child = s.AdditionalProperties.Schema
				if child == nil && s.AdditionalProperties.Allows {
					continue
				}
			}
			if child == nil && !s.PreserveUnknown {
				delete(v, k)
				*pruned = append(*pruned, p.Child(k).String())
				continue
			}
			child.prune(e, p.Child(k), pruned)
		}
	case []any:
		for i, e := range v {
			s.Items.prune(e, p.Index(i), pruned)
		}
	}
}

// Default sets the schema's defaults where obj lacks the field, as kube's
// structural defaulting does, deepest first.
func (s *Schema) Default(v any) {
	if s == nil {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range s.sortedProperties() {
			p := s.Properties[k]
			if _, ok := v[k]; !ok && p.DefaultValue != nil {
				v[k] = object.DeepCopyValue(p.DefaultValue)
			}
			if e, ok := v[k]; ok {
				p.Default(e)
			}
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			for k, e := range v {
				if s.Properties[k] == nil {
					s.AdditionalProperties.Schema.Default(e)
				}
			}
		}
	case []any:
		for _, e := range v {
			s.Items.Default(e)
		}
	}
}

// Validate checks a custom object against the schema, as kube-openapi's
// validator words it (apiVersion, kind and metadata are the registry's).
func (s *Schema) Validate(obj object.Object) field.ErrorList {
	if s == nil {
		return nil
	}
	o := make(map[string]any, len(obj))
	for k, v := range obj {
		if k != "metadata" && k != "apiVersion" && k != "kind" {
			o[k] = v
		}
	}
	trimmed := *s
	trimmed.Properties = map[string]*Schema{}
	for k, p := range s.Properties {
		if k != "metadata" && k != "apiVersion" && k != "kind" {
			trimmed.Properties[k] = p
		}
	}
	trimmed.Required = slices.DeleteFunc(slices.Clone(s.Required), func(r string) bool { return r == "metadata" || r == "apiVersion" || r == "kind" })
	var errs field.ErrorList
	trimmed.validate(o, nil, &errs)
	return errs
}

// typeName is kube-openapi's name for the JSON type of v.
func typeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			return "number"
		}
		return "integer"
	}
	return "object"
}

// number is v as a float, if it is a number.
func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

// formatNumber writes a limit as kube-openapi's messages do (%v of a float64).
func formatNumber(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// validate checks v, at p (nil at the root), against s.
func (s *Schema) validate(v any, p *field.Path, errs *field.ErrorList) {
	if s == nil {
		return
	}
	invalid := func(value any, format string, args ...any) {
		inBody(errs, p, value, fmt.Sprintf(format, args...))
	}
	t, want := typeName(v), s.Type
	if s.IntOrString {
		want = "integer,string"
	}
	switch {
	case v == nil && s.Nullable:
		return
	case s.IntOrString && (t == "integer" || t == "string"):
	case want != "" && want != t && !(want == "number" && t == "integer"):
		*errs = append(*errs, field.TypeInvalid(p, t, fmt.Sprintf("%s in body must be of type %s: %q", bodyName(p), want, t)))
		return
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return equal(e, v) }) {
		values := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			if str, ok := e.(string); ok {
				values[i] = str
			} else {
				values[i] = string(mustJSON(e))
			}
		}
		*errs = append(*errs, field.NotSupported(p, v, values))
	}
	switch v := v.(type) {
	case string:
		n := int64(len([]rune(v)))
		if s.MaxLength != nil && n > *s.MaxLength {
			*errs = append(*errs, field.TooLong(p, int(*s.MaxLength)))
		}
		if s.MinLength != nil && n < *s.MinLength {
			invalid(v, "should be at least %d chars long", *s.MinLength)
		}
		if s.pattern != nil && !s.pattern.MatchString(v) {
			invalid(v, "should match '%s'", s.Pattern)
		}
	case json.Number:
		f, _ := number(v)
		value := any(v)
		switch {
		case s.Maximum != nil && (f > *s.Maximum || s.ExclusiveMaximum && f == *s.Maximum):
			invalid(value, "should be less than %s%s", orEqual(!s.ExclusiveMaximum), formatNumber(*s.Maximum))
		case s.Minimum != nil && (f < *s.Minimum || s.ExclusiveMinimum && f == *s.Minimum):
			invalid(value, "should be greater than %s%s", orEqual(!s.ExclusiveMinimum), formatNumber(*s.Minimum))
		}
		if s.MultipleOf != nil && *s.MultipleOf != 0 && math.Mod(f, *s.MultipleOf) != 0 {
			invalid(value, "should be a multiple of %s", formatNumber(*s.MultipleOf))
		}
	case []any:
		if s.MaxItems != nil && int64(len(v)) > *s.MaxItems {
			*errs = append(*errs, field.TooMany(p, len(v), int(*s.MaxItems)))
		}
		if s.MinItems != nil && int64(len(v)) < *s.MinItems {
			invalid(len(v), "should have at least %d items", *s.MinItems)
		}
		if s.UniqueItems || s.ListType == "set" {
			for i := range v {
				if slices.ContainsFunc(v[:i], func(e any) bool { return equal(e, v[i]) }) {
					if s.ListType == "set" {
						*errs = append(*errs, field.Duplicate(p.Index(i), v[i]))
					} else {
						invalid("", "shouldn't contain duplicates")
					}
					break
				}
			}
		}
		for i, e := range v {
			s.Items.validate(e, p.Index(i), errs)
		}
	case map[string]any:
		for _, r := range s.Required {
			if _, ok := v[r]; !ok {
				*errs = append(*errs, field.Required(p.Child(r), ""))
			}
		}
		if s.MaxProperties != nil && int64(len(v)) > *s.MaxProperties {
			*errs = append(*errs, field.TooMany(p, len(v), int(*s.MaxProperties)))
		}
		if s.MinProperties != nil && int64(len(v)) < *s.MinProperties {
			invalid(len(v), "should have at least %d properties", *s.MinProperties)
		}
		for _, k := range s.sortedProperties() {
			if e, ok := v[k]; ok {
				s.Properties[k].validate(e, p.Child(k), errs)
			}
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			keys := make([]string, 0, len(v))
			for k := range v {
				if s.Properties[k] == nil {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				s.AdditionalProperties.Schema.validate(v[k], p.Child(k), errs)
			}
		}
	}
}

// inBody adds kube-openapi's Invalid error: the value at p breaks a rule of
// the schema.
//
//go:noinline
func inBody(errs *field.ErrorList, p *field.Path, value any, rule string) {
	*errs = append(*errs, field.Invalid(p, value, bodyName(p)+" in body "+rule))
}

// bodyName is how kube-openapi's messages name the value at p: its path, "."
// at the root.
func bodyName(p *field.Path) string {
	if name := p.String(); name != "" {
		return name
	}
	return "."
}

func orEqual(inclusive bool) string {
	if inclusive {
		return "or equal to "
	}
	return ""
}

// equal compares two JSON values, numbers by value.
func equal(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	return bytes.Equal(mustJSON(a), mustJSON(b))
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

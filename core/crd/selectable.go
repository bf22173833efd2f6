package crd

import (
	"reflect"
	"strings"

	"kubeplay/core/field"
)

// maxSelectableFields is how many selectableFields a version may have.
const maxSelectableFields = 8

// Kube's words for selectableFields beside a schema they cannot use.
const (
	selectableNeedsVersionSchema = "selectableFields may only be set when version.schema.openAPIV3Schema is not included"
	selectableNeedsSchema        = "selectableFields may only be set when validations.schema is included"
	selectableTypes              = "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."
)

// validateSelectable checks the versions' selectableFields as kube does once
// it has read a definition into its internal form, where what every version
// has alike moves to the spec: selectableFields alike in every version are
// the spec's, checked against the spec's schema (there only when every
// version has the same); others are each version's, checked against the
// version's own schema (none when the schemas are alike).
func validateSelectable(versions []Version, spec *field.Path) field.ErrorList {
	if len(versions) == 0 {
		return nil
	}
	fieldsAlike, schemasAlike := true, true
	for _, v := range versions[1:] {
		a, b := v.SelectableFields, versions[0].SelectableFields
		fieldsAlike = fieldsAlike && (len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b))
		schemasAlike = schemasAlike && reflect.DeepEqual(v.Schema, versions[0].Schema)
	}
	var errs field.ErrorList
	check := func(v Version, p *field.Path, hasSchema bool, message string) {
		if len(v.SelectableFields) == 0 {
			return
		}
		var s *Schema
		if hasSchema && v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			s, _ = ParseSchema(v.Schema.OpenAPIV3Schema)
		}
		if s == nil {
			errs = append(errs, field.Invalid(p, "", message))
			return
		}
		errs = append(errs, s.selectableFields(v.SelectableFields, p)...)
	}
	if fieldsAlike {
		check(versions[0], spec.Child("selectableFields"), schemasAlike, selectableNeedsSchema)
		return errs
	}
	for i, v := range versions {
		check(v, spec.Child("versions").Index(i).Child("selectableFields"), !schemasAlike, selectableNeedsVersionSchema)
	}
	return errs
}

// selectableFields checks selectable fields against s as kube's
// ValidateCustomResourceSelectableFields does.
func (s *Schema) selectableFields(fields []SelectableField, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, f := range fields {
		jp := p.Index(i).Child("jsonPath")
		if f.JSONPath == "" {
			errs = append(errs, field.Required(jp, ""))
			continue
		}
		path, found, reason := s.fieldPath(f.JSONPath)
		if reason != "" {
			errs = append(errs, field.Invalid(jp, f.JSONPath, "is an invalid path: "+reason))
			continue
		}
		if strings.SplitN(path, ".", 2)[0] == "metadata" {
			errs = append(errs, field.Invalid(jp, f.JSONPath, "must not point to fields in metadata"))
		}
		if found == nil || found.Type != "string" && found.Type != "boolean" && found.Type != "integer" {
			errs = append(errs, field.Invalid(jp, f.JSONPath, selectableTypes))
		}
		if seen[path] {
			errs = append(errs, field.Duplicate(jp, f.JSONPath))
		}
		seen[path] = true
	}
	if len(seen) > maxSelectableFields {
		errs = append(errs, field.TooMany(p, len(seen), maxSelectableFields))
	}
	return errs
}

// fieldPath follows a selectable field's JSON path (.a.b, no array
// notation) in s as kube's ValidFieldPath does: the path it names, the
// schema it reaches, or why it names none.
func (s *Schema) fieldPath(jsonPath string) (string, *Schema, string) {
	var path *field.Path
	rest := jsonPath
	for rest != "" {
		switch {
		case rest[0] == '[':
			return "", nil, "array notation is not allowed"
		case rest[0] != '.':
			tok, _, _ := strings.Cut(rest, ".")
			return "", nil, "expected [ or . but got: " + strings.SplitN(tok, "[", 2)[0]
		}
		rest = rest[1:]
		if rest == "" {
			return "", nil, "unexpected end of JSON path"
		}
		end := strings.IndexAny(rest, ".[]")
		switch end {
		case 0:
			end = 1 // a delimiter read as the name
		case -1:
			end = len(rest)
		}
		name := rest[:end]
		rest = rest[end:]
		switch {
		case s == nil:
			return "", nil, "does not refer to a valid field"
		case s.Properties != nil:
			path = path.Child(name)
			if s = s.Properties[name]; s == nil {
				return "", nil, "does not refer to a valid field"
			}
		case s.AdditionalProperties != nil:
			path = path.Key(name)
			s = s.AdditionalProperties.Schema
		default:
			return "", nil, "does not refer to a valid field"
		}
	}
	return path.String(), s, ""
}

// Package crd owns CustomResourceDefinitions (apiextensions.k8s.io/v1), as
// kube's apiextensions-apiserver: what a definition defaults to and how it is
// validated (names, versions, structural schemas, printer columns,
// subresources, selectable fields), the custom resources it serves
// (Resources: one per served version, with its schema's pruning, defaulting
// and validation, on writes and on every read, its printer columns, its
// status and scale subresources and its selectable fields; versions convert
// with the None strategy, only apiVersion changes), the controller that names
// and establishes definitions and serves and stops serving their resources in
// the API registry (core/api), deleting the objects of a deleted definition
// (as kube's finalizer does), and what the OpenAPI documents publish of their
// group versions as kube's builder publishes it (Document for /openapi/v3,
// V2 for /openapi/v2: kubectl explain, kubectl's validation, server-side
// apply).
//
// Its x-kubernetes-validations rules (CEL) are checked when it is written
// (ValidateCEL) and evaluated on its custom resources by the host's CEL
// (api.CEL): core/crd only asks.
package crd

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"kubeplay/core/api"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// Definition is a CustomResourceDefinition as kubeplay reads it.
type Definition struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group      string    `json:"group"`
		Names      Names     `json:"names"`
		Scope      string    `json:"scope"`
		Versions   []Version `json:"versions"`
		Conversion *struct {
			Strategy string `json:"strategy"`
		} `json:"conversion"`
	} `json:"spec"`
	Status struct {
		AcceptedNames  Names    `json:"acceptedNames"`
		StoredVersions []string `json:"storedVersions"`
		Conditions     []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
		} `json:"conditions"`
	} `json:"status"`
}

// Names are a definition's names.
type Names struct {
	Plural     string   `json:"plural"`
	Singular   string   `json:"singular,omitempty"`
	ShortNames []string `json:"shortNames,omitempty"`
	Kind       string   `json:"kind"`
	ListKind   string   `json:"listKind,omitempty"`
	Categories []string `json:"categories,omitempty"`
}

// Version is one of a definition's versions.
type Version struct {
	Name       string `json:"name"`
	Served     bool   `json:"served"`
	Storage    bool   `json:"storage"`
	Deprecated bool   `json:"deprecated"`
	Schema     *struct {
		OpenAPIV3Schema any `json:"openAPIV3Schema"`
	} `json:"schema"`
	Subresources *struct {
		Status *struct{} `json:"status"`
		Scale  *Scale    `json:"scale"`
	} `json:"subresources"`
	Columns          []Column          `json:"additionalPrinterColumns"`
	SelectableFields []SelectableField `json:"selectableFields"`
}

// SelectableField is one of a version's selectableFields.
type SelectableField struct {
	JSONPath string `json:"jsonPath"`
}

// Scale is a version's scale subresource.
type Scale struct {
	SpecReplicasPath   string `json:"specReplicasPath"`
	StatusReplicasPath string `json:"statusReplicasPath"`
	LabelSelectorPath  string `json:"labelSelectorPath"`
}

// Column is one of a version's additionalPrinterColumns.
type Column struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int    `json:"priority"`
	JSONPath    string `json:"jsonPath"`
}

// Read reads a definition from its object form.
func Read(obj object.Object) (*Definition, error) {
	var d Definition
	if err := decodeSchema(mustJSON(obj), &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// established says whether the definition's Established condition is True.
func (d *Definition) established() bool {
	for _, c := range d.Status.Conditions {
		if c.Type == "Established" {
			return c.Status == "True"
		}
	}
	return false
}

// Canonicalize gives a definition kube's defaults: the None conversion, the
// singular name and the list kind.
func Canonicalize(obj object.Object) {
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		return
	}
	if spec["conversion"] == nil {
		spec["conversion"] = map[string]any{"strategy": "None"}
	}
	names, _ := spec["names"].(map[string]any)
	kind, _ := names["kind"].(string)
	if kind != "" && names["listKind"] == nil {
		names["listKind"] = kind + "List"
	}
	if singular, _ := names["singular"].(string); singular == "" && names != nil {
		names["singular"] = strings.ToLower(kind)
	}
}

// PrepareForCreate starts a definition's status: not yet named or
// established, its storage version stored.
func PrepareForCreate(obj object.Object) {
	status := map[string]any{"conditions": nil, "acceptedNames": map[string]any{"plural": "", "kind": ""}}
	for _, v := range object.Objects(obj["spec"].(map[string]any), "versions") {
		if v["storage"] == true {
			status["storedVersions"] = []any{v["name"]}
		}
	}
	obj["status"] = status
}

// PrepareForUpdate keeps a stored version that is no longer the storage
// version among the stored versions, as kube does.
func PrepareForUpdate(obj, old object.Object) {
	oldStatus, _ := old["status"].(map[string]any)
	stored := object.Strings(oldStatus, "storedVersions")
	for _, v := range object.Objects(obj["spec"].(map[string]any), "versions") {
		if name, _ := v["name"].(string); v["storage"] == true && !slices.Contains(stored, name) {
			stored = append(stored, name)
		}
	}
	if status, ok := obj["status"].(map[string]any); ok && len(stored) > 0 {
		status["storedVersions"] = toAny(stored)
	}
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// Validate checks a definition as kube's ValidateCustomResourceDefinition
// does (the rules kubeplay knows, in kube's order), and returns the warnings
// its writer gets.
func Validate(obj object.Object) (field.ErrorList, []string) {
	d, err := Read(obj)
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("spec"), "", err.Error())}, nil
	}
	var errs field.ErrorList
	invalid := func(p *field.Path, v any, msgs ...string) { addInvalid(&errs, p, v, msgs) }
	spec := field.NewPath("spec")
	s := &d.Spec
	if d.Metadata.Name != s.Names.Plural+"."+s.Group {
		invalid(field.NewPath("metadata", "name"), d.Metadata.Name, `must be spec.names.plural+"."+spec.group`)
	}
	switch {
	case s.Group == "":
		errs = append(errs, field.Required(spec.Child("group"), ""))
	case !strings.Contains(s.Group, "."):
		invalid(spec.Child("group"), s.Group, "should be a domain with at least one dot")
	default:
		invalid(spec.Child("group"), s.Group, validation.DNS1123Subdomain(s.Group)...)
	}
	if s.Scope != "Cluster" && s.Scope != "Namespaced" {
		errs = append(errs, field.NotSupported(spec.Child("scope"), s.Scope, []string{"Cluster", "Namespaced"}))
	}
	storage := 0
	seen := map[string]bool{}
	for i, v := range s.Versions {
		p := spec.Child("versions").Index(i)
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			errs = append(errs, field.Required(p.Child("schema").Child("openAPIV3Schema"), "schemas are required"))
		}
		invalid(p.Child("name"), v.Name, validation.DNS1035Label(v.Name)...)
		if seen[v.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), v.Name))
		}
		seen[v.Name] = true
		if v.Storage {
			storage++
		}
	}
	if storage != 1 {
		invalid(spec.Child("versions"), field.GoSyntax(fmt.Sprintf("[]apiextensions.CustomResourceDefinitionVersion{...%d versions}", len(s.Versions))), "must have exactly one version marked as storage version")
	}
	names := spec.Child("names")
	invalid(names.Child("plural"), s.Names.Plural, validation.DNS1035Label(s.Names.Plural)...)
	if s.Names.Singular != "" {
		invalid(names.Child("singular"), s.Names.Singular, validation.DNS1035Label(s.Names.Singular)...)
	}
	for _, k := range []struct{ name, value string }{{"kind", s.Names.Kind}, {"listKind", s.Names.ListKind}} {
		if k.value == "" {
			errs = append(errs, field.Required(names.Child(k.name), ""))
		} else if m := validation.DNS1035Label(strings.ToLower(k.value)); len(m) > 0 {
			invalid(names.Child(k.name), k.value, "may have mixed case, but should otherwise match: "+m[len(m)-1])
		}
	}
	for i, n := range s.Names.ShortNames {
		invalid(names.Child("shortNames").Index(i), n, validation.DNS1035Label(n)...)
	}
	var warnings []string
	for _, part := range versionParts(s.Versions, spec) {
		errs = append(errs, part.validate()...)
	}
	errs = append(errs, validateSelectable(s.Versions, spec)...)
	if len(d.Status.StoredVersions) == 0 {
		invalid(field.NewPath("status", "storedVersions"), field.GoSyntax("[]string(nil)"), "must have at least one stored version")
	}
	return errs, warnings
}

// addInvalid adds an Invalid error of p for each message.
//
//go:noinline
func addInvalid(errs *field.ErrorList, p *field.Path, v any, msgs []string) {
	for _, m := range msgs {
		*errs = append(*errs, field.Invalid(p, v, m))
	}
}

// versionPart is what one version, or all of them alike (kube then speaks of
// them at spec.validation, spec.subresources and
// spec.additionalPrinterColumns), says of its objects.
type versionPart struct {
	version Version
	path    *field.Path // of the schema
	subs    *field.Path
	columns *field.Path
}

// versionParts are the parts of the versions to validate, with the paths
// kube reports them at.
func versionParts(versions []Version, spec *field.Path) []versionPart {
	if len(versions) == 0 {
		return nil
	}
	alike := true
	for _, v := range versions[1:] {
		alike = alike && reflect.DeepEqual(v.Schema, versions[0].Schema) &&
			reflect.DeepEqual(v.Subresources, versions[0].Subresources) && reflect.DeepEqual(v.Columns, versions[0].Columns)
	}
	if alike {
		return []versionPart{{version: versions[0], path: spec.Child("validation").Child("openAPIV3Schema"),
			subs: spec.Child("subresources"), columns: spec.Child("additionalPrinterColumns")}}
	}
	parts := make([]versionPart, len(versions))
	for i, v := range versions {
		p := spec.Child("versions").Index(i)
		parts[i] = versionPart{version: v, path: p.Child("schema").Child("openAPIV3Schema"), subs: p.Child("subresources"), columns: p.Child("additionalPrinterColumns")}
	}
	return parts
}

// columnTypes are the printer column types kube allows.
var columnTypes = []string{"boolean", "date", "integer", "number", "string"}

// simplePath says whether p is a simple JSON path (.a.b).
func simplePath(p string) bool { return strings.HasPrefix(p, ".") && !strings.ContainsAny(p, "[]*") }

func (part *versionPart) validate() field.ErrorList {
	var errs field.ErrorList
	v := part.version
	if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
		s, err := ParseSchema(v.Schema.OpenAPIV3Schema)
		switch {
		case err != nil:
			errs = append(errs, field.Invalid(part.path, "", err.Error()))
		default:
			var structural field.ErrorList
			s.structural(part.path, rootLevel, &structural)
			errs = append(errs, sortedByText(structural)...)
			s.openAPI(part.path, &errs)
		}
	}
	if v.Subresources != nil && v.Subresources.Scale != nil {
		sc := v.Subresources.Scale
		for _, p := range []struct {
			name, value string
			optional    bool
		}{{"specReplicasPath", sc.SpecReplicasPath, false}, {"statusReplicasPath", sc.StatusReplicasPath, false}, {"labelSelectorPath", sc.LabelSelectorPath, true}} {
			switch {
			case p.value == "" && !p.optional:
				errs = append(errs, field.Required(part.subs.Child("scale").Child(p.name), ""))
			case p.value != "" && !simplePath(p.value):
				errs = append(errs, field.Invalid(part.subs.Child("scale").Child(p.name), p.value, "must be a simple json path starting with ."))
			}
		}
	}
	for i, c := range v.Columns {
		p := part.columns.Index(i)
		if c.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
		if !slices.Contains(columnTypes, c.Type) {
			errs = append(errs, field.Invalid(p.Child("type"), c.Type, "must be one of "+strings.Join(columnTypes, ",")))
		}
		if c.JSONPath == "" {
			errs = append(errs, field.Required(p.Child("JSONPath"), ""))
		} else if !simplePath(c.JSONPath) {
			errs = append(errs, field.Invalid(p.Child("JSONPath"), c.JSONPath, "must be a simple json path starting with ."))
		}
	}
	return errs
}

// schemaTypes are the types a structural schema may name.
var schemaTypes = []string{"array", "boolean", "integer", "number", "object", "string"}

// schemaLevel is where a schema is: the root, an array's items, or a field
// (a property or additionalProperties).
type schemaLevel int

const (
	rootLevel schemaLevel = iota
	itemLevel
	fieldLevel
)

// missingType is what kube says of a schema at each level without a type.
var missingType = [...]string{
	rootLevel:  "must not be empty at the root",
	itemLevel:  "must not be empty for specified array items",
	fieldLevel: "must not be empty for specified object fields",
}

// structural checks the rules of structural schemas kubeplay knows, as
// kube's ValidateStructural does: every schema has a type (but int-or-string
// and preserved unknown fields), object at the root, arrays have items, the
// root has no additionalProperties. It adds what breaks them, at p and below,
// to errs (kube sorts them by their text: sortedByText).
func (s *Schema) structural(p *field.Path, level schemaLevel, errs *field.ErrorList) {
	if s.Type == "array" && s.Items == nil {
		*errs = append(*errs, field.Required(p.Child("items"), "must be specified"))
	}
	if s.Items != nil {
		s.Items.structural(p.Child("items"), itemLevel, errs)
	}
	for _, k := range s.sortedProperties() {
		s.Properties[k].structural(p.Child("properties").Key(k), fieldLevel, errs)
	}
	if s.AdditionalProperties != nil {
		if level == rootLevel {
			*errs = append(*errs, field.Forbidden(p.Child("additionalProperties"), "must not be used at the root"))
		}
		if s.AdditionalProperties.Schema != nil {
			s.AdditionalProperties.Schema.structural(p.Child("additionalProperties"), fieldLevel, errs)
		}
	}
	switch {
	case s.Type == "" && !s.IntOrString && !s.PreserveUnknown:
		*errs = append(*errs, field.Required(p.Child("type"), missingType[level]))
	case level == rootLevel && s.Type != "" && s.Type != "object":
		*errs = append(*errs, field.Invalid(p.Child("type"), s.Type, "must be object at the root"))
	}
}

// sortedByText is errs sorted by their text, each written out once.
func sortedByText(errs field.ErrorList) field.ErrorList {
	type textOf struct {
		text string
		err  *field.Error
	}
	sorted := make([]textOf, len(errs))
	for i, e := range errs {
		sorted[i] = textOf{e.Error(), e}
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].text < sorted[j].text })
	for i, t := range sorted {
		errs[i] = t.err
	}
	return errs
}

// openAPI checks the rules of OpenAPI schemas kubeplay knows, as kube's
// ValidateCustomResourceDefinitionOpenAPISchema does, a schema before what
// it holds: types are OpenAPI's, properties and additionalProperties exclude
// each other. It adds what breaks them, at p and below, to errs.
func (s *Schema) openAPI(p *field.Path, errs *field.ErrorList) {
	if s.Type != "" && !slices.Contains(schemaTypes, s.Type) {
		*errs = append(*errs, field.NotSupported(p.Child("type"), s.Type, schemaTypes))
	}
	if ap := s.AdditionalProperties; ap != nil && len(s.Properties) > 0 && (!ap.Allows || ap.Schema != nil) {
		*errs = append(*errs, field.Forbidden(p.Child("additionalProperties"), "additionalProperties and properties are mutual exclusive"))
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		s.AdditionalProperties.Schema.openAPI(p.Child("additionalProperties"), errs)
	}
	for _, k := range s.sortedProperties() {
		s.Properties[k].openAPI(p.Child("properties").Key(k), errs)
	}
	if s.Items != nil {
		s.Items.openAPI(p.Child("items"), errs)
	}
}

// ValidateCEL checks the x-kubernetes-validations rules of a definition's
// versions (old: the stored definition on update, nil on create) with the
// host's CEL, as kube's validation of a definition does: only those of
// schemas that are otherwise valid, new expressions held to kube's
// compatibility version, an unchanged version's rules not to the cost of one
// expression. Without a CEL, it warns that the rules are not evaluated.
func ValidateCEL(c api.CEL, obj, old object.Object) (field.ErrorList, []string) {
	d, err := Read(obj)
	if err != nil {
		return nil, nil
	}
	var stored *Definition
	if old != nil {
		if stored, err = Read(old); err != nil {
			return nil, nil
		}
	}
	var errs field.ErrorList
	var warnings []string
	for _, part := range versionParts(d.Spec.Versions, field.NewPath("spec")) {
		v := part.version
		if v.Schema == nil {
			continue
		}
		m, ok := v.Schema.OpenAPIV3Schema.(map[string]any)
		if !ok || len(part.validate()) > 0 {
			continue
		}
		s, err := ParseSchema(m)
		if err != nil || rulesOf("", "", s, m) == nil {
			continue
		}
		if c == nil {
			warnings = append(warnings, part.path.String()+": x-kubernetes-validations rules are not evaluated by this host")
			continue
		}
		req := api.CheckRules{Schema: m, Path: part.path.String()}
		if stored != nil {
			req.Rules, req.MessageExpressions = stored.expressions()
			for _, sv := range stored.Spec.Versions {
				req.Unchanged = req.Unchanged || sv.Name == v.Name && reflect.DeepEqual(sv.Schema, v.Schema)
			}
		}
		errs = append(errs, c.CheckRules(req)...)
	}
	return errs, warnings
}

// expressions are the rules and message expressions of every version's
// schema.
func (d *Definition) expressions() (rules, messages []string) {
	for _, v := range d.Spec.Versions {
		if v.Schema == nil {
			continue
		}
		s, err := ParseSchema(v.Schema.OpenAPIV3Schema)
		if err != nil {
			continue
		}
		s.walk(func(s *Schema) {
			for _, r := range s.Validations {
				r, _ := r.(map[string]any)
				if e, ok := r["rule"].(string); ok {
					rules = append(rules, e)
				}
				if e, ok := r["messageExpression"].(string); ok && e != "" {
					messages = append(messages, e)
				}
			}
		})
	}
	return rules, messages
}

// ValidateUpdate checks what may not change: the scope, and the kind and
// list kind once established.
func ValidateUpdate(obj, old object.Object) field.ErrorList {
	d, err := Read(obj)
	o, err2 := Read(old)
	if err != nil || err2 != nil {
		return nil
	}
	var errs field.ErrorList
	if d.Spec.Scope != o.Spec.Scope {
		errs = append(errs, field.Invalid(field.NewPath("spec", "scope"), d.Spec.Scope, "field is immutable"))
	}
	if o.established() {
		for _, k := range [][3]string{{"kind", d.Spec.Names.Kind, o.Status.AcceptedNames.Kind}, {"listKind", d.Spec.Names.ListKind, o.Status.AcceptedNames.ListKind}} {
			if k[2] != "" && k[1] != k[2] {
				errs = append(errs, field.Invalid(field.NewPath("status", "acceptedNames", k[0]), k[1], "must not change after the CustomResourceDefinition is established"))
			}
		}
	}
	return errs
}

package crd

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
)

// Verbs a custom resource serves, and its subresources.
var (
	customVerbs = []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}
	subVerbs    = []string{"get", "patch", "update"}
)

// Resources are the custom resources d serves: one per served version, under
// its accepted names.
func (d *Definition) Resources() []*api.Resource {
	names := d.Status.AcceptedNames
	fields := d.selectableFields()
	var out []*api.Resource
	for _, v := range d.Spec.Versions {
		if !v.Served {
			continue
		}
		r := &api.Resource{
			Group: d.Spec.Group, Version: v.Name, Kind: names.Kind, Plural: names.Plural,
			Singular: names.Singular, ShortNames: names.ShortNames, Categories: names.Categories,
			Namespaced: d.Spec.Scope == "Namespaced", Verbs: customVerbs, Generation: true, UpdateNeedsVersion: true,
			Custom: &api.CustomResource{Definition: d.Metadata.Name, Schema: (*Schema)(nil)}, Fields: fields,
		}
		for _, f := range v.SelectableFields {
			r.Custom.Selectable = append(r.Custom.Selectable, strings.TrimPrefix(f.JSONPath, "."))
		}
		if r.Singular == "" {
			r.Singular = strings.ToLower(names.Kind)
		}
		if v.Schema != nil {
			if m, ok := v.Schema.OpenAPIV3Schema.(map[string]any); ok {
				r.Custom.OpenAPI = m
				if s, err := ParseSchema(m); err == nil {
					r.Custom.Schema = s
					r.Custom.Rules = rulesOf(d.Metadata.Name, v.Name, s, m)
				}
			}
		}
		var cols []table.CustomColumn
		for _, c := range v.Columns {
			cols = append(cols, table.CustomColumn{Name: c.Name, Type: c.Type, Format: c.Format, Description: c.Description, Priority: c.Priority, JSONPath: c.JSONPath})
		}
		// A column kube cannot parse ends the columns, as kube's do.
		r.Custom.Printer, _ = table.ForCustom(cols)
		if v.Subresources != nil {
			if v.Subresources.Status != nil {
				r.Subs = append(r.Subs, api.Subresource{Name: "status", Kind: names.Kind, Group: d.Spec.Group, Verbs: subVerbs})
			}
			if sc := v.Subresources.Scale; sc != nil {
				r.Subs = append(r.Subs, api.Subresource{Name: "scale", Kind: "Scale", Group: "autoscaling", Verbs: subVerbs})
				r.Custom.Scale = &api.ScalePaths{SpecReplicas: sc.SpecReplicasPath, StatusReplicas: sc.StatusReplicasPath, LabelSelector: sc.LabelSelectorPath}
			}
		}
		out = append(out, r)
	}
	if stored := d.storageSchema(); stored != nil {
		for _, r := range out {
			if !d.isStorage(r.Version) {
				r.Custom.Stored = stored
			}
		}
	}
	return out
}

// isStorage says whether version is d's storage version.
func (d *Definition) isStorage(version string) bool {
	for _, v := range d.Spec.Versions {
		if v.Name == version {
			return v.Storage
		}
	}
	return false
}

// storageSchema is the schema of d's storage version, or nil.
func (d *Definition) storageSchema() *Schema {
	for _, v := range d.Spec.Versions {
		if v.Storage && v.Schema != nil {
			if s, err := ParseSchema(v.Schema.OpenAPIV3Schema); err == nil {
				return s
			}
		}
	}
	return nil
}

// selectableFields read the selectableFields of every version of d (versions
// convert with the None strategy: a path reads the same in each): the value
// at the path as kube's fmt.Sprint writes it, "" where there is none.
func (d *Definition) selectableFields() map[string]func(object.Object) string {
	fields := map[string]func(object.Object) string{}
	for _, v := range d.Spec.Versions {
		for _, f := range v.SelectableFields {
			path := strings.Split(strings.TrimPrefix(f.JSONPath, "."), ".")
			fields[strings.Join(path, ".")] = func(obj object.Object) string {
				switch v := object.Path(map[string]any(obj), path...).(type) {
				case nil:
					return ""
				case string:
					return v
				case json.Number:
					return v.String()
				default:
					return fmt.Sprint(v)
				}
			}
		}
	}
	return fields
}

// rulesOf are the x-kubernetes-validations rules of a version's schema s
// (m as written), keyed by the definition, the version and the schema's
// digest, so that the host compiles them once; nil when it has none.
func rulesOf(definition, version string, s *Schema, m map[string]any) *api.CustomRules {
	has := false
	s.walk(func(s *Schema) { has = has || len(s.Validations) > 0 })
	if !has {
		return nil
	}
	sum := sha256.Sum256(mustJSON(m))
	return &api.CustomRules{Key: definition + "/" + version + "/" + hex.EncodeToString(sum[:8]), Schema: m}
}

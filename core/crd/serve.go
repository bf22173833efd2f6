package crd

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
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
	var out []*api.Resource
	for _, v := range d.Spec.Versions {
		if !v.Served {
			continue
		}
		r := &api.Resource{
			Group: d.Spec.Group, Version: v.Name, Kind: names.Kind, Plural: names.Plural,
			Singular: names.Singular, ShortNames: names.ShortNames, Categories: names.Categories,
			Namespaced: d.Spec.Scope == "Namespaced", Verbs: customVerbs, Generation: true, UpdateNeedsVersion: true,
			Custom: &api.CustomResource{Definition: d.Metadata.Name, Schema: (*Schema)(nil)},
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
	return out
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

package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"kubeplay/core/api"
	"kubeplay/core/crd"
	"kubeplay/core/openapi"
	"kubeplay/core/xds/envoypb"
)

// xdsPath is the v3 document of the xDS group (core/api.XDS), which kube
// does not publish: kubeplay makes it from Envoy's message table
// (core/xds/envoypb) so that kubectl explain reads the Envoy resources as it
// reads a custom resource's schema.
var xdsPath = gvPath(api.GroupVersion{Group: api.XDSGroup, Version: "v1"})

// xdsDocument is that document: each kind as core/crd describes a custom
// resource, its spec the Envoy message it holds, and one component schema
// per Envoy message the kinds reach through their fields (an Any's contents
// are open: its "@type" says what it holds). kube's component schemas it
// references (ObjectMeta, ListMeta, Patch) come from kube's documents.
func xdsDocument(kube [][]byte) ([]byte, error) {
	components := map[string]any{}
	var resources []*api.Resource
	for _, r := range api.XDS(nil) {
		k := xdsKind(r.Kind)
		spec := map[string]any{"description": "The Envoy resource, in proto JSON.", "allOf": []any{ref(anyMessage)}}
		desc := "An Envoy resource of any type, served by kubeplay's discovery service: its spec an Any naming the type with \"@type\"."
		if k.TypeURL != "" {
			m := envoypb.ForTypeURL(k.TypeURL)
			if m == nil {
				return nil, fmt.Errorf("xds: %s: no message %s in envoypb's table", r.Kind, k.TypeURL)
			}
			spec["allOf"] = []any{ref(m.Name)}
			desc = fmt.Sprintf("Envoy's %s (%s), served by kubeplay's discovery service; its xDS name is its spec's, else the object's.", m.Name, k.TypeURL)
		}
		r.Custom = &api.CustomResource{OpenAPI: map[string]any{
			"type":        "object",
			"description": desc,
			"required":    []any{"spec"},
			"properties": map[string]any{
				"spec": spec,
				"ttl": map[string]any{"type": "string",
					"description": "The resource's TTL, a positive duration (\"30s\"): clients drop it when no heartbeat refreshes it."},
				"aliases": map[string]any{"type": "array", "items": map[string]any{"type": "string"},
					"description": "Other names the resource answers to in a subscription (VHDS's)."},
				"dynamicParameterConstraints": map[string]any{"allOf": []any{ref(constraints)},
					"description": "Which clients this variant of the name is for: matched against their dynamic parameters."},
			},
		}}
		resources = append(resources, r)
	}
	for _, root := range []string{"envoy.config.listener.v3.Listener", "envoy.config.route.v3.RouteConfiguration",
		"envoy.config.cluster.v3.Cluster", "envoy.config.endpoint.v3.ClusterLoadAssignment",
		"envoy.extensions.transport_sockets.tls.v3.Secret", constraints, anyMessage} {
		if err := addMessage(components, root); err != nil {
			return nil, err
		}
	}
	body, ok := crd.Document(api.GroupVersion{Group: api.XDSGroup, Version: "v1"}, resources)
	if !ok {
		return nil, fmt.Errorf("xds: core/crd made no document")
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, err
	}
	doc["info"] = map[string]any{"title": "kubeplay xDS resources", "version": "v1"}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for name, s := range components {
		schemas[name] = s
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return openapi.WithReferencedSchemas(body, openapi.ComponentSchemas(kube)), nil
}

// The messages the kinds refer to besides their resources.
const (
	constraints = "envoy.service.discovery.v3.DynamicParameterConstraints"
	anyMessage  = "google.protobuf.Any"
)

func xdsKind(kind string) api.XDSKind {
	for _, k := range api.XDSKinds {
		if k.Kind == kind {
			return k
		}
	}
	return api.XDSKind{}
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

// addMessage adds the component schema of the named message and of every
// message its fields reach.
func addMessage(components map[string]any, name string) error {
	if components[name] != nil {
		return nil
	}
	m := envoypb.Lookup(name)
	if m == nil {
		return fmt.Errorf("xds: no message %s in envoypb's table", name)
	}
	if s := wellKnownSchema(name); s != nil {
		components[name] = s
		return nil
	}
	props := map[string]any{}
	components[name] = map[string]any{"type": "object", "description": "Envoy's " + name + ", in proto JSON.", "properties": props}
	oneofs := map[int][]string{}
	for _, f := range m.Fields {
		if f.Oneof > 0 {
			oneofs[f.Oneof] = append(oneofs[f.Oneof], f.JSONName)
		}
	}
	for _, f := range m.Fields {
		s, err := fieldSchema(components, f)
		if err != nil {
			return err
		}
		desc := "Field " + f.Name + " (" + fmt.Sprint(f.Number) + ")."
		if others := oneofs[f.Oneof]; f.Oneof > 0 && len(others) > 1 {
			desc += " One of " + strings.Join(others, ", ") + ": set at most one."
		}
		s["description"] = desc
		props[f.JSONName] = s
	}
	return nil
}

// fieldSchema is a field's schema, repeated or a map as declared.
func fieldSchema(components map[string]any, f *envoypb.Field) (map[string]any, error) {
	if f.Map {
		value := f.Message.Field("value")
		s, err := valueSchema(components, value)
		return map[string]any{"type": "object", "additionalProperties": s}, err
	}
	s, err := valueSchema(components, f)
	if f.Repeated {
		return map[string]any{"type": "array", "items": s}, err
	}
	return s, err
}

// valueSchema is the schema of one value of a field.
func valueSchema(components map[string]any, f *envoypb.Field) (map[string]any, error) {
	switch f.Kind {
	case envoypb.MessageKind, envoypb.GroupKind:
		if s := wellKnownSchema(f.Message.Name); s != nil {
			return s, nil
		}
		if err := addMessage(components, f.Message.Name); err != nil {
			return nil, err
		}
		return map[string]any{"allOf": []any{ref(f.Message.Name)}}, nil
	case envoypb.EnumKind:
		names := make([]string, 0, len(f.Enum.Values))
		for n := range f.Enum.Values {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool {
			a, b := f.Enum.Values[names[i]], f.Enum.Values[names[j]]
			return a < b || a == b && names[i] < names[j]
		})
		values := make([]any, len(names))
		for i, n := range names {
			values[i] = n
		}
		return map[string]any{"type": "string", "enum": values}, nil
	}
	return scalarSchema(f.Kind), nil
}

// scalarSchema is a scalar kind's schema in proto JSON (which also reads
// 64-bit integers written as strings).
func scalarSchema(k envoypb.Kind) map[string]any {
	switch k {
	case envoypb.DoubleKind:
		return map[string]any{"type": "number", "format": "double"}
	case envoypb.FloatKind:
		return map[string]any{"type": "number", "format": "float"}
	case envoypb.Int32Kind, envoypb.Sint32Kind, envoypb.Sfixed32Kind:
		return map[string]any{"type": "integer", "format": "int32"}
	case envoypb.Uint32Kind, envoypb.Fixed32Kind, envoypb.Int64Kind, envoypb.Uint64Kind,
		envoypb.Fixed64Kind, envoypb.Sint64Kind, envoypb.Sfixed64Kind:
		return map[string]any{"type": "integer", "format": "int64"}
	case envoypb.BoolKind:
		return map[string]any{"type": "boolean"}
	case envoypb.BytesKind:
		return map[string]any{"type": "string", "format": "byte"}
	}
	return map[string]any{"type": "string"}
}

// wellKnownSchema is the schema of a protobuf well-known type in proto JSON,
// or nil for other messages.
func wellKnownSchema(name string) map[string]any {
	switch name {
	case anyMessage:
		return map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true,
			"description": "An Any: \"@type\" names the message (type.googleapis.com/NAME), the other fields are its own.",
			"properties":  map[string]any{"@type": map[string]any{"type": "string"}}}
	case "google.protobuf.Duration":
		return map[string]any{"type": "string", "description": "A duration: seconds with up to nine fractional digits and an s, \"1.5s\"."}
	case "google.protobuf.Timestamp":
		return map[string]any{"type": "string", "format": "date-time"}
	case "google.protobuf.FieldMask":
		return map[string]any{"type": "string", "description": "Field paths, comma-separated, in lowerCamelCase."}
	case "google.protobuf.Struct":
		return map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
	case "google.protobuf.Value":
		return map[string]any{"x-kubernetes-preserve-unknown-fields": true}
	case "google.protobuf.ListValue":
		return map[string]any{"type": "array", "items": map[string]any{"x-kubernetes-preserve-unknown-fields": true}}
	case "google.protobuf.Empty":
		return map[string]any{"type": "object"}
	case "google.protobuf.DoubleValue", "google.protobuf.FloatValue", "google.protobuf.Int64Value",
		"google.protobuf.UInt64Value", "google.protobuf.Int32Value", "google.protobuf.UInt32Value",
		"google.protobuf.BoolValue", "google.protobuf.StringValue", "google.protobuf.BytesValue":
		return scalarSchema(envoypb.Lookup(name).Field("value").Kind)
	}
	return nil
}

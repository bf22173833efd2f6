package xds

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"kubeplay/core/api"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/xds/envoypb"
)

// ResourceTypeURL is the type of a resource wrapped with its TTL, version and
// name (envoy.service.discovery.v3.Resource), as state-of-the-world
// responses carry resources that have a TTL or dynamic-parameter
// constraints.
const ResourceTypeURL = envoypb.TypePrefix + "envoy.service.discovery.v3.Resource"

// Resource is one object of the xDS group as the discovery service serves
// it: its Envoy resource and what the object says around it, encoded once
// per object version in every form a response takes.
type Resource struct {
	TypeURL string
	// Name is the xDS name: the Envoy resource's own name (Cluster.name,
	// ClusterLoadAssignment.cluster_name, ...), else the object's.
	Name        string
	Object      string // the API object's name
	Version     string // the object's resourceVersion
	Aliases     []string
	TTL         time.Duration
	Constraints *Constraints // nil: the variant every client matches

	json      map[string]any // the resource in proto JSON, with @type
	metadata  map[string]any // Resource.metadata in proto JSON
	any       []byte         // google.protobuf.Any of the resource
	delta     []byte         // envoy.service.discovery.v3.Resource
	heartbeat []byte         // the same without the resource: refreshes the TTL
}

// nameFields are the fields that name each type's resources.
var nameFields = map[string]string{
	"envoy.config.endpoint.v3.ClusterLoadAssignment": "cluster_name",
}

// objectFields are the top-level fields of an xDS object.
var objectFields = map[string]bool{"apiVersion": true, "kind": true, "metadata": true, "spec": true,
	"ttl": true, "aliases": true, "dynamicParameterConstraints": true}

// Validate checks an object of an xDS kind: its spec is a resource of the
// kind's Envoy type in proto JSON (a TypedResource's spec an Any naming a
// known type), its ttl a positive duration, its aliases names, its
// dynamicParameterConstraints Envoy's DynamicParameterConstraints. Every
// error names its field. It is the check api.XDS's kinds are served with.
func Validate(kind string, obj object.Object) field.ErrorList {
	for _, k := range api.XDSKinds {
		if k.Kind == kind {
			_, errs := NewResource(k, obj)
			return errs
		}
	}
	return field.ErrorList{field.NotSupported(field.NewPath("kind"), kind, nil)}
}

// NewResource is obj, an object of kind k, as the discovery service serves
// it; an object that does not validate gives errors instead.
func NewResource(k api.XDSKind, obj object.Object) (*Resource, field.ErrorList) {
	var errs field.ErrorList
	for key := range obj {
		if !objectFields[key] {
			errs = append(errs, field.Forbidden(field.NewPath(key), "unknown field of an xDS object (the Envoy resource is its spec)"))
		}
	}
	meta := object.Meta(obj)
	r := &Resource{TypeURL: k.TypeURL, Object: object.MetaString(obj, "name"), Version: object.MetaString(obj, "resourceVersion")}
	specPath := field.NewPath("spec")
	spec, ok := obj["spec"].(map[string]any)
	if !ok {
		return nil, append(errs, field.Required(specPath, "the Envoy resource, in proto JSON"))
	}
	var msg *envoypb.Message
	if k.TypeURL == "" { // TypedResource: an Any
		url, _ := spec["@type"].(string)
		if msg = envoypb.ForTypeURL(url); !resourceType(msg) {
			return nil, append(errs, field.NotFound(specPath.Child("@type"), url))
		}
		r.TypeURL = msg.TypeURL()
	} else {
		msg = envoypb.ForTypeURL(k.TypeURL)
	}
	skip := ""
	if k.TypeURL == "" {
		skip = "@type"
	}
	body, specErrs := msg.EncodeFields(nil, spec, specPath, skip)
	errs = append(errs, specErrs...)
	// The resource's name: its own, else the object's (written into it).
	nameField := msg.Field("name")
	if n, ok := nameFields[msg.Name]; ok {
		nameField = msg.Field(n)
	}
	r.json = make(map[string]any, len(spec)+1)
	for key, v := range spec {
		r.json[key] = v
	}
	r.json["@type"] = r.TypeURL
	if nameField != nil && nameField.Kind == envoypb.StringKind && !nameField.Repeated {
		name, _ := spec[nameField.Name].(string)
		if name == "" {
			name, _ = spec[nameField.JSONName].(string)
		}
		if name == "" {
			name = r.Object
			body = protowire.AppendTag(body, nameField.Number, protowire.BytesType)
			body = protowire.AppendString(body, name)
			r.json[nameField.JSONName] = name
		}
		r.Name = name
	} else {
		r.Name = r.Object
	}
	if len(specErrs) == 0 {
		// Envoy's own rules (protoc-gen-validate's), on the resource as served.
		errs = append(errs, msg.Validate(body, specPath)...)
	}
	if v, ok := obj["ttl"]; ok && v != nil {
		s, _ := v.(string)
		ttl, err := envoypb.ParseDuration(s)
		if err != nil || ttl <= 0 {
			errs = append(errs, field.Invalid(field.NewPath("ttl"), v, "must be a positive duration in seconds, e.g. \"30s\""))
		}
		r.TTL = ttl
	}
	if v, ok := obj["aliases"]; ok && v != nil {
		list, ok := v.([]any)
		if !ok {
			errs = append(errs, field.Invalid(field.NewPath("aliases"), v, "must be a list of names"))
		}
		for i, a := range list {
			s, _ := a.(string)
			if s == "" {
				errs = append(errs, field.Invalid(field.NewPath("aliases").Index(i), a, "must be a name"))
			}
			r.Aliases = append(r.Aliases, s)
		}
	}
	if v, ok := obj["dynamicParameterConstraints"]; ok && v != nil {
		c, cerrs := newConstraints(v, field.NewPath("dynamicParameterConstraints"))
		errs = append(errs, cerrs...)
		r.Constraints = c
	}
	if len(errs) > 0 {
		return nil, errs
	}
	r.metadata = map[string]any{"filterMetadata": map[string]any{api.XDSGroup: map[string]any{
		"object": r.Object, "uid": meta["uid"], "resourceVersion": r.Version, "generation": meta["generation"],
	}}}
	r.encode(body)
	return r, nil
}

// encode writes r's wire forms around body, the resource's encoding.
func (r *Resource) encode(body []byte) {
	r.any = appendString(nil, 1, r.TypeURL)
	r.any = protowire.AppendTag(r.any, 2, protowire.BytesType)
	r.any = protowire.AppendBytes(r.any, body)
	metadata, errs := envoypb.Lookup("envoy.config.core.v3.Metadata").Encode(nil, r.metadata, field.NewPath("metadata"))
	if len(errs) > 0 {
		panic(fmt.Sprintf("xds: resource metadata: %v", errs))
	}
	head := appendString(nil, 1, r.Version)
	var tail []byte
	if r.Constraints != nil {
		tail = protowire.AppendTag(tail, 8, protowire.BytesType)
		tail = protowire.AppendBytes(tail, appendResourceName(nil, r.Name, r.Constraints))
	} else {
		tail = appendString(tail, 3, r.Name)
	}
	for _, a := range r.Aliases {
		tail = appendString(tail, 4, a)
	}
	if r.TTL > 0 {
		tail = protowire.AppendTag(tail, 6, protowire.BytesType)
		tail = protowire.AppendBytes(tail, appendDuration(nil, r.TTL))
	}
	tail = protowire.AppendTag(tail, 9, protowire.BytesType)
	tail = protowire.AppendBytes(tail, metadata)
	r.heartbeat = append(append([]byte(nil), head...), tail...)
	r.delta = protowire.AppendTag(head, 2, protowire.BytesType)
	r.delta = protowire.AppendBytes(r.delta, r.any)
	r.delta = append(r.delta, tail...)
}

func appendDuration(b []byte, d time.Duration) []byte {
	if s := int64(d / time.Second); s != 0 {
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(s))
	}
	if n := int64(d % time.Second); n != 0 {
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(n))
	}
	return b
}

// wrapped: state-of-the-world responses carry r as a discovery Resource (so
// that its TTL or constraints reach the client).
func (r *Resource) wrapped() bool { return r.TTL > 0 || r.Constraints != nil }

// sotwAny is r as an item of a DiscoveryResponse's resources.
func (r *Resource) sotwAny(heartbeat bool) []byte {
	if !r.wrapped() && !heartbeat {
		return r.any
	}
	inner := r.delta
	if heartbeat {
		inner = r.heartbeat
	}
	b := appendString(nil, 1, ResourceTypeURL)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	return protowire.AppendBytes(b, inner)
}

// deltaJSON is r as a discovery Resource in proto JSON.
func (r *Resource) deltaJSON(heartbeat bool) map[string]any {
	out := map[string]any{"version": r.Version, "metadata": r.metadata}
	if r.Constraints != nil {
		out["resourceName"] = map[string]any{"name": r.Name, "dynamicParameterConstraints": r.Constraints.json}
	} else {
		out["name"] = r.Name
	}
	if len(r.Aliases) > 0 {
		out["aliases"] = r.Aliases
	}
	if r.TTL > 0 {
		out["ttl"] = formatDuration(r.TTL)
	}
	if !heartbeat {
		out["resource"] = r.json
	}
	return out
}

// sotwJSON is r as an item of a DiscoveryResponse's resources in proto JSON.
func (r *Resource) sotwJSON(heartbeat bool) map[string]any {
	if !r.wrapped() && !heartbeat {
		return r.json
	}
	out := r.deltaJSON(heartbeat)
	out["@type"] = ResourceTypeURL
	return out
}

// JSON is the Envoy resource in proto JSON, with its @type.
func (r *Resource) JSON() map[string]any { return r.json }

func formatDuration(d time.Duration) string {
	s := fmt.Sprintf("%.9f", d.Seconds())
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s + "s"
}

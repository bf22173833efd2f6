package api

import (
	"strings"

	"kubeplay/core/field"
	"kubeplay/core/object"
)

// XDSGroup is the API group of the Envoy resources that kubeplay's discovery
// service (core/xds) serves.
const XDSGroup = "xds.kubeplay.dev"

// XDSKind is one kind of the xDS group: an Envoy resource type, its object's
// spec the resource in proto JSON.
type XDSKind struct {
	Kind, Plural string
	// TypeURL is the resource type's; "" for TypedResource, whose spec is an
	// Any naming its type with "@type".
	TypeURL string
}

// XDSKinds are the xDS group's kinds: the resource types of LDS, RDS, CDS,
// EDS and SDS, and TypedResource for any other type.
var XDSKinds = []XDSKind{
	{"Listener", "listeners", "type.googleapis.com/envoy.config.listener.v3.Listener"},
	{"RouteConfiguration", "routeconfigurations", "type.googleapis.com/envoy.config.route.v3.RouteConfiguration"},
	{"Cluster", "clusters", "type.googleapis.com/envoy.config.cluster.v3.Cluster"},
	{"ClusterLoadAssignment", "clusterloadassignments", "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment"},
	{"Secret", "secrets", "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret"},
	{"TypedResource", "typedresources", ""},
}

// XDS returns the xDS group's resources, cluster-scoped, in the category
// "xds" (kubectl get xds); check validates their objects beyond metadata
// against Envoy's definitions (the host supplies it: core/xds natively, the
// xDS WebAssembly module in the browser).
func XDS(check func(kind string, obj object.Object) field.ErrorList) []*Resource {
	out := make([]*Resource, len(XDSKinds))
	for i, k := range XDSKinds {
		kind := k.Kind
		out[i] = &Resource{
			Group: XDSGroup, Version: "v1", Kind: kind, Plural: k.Plural, Singular: strings.ToLower(kind),
			Categories: []string{"xds"}, Verbs: AllVerbs, Generation: true,
			Hooks: Hooks{Validate: func(obj object.Object) field.ErrorList { return check(kind, obj) }},
		}
	}
	return out
}

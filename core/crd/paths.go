package crd

import (
	"slices"
	"strings"
	"unicode"

	"kubeplay/core/api"
)

// The paths kube's apiextensions builder publishes for a served version of
// a definition: the operations k8s.io/apiserver installs for its resource
// (list, create, deletecollection, read, replace, delete, patch, and read,
// replace and patch of its status and scale subresources), with the
// parameters of their options, in the form of each document.

// parameter is one of the query parameters of the operations: its type,
// kube's description, and the name the v2 document shares it under ("" when
// it writes it in place).
type parameter struct {
	typ, v2, description string
}

// parameters are kube's query parameters, by name (fieldManagerPatch is
// PATCH's fieldManager).
var parameters = map[string]parameter{
	"allowWatchBookmarks": {"boolean", "allowWatchBookmarks-HC2hJt-J", "allowWatchBookmarks requests watch events with type \"BOOKMARK\". Servers that do not implement bookmarks may ignore this flag and bookmarks are sent at the server's discretion. Clients should not assume bookmarks are returned at any specific interval, nor may they assume the server will send any BOOKMARK event during a session. If this is not a watch, this field is ignored."},
	"continue":            {"string", "continue-QfD61s0i", "The continue option should be set when retrieving more results from the server. Since this value is server defined, clients may only use the continue value from a previous query result with identical query parameters (except for the value of continue) and the server may reject a continue value it does not recognize. If the specified continue value is no longer valid whether due to expiration (generally five to fifteen minutes) or a configuration change on the server, the server will respond with a 410 ResourceExpired error together with a continue token. If the client needs a consistent list, it must restart their list without the continue field. Otherwise, the client may send another list request with the token received with the 410 error, the server will respond with a list starting from the next key, but from the latest snapshot, which is inconsistent from the previous list results - objects that are created, modified, or deleted after the first list request will be included in the response, as long as their keys are after the \"next key\".\n\nThis field is not supported when watch is true. Clients may start a watch from the last resourceVersion value returned by the server and not miss any modifications."},
	"dryRun":              {"string", "", "When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed"},
	"fieldManager":        {"string", "fieldManager-Qy4HdaTW", "fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint."},
	"fieldManagerPatch":   {"string", "fieldManager-7c6nTn1T", "fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint. This field is required for apply requests (application/apply-patch) but optional for non-apply patch types (JsonPatch, MergePatch, StrategicMergePatch)."},
	"fieldSelector":       {"string", "fieldSelector-xIcQKXFG", "A selector to restrict the list of returned objects by their fields. Defaults to everything."},
	"fieldValidation":     {"string", "", "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: This will ignore any unknown fields that are silently dropped from the object, and will ignore all but the last duplicate field that the decoder encounters. This is the default behavior prior to v1.23. - Warn: This will send a warning via the standard warning response header for each unknown field that is dropped from the object, and for each duplicate field that is encountered. The request will still succeed if there are no other errors, and will only persist the last of any duplicate fields. This is the default in v1.23+ - Strict: This will fail the request with a BadRequest error if any unknown fields would be dropped from the object, or if any duplicate fields are present. The error returned from the server will contain all unknown and duplicate fields encountered."},
	"force":               {"boolean", "force-tOGGb0Yi", "Force is going to \"force\" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests."},
	"gracePeriodSeconds":  {"integer", "gracePeriodSeconds--K5HaBOS", "The duration in seconds before the object should be deleted. Value must be non-negative integer. The value zero indicates delete immediately. If this value is nil, the default grace period for the specified type will be used. Defaults to a per object value if not specified. zero means delete immediately."},
	"ignoreStoreReadErrorWithClusterBreakingPotential": {"boolean", "ignoreStoreReadErrorWithClusterBreakingPotential-QbNkfIqj", "if set to true, it will trigger an unsafe deletion of the resource in case the normal deletion flow fails with a corrupt object error. A resource is considered corrupt if it can not be retrieved from the underlying storage successfully because of a) its data can not be transformed e.g. decryption failure, or b) it fails to decode into an object. NOTE: unsafe deletion ignores finalizer constraints, skips precondition checks, and removes the object from the storage. WARNING: This may potentially break the cluster if the workload associated with the resource being unsafe-deleted relies on normal deletion flow. Use only if you REALLY know what you are doing. The default value is false, and the user must opt in to enable it"},
	"labelSelector":        {"string", "labelSelector-5Zw57w4C", "A selector to restrict the list of returned objects by their labels. Defaults to everything."},
	"limit":                {"integer", "limit-1NfNmdNH", "limit is a maximum number of responses to return for a list call. If more items exist, the server will set the `continue` field on the list metadata to a value that can be used with the same initial query to retrieve the next set of results. Setting a limit may return fewer than the requested amount of items (up to zero items) in the event all requested objects are filtered out and clients should only use the presence of the continue field to determine whether more results are available. Servers may choose not to support the limit argument and will return all of the available results. If limit is specified and the continue field is empty, clients may assume that no more results are available. This field is not supported if watch is true.\n\nThe server guarantees that the objects returned when using continue will be identical to issuing a single list call without a limit - that is, no objects created, modified, or deleted after the first request is issued will be included in any subsequent continued requests. This is sometimes referred to as a consistent snapshot, and ensures that a client that is using limit to receive smaller chunks of a very large result can ensure they see all possible objects. If objects are updated during a chunked list the version of the object that was present at the time the first list result was calculated is returned."},
	"orphanDependents":     {"boolean", "orphanDependents-uRB25kX5", "Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7. Should the dependent objects be orphaned. If true/false, the \"orphan\" finalizer will be added to/removed from the object's finalizers list. Either this field or PropagationPolicy may be set, but not both."},
	"pretty":               {"string", "pretty-tJGM1-ng", "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget)."},
	"propagationPolicy":    {"string", "propagationPolicy-6jk3prlO", "Whether and how garbage collection will be performed. Either this field or OrphanDependents may be set, but not both. The default policy is decided by the existing finalizer set in the metadata.finalizers and the resource-specific default policy. Acceptable values are: 'Orphan' - orphan the dependents; 'Background' - allow the garbage collector to delete the dependents in the background; 'Foreground' - a cascading policy that deletes all dependents in the foreground."},
	"resourceVersion":      {"string", "resourceVersion-5WAnf1kx", "resourceVersion sets a constraint on what resource versions a request may be served from. See https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions for details.\n\nDefaults to unset"},
	"resourceVersionMatch": {"string", "resourceVersionMatch-t8XhRHeC", "resourceVersionMatch determines how resourceVersion is applied to list calls. It is highly recommended that resourceVersionMatch be set for list calls where resourceVersion is set See https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions for details.\n\nDefaults to unset"},
	"sendInitialEvents":    {"boolean", "sendInitialEvents-rLXlEK_k", "`sendInitialEvents=true` may be set together with `watch=true`. In that case, the watch stream will begin with synthetic events to produce the current state of objects in the collection. Once all such events have been sent, a synthetic \"Bookmark\" event  will be sent. The bookmark will report the ResourceVersion (RV) corresponding to the set of objects, and be marked with `\"k8s.io/initial-events-end\": \"true\"` annotation. Afterwards, the watch stream will proceed as usual, sending watch events corresponding to changes (subsequent to the RV) to objects watched.\n\nWhen `sendInitialEvents` option is set, we require `resourceVersionMatch` option to also be set. The semantic of the watch request is as following: - `resourceVersionMatch` = NotOlderThan\n  is interpreted as \"data at least as new as the provided `resourceVersion`\"\n  and the bookmark event is send when the state is synced\n  to a `resourceVersion` at least as fresh as the one provided by the ListOptions.\n  If `resourceVersion` is unset, this is interpreted as \"consistent read\" and the\n  bookmark event is send when the state is synced at least to the moment\n  when request started being processed.\n- `resourceVersionMatch` set to any other value or unset\n  Invalid error is returned.\n\nDefaults to true if `resourceVersion=\"\"` or `resourceVersion=\"0\"` (for backward compatibility reasons) and to false otherwise."},
	"timeoutSeconds":       {"integer", "timeoutSeconds-yvYezaOC", "Timeout for the list/watch call. This limits the duration of the call, regardless of any activity or inactivity."},
	"watch":                {"boolean", "watch-XNNPZGbK", "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications. Specify resourceVersion."},
}

// The options' parameters of each operation, by their action.
var (
	listParameters   = []string{"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch"}
	createParameters = []string{"dryRun", "fieldManager", "fieldValidation"}
	deleteParameters = []string{"dryRun", "gracePeriodSeconds", "ignoreStoreReadErrorWithClusterBreakingPotential", "orphanDependents", "propagationPolicy"}
	patchParameters  = []string{"dryRun", "fieldManagerPatch", "fieldValidation", "force"}
)

// What an operation reads and returns.
const (
	sampleKind   = iota // the kind
	sampleList          // its list
	sampleStatus        // meta/v1 Status
	sampleScale         // autoscaling/v1 Scale
	samplePatch         // meta/v1 Patch
	sampleDelete        // meta/v1 DeleteOptions
	sampleNone
)

// operation is one route kube's builder installs.
type operation struct {
	method, action, verb string // HTTP method, x-kubernetes-action, the verb of its id
	params               []string
	reads, returns       int
	also                 []string // response codes besides 200 (and 401)
}

var (
	listOp             = operation{"get", "list", "list", listParameters, sampleNone, sampleList, nil}
	createOp           = operation{"post", "post", "create", createParameters, sampleKind, sampleKind, []string{"201", "202"}}
	deleteCollectionOp = operation{"delete", "deletecollection", "deletecollection", listParameters, sampleNone, sampleStatus, nil}
	readOp             = operation{"get", "get", "read", []string{"resourceVersion"}, sampleNone, sampleKind, nil}
	replaceOp          = operation{"put", "put", "replace", createParameters, sampleKind, sampleKind, []string{"201"}}
	deleteOp           = operation{"delete", "delete", "delete", deleteParameters, sampleDelete, sampleStatus, []string{"202"}}
	patchOp            = operation{"patch", "patch", "patch", patchParameters, samplePatch, sampleKind, nil}
)

// responseText is the description of a response code.
var responseText = map[string]string{"200": "OK", "201": "Created", "202": "Accepted"}

// route is a path and its operations.
type route struct {
	path      string
	sub       string // the subresource, "" for none
	allSpaces bool   // the list across namespaces
	ops       []operation
}

// routes are r's paths, as kube's builder installs them.
func routes(r *api.Resource) []route {
	root := "/apis/" + r.Group + "/" + r.Version + "/" + r.Plural
	var out []route
	if r.Namespaced {
		out = append(out, route{path: root, allSpaces: true, ops: []operation{listOp}})
		root = "/apis/" + r.Group + "/" + r.Version + "/namespaces/{namespace}/" + r.Plural
	}
	out = append(out, route{path: root, ops: []operation{listOp, createOp, deleteCollectionOp}},
		route{path: root + "/{name}", ops: []operation{readOp, replaceOp, deleteOp, patchOp}})
	for _, sub := range []string{"status", "scale"} {
		if r.Sub(sub) != nil {
			out = append(out, route{path: root + "/{name}/" + sub, sub: sub, ops: []operation{readOp, replaceOp, patchOp}})
		}
	}
	return out
}

// operationID is k8s.io/apiserver's ToValidOperationID: letters, '_' and
// (but first) digits kept, the letter after anything else capitalized.
func operationID(s string, capitalize bool) string {
	var b strings.Builder
	for i, c := range s {
		if unicode.IsLetter(c) || c == '_' || i != 0 && unicode.IsDigit(c) {
			if capitalize {
				c = unicode.ToUpper(c)
				capitalize = false
			}
			b.WriteRune(c)
		} else {
			capitalize = true
		}
	}
	return b.String()
}

// article is what kube's descriptions put before a kind: "a" or "an", none
// before what looks like a plural.
func article(kind string) string {
	switch {
	case strings.HasSuffix(kind, "s") && !strings.HasSuffix(kind, "ss"):
		return " "
	case strings.ContainsRune("aeiouAEIOU", rune(kind[0])):
		return " an "
	}
	return " a "
}

// describe is an operation's description and id, as kube's builder and
// GetOperationIDAndTags make them.
func describe(r *api.Resource, rt route, op operation) (description, id string) {
	sub := ""
	if rt.sub != "" {
		sub = " " + rt.sub + " of"
	}
	switch op.verb {
	case "list":
		description = "list objects of kind " + r.Kind
	case "read", "replace":
		description = op.verb + sub + " the specified " + r.Kind
	case "patch":
		description = "partially update" + sub + " the specified " + r.Kind
	case "deletecollection":
		description = "delete collection of " + r.Kind
	default:
		description = op.verb + sub + article(r.Kind) + r.Kind
	}
	name := op.verb
	if r.Namespaced && !rt.allSpaces {
		name += "Namespaced"
	}
	name += r.Kind
	if rt.sub != "" {
		name += strings.ToUpper(rt.sub[:1]) + rt.sub[1:]
	}
	if rt.allSpaces {
		name += "ForAllNamespaces"
	}
	// The verb's shortest prefix among kube's verbs leads the id.
	prefix := op.verb
	if strings.HasPrefix(prefix, "delete") {
		prefix = "delete"
	}
	return description, prefix + operationID(r.Group, true) + operationID(r.Version, true) + operationID(name[len(prefix):], true)
}

// tag is the tag of r's operations.
func tag(r *api.Resource) string {
	return operationID(strings.TrimSuffix(r.Group, ".k8s.io"), false) + "_" + operationID(r.Version, false)
}

// sampleName is the schema a sample names.
func sampleName(r *api.Resource, sample int) string {
	switch sample {
	case sampleKind:
		return schemaName(r.Group, r.Version, r.Kind)
	case sampleList:
		return schemaName(r.Group, r.Version, r.ListKind())
	case sampleStatus:
		return "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
	case sampleScale:
		return "io.k8s.api.autoscaling.v1.Scale"
	case samplePatch:
		return "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
	}
	return "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
}

// routeParameters are the names of the parameters every operation of rt
// has (the path's, pretty), which kube writes once for the path, and each
// operation's own, all sorted.
func routeParameters(r *api.Resource, rt route) (common []string, own [][]string) {
	var all [][]string
	for _, op := range rt.ops {
		names := append([]string{"pretty"}, op.params...)
		if strings.Contains(rt.path, "{namespace}") {
			names = append(names, "namespace")
		}
		if strings.Contains(rt.path, "{name}") {
			names = append(names, "name")
		}
		slices.Sort(names)
		all = append(all, names)
	}
	for _, n := range all[0] {
		if !slices.ContainsFunc(all, func(names []string) bool { return !slices.Contains(names, n) }) {
			common = append(common, n)
		}
	}
	for _, names := range all {
		own = append(own, slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(common, n) }))
	}
	return common, own
}

// pathParameter is the path parameter name, or nil for a query parameter.
func pathParameter(r *api.Resource, name string) map[string]any {
	switch name {
	case "name":
		return map[string]any{"name": "name", "in": "path", "required": true, "description": "name of the " + r.Kind}
	case "namespace":
		return map[string]any{"name": "namespace", "in": "path", "required": true, "description": "object name and auth scope, such as for teams and projects"}
	}
	return nil
}

// parameterName is the name a parameter goes by in requests.
func parameterName(name string) string { return strings.TrimSuffix(name, "Patch") }

// v3Parameter is a parameter as the v3 document writes it.
func v3Parameter(r *api.Resource, name string) map[string]any {
	schema := map[string]any{"type": "string", "uniqueItems": true}
	if p := pathParameter(r, name); p != nil {
		p["schema"] = schema
		return p
	}
	p := parameters[name]
	schema["type"] = p.typ
	return map[string]any{"name": parameterName(name), "in": "query", "description": p.description, "schema": schema}
}

// v2Parameter is a parameter as the v2 document writes it: a reference to
// the document's shared parameter, or in place.
func v2Parameter(r *api.Resource, name string) map[string]any {
	if name == "namespace" {
		return map[string]any{"$ref": "#/parameters/namespace-vgWSWtn3"}
	}
	if p := pathParameter(r, name); p != nil {
		p["type"], p["uniqueItems"] = "string", true
		return p
	}
	p := parameters[name]
	if p.v2 != "" {
		return map[string]any{"$ref": "#/parameters/" + p.v2}
	}
	return map[string]any{"name": parameterName(name), "in": "query", "description": p.description, "type": p.typ, "uniqueItems": true}
}

// mediaTypes are what the operations read and write but PATCH's.
var mediaTypes = []any{"application/json", "application/yaml"}

// patchTypes are what PATCH reads, in the v2 document's order.
var patchTypes = []any{"application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"}

// gvkOf is the x-kubernetes-group-version-kind of an operation.
func gvkOf(r *api.Resource) map[string]any {
	return map[string]any{"group": r.Group, "version": r.Version, "kind": r.Kind}
}

// samples are what a route's operations read and return: a scale's, Scale.
func samples(rt route, op operation) (reads, returns int) {
	reads, returns = op.reads, op.returns
	if rt.sub == "scale" {
		if reads == sampleKind {
			reads = sampleScale
		}
		returns = sampleScale
	}
	return reads, returns
}

// pathsV3 are r's paths as the v3 document writes them.
func pathsV3(r *api.Resource) map[string]any {
	out := map[string]any{}
	for _, rt := range routes(r) {
		common, own := routeParameters(r, rt)
		item := map[string]any{}
		if len(common) > 0 {
			item["parameters"] = v3Parameters(r, common)
		}
		for i, op := range rt.ops {
			description, id := describe(r, rt, op)
			reads, returns := samples(rt, op)
			o := map[string]any{"tags": []any{tag(r)}, "description": description, "operationId": id,
				"x-kubernetes-action": op.action, "x-kubernetes-group-version-kind": gvkOf(r)}
			if len(own[i]) > 0 {
				o["parameters"] = v3Parameters(r, own[i])
			}
			if reads != sampleNone {
				types := mediaTypes
				if reads == samplePatch {
					types = patchTypes
				}
				body := map[string]any{"content": v3Content(types, sampleName(r, reads))}
				if reads != sampleDelete {
					body["required"] = true
				}
				o["requestBody"] = body
			}
			responses := map[string]any{"401": map[string]any{"description": "Unauthorized"}}
			for _, code := range append([]string{"200"}, op.also...) {
				responses[code] = map[string]any{"description": responseText[code], "content": v3Content(mediaTypes, sampleName(r, returns))}
			}
			o["responses"] = responses
			item[op.method] = o
		}
		out[rt.path] = item
	}
	return out
}

func v3Parameters(r *api.Resource, names []string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = v3Parameter(r, n)
	}
	return out
}

// v3Content is a request or response body of each media type, of the
// schema name.
func v3Content(types []any, name string) map[string]any {
	content := map[string]any{}
	for _, t := range types {
		content[t.(string)] = map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/" + name}}
	}
	return content
}

// pathsV2 are r's paths as the v2 document writes them.
func pathsV2(r *api.Resource) map[string]any {
	out := map[string]any{}
	for _, rt := range routes(r) {
		common, own := routeParameters(r, rt)
		item := map[string]any{}
		if len(common) > 0 {
			item["parameters"] = v2Parameters(r, common)
		}
		for i, op := range rt.ops {
			description, id := describe(r, rt, op)
			reads, returns := samples(rt, op)
			consumes := mediaTypes
			if op.method == "patch" {
				consumes = patchTypes
			}
			o := map[string]any{"description": description, "consumes": consumes, "produces": mediaTypes, "schemes": []any{"https"},
				"tags": []any{tag(r)}, "operationId": id, "x-kubernetes-action": op.action, "x-kubernetes-group-version-kind": gvkOf(r)}
			params := v2Parameters(r, own[i])
			switch reads {
			case sampleNone:
			case samplePatch:
				params = append([]any{map[string]any{"$ref": "#/parameters/body-78PwaGsr"}}, params...)
			case sampleDelete:
				params = append([]any{map[string]any{"$ref": "#/parameters/body-2Y1dVQaQ"}}, params...)
			default:
				params = append([]any{map[string]any{"name": "body", "in": "body", "required": true,
					"schema": map[string]any{"$ref": "#/definitions/" + sampleName(r, reads)}}}, params...)
			}
			if len(params) > 0 {
				o["parameters"] = params
			}
			responses := map[string]any{"401": map[string]any{"description": "Unauthorized"}}
			for _, code := range append([]string{"200"}, op.also...) {
				responses[code] = map[string]any{"description": responseText[code], "schema": map[string]any{"$ref": "#/definitions/" + sampleName(r, returns)}}
			}
			o["responses"] = responses
			item[op.method] = o
		}
		out[rt.path] = item
	}
	return out
}

func v2Parameters(r *api.Resource, names []string) []any {
	out := make([]any, 0, len(names))
	for _, n := range names {
		out = append(out, v2Parameter(r, n))
	}
	return out
}

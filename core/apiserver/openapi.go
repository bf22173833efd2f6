package apiserver

import (
	"crypto/sha512"
	"encoding/hex"
	"strings"

	"kubeplay/core/apierrors"
	"kubeplay/core/schema"
	"kubeplay/core/web"
)

// OpenAPI v3, as far as the registry knows it: one document per group version
// listing every path, operation and the query parameters it takes, with the
// x-kubernetes-action and x-kubernetes-group-version-kind extensions clients
// read (kubectl checks a PATCH operation's fieldValidation parameter to decide
// on server-side validation). Schemas are open objects until kinds carry theirs.

// gvPath is the OpenAPI v3 name of a group version: "api/v1" or "apis/G/V".
func gvPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}

func (s *Server) serveOpenAPI(w web.ResponseWriter, r *web.Request) {
	p := strings.Trim(r.URL.Path, "/")
	if r.Method != web.MethodGet && r.Method != web.MethodHead {
		w.Header().Set("Allow", "GET")
		writeStatus(w, apierrors.NewMethodNotAllowed())
		return
	}
	specs := s.openAPISpecs()
	if p == "openapi/v3" {
		writeBody(w, web.StatusOK, "application/json", specs.index)
		return
	}
	if doc, ok := specs.docs[strings.TrimPrefix(p, "openapi/v3/")]; ok {
		if r.URL.Query().Get("hash") != "" {
			w.Header().Set("Cache-Control", "public, immutable")
		}
		writeBody(w, web.StatusOK, "application/json", doc)
		return
	}
	writeStatus(w, apierrors.NewPathNotFound())
}

// openAPISpecs are the encoded index and documents, built once per generation of
// the registry: kubectl reads them before every create, and they change only
// with the served resources.
type openAPISpecs struct {
	generation uint64
	index      []byte
	docs       map[string][]byte // by group-version path, e.g. "apis/apps/v1"
}

func (s *Server) openAPISpecs() *openAPISpecs {
	s.openAPIMu.Lock()
	defer s.openAPIMu.Unlock()
	if gen := s.registry.Generation(); s.openAPI == nil || s.openAPI.generation != gen {
		specs := &openAPISpecs{generation: gen, docs: map[string][]byte{}}
		paths := map[string]any{}
		for _, gv := range s.registry.GroupVersions() {
			doc, _ := jsonMarshal(s.openAPIDocument(gv))
			sum := sha512.Sum512(doc)
			specs.docs[gvPath(gv)] = doc
			paths[gvPath(gv)] = map[string]string{
				"serverRelativeURL": "/openapi/v3/" + gvPath(gv) + "?hash=" + strings.ToUpper(hex.EncodeToString(sum[:])),
			}
		}
		specs.index, _ = jsonMarshal(map[string]any{"paths": paths})
		s.openAPI = specs
	}
	return s.openAPI
}

func queryParam(name, desc string) map[string]any {
	return map[string]any{"name": name, "in": "query", "description": desc, "schema": map[string]any{"type": "string", "uniqueItems": true}}
}

var (
	paramPretty          = queryParam("pretty", "If 'true', then the output is pretty printed.")
	paramDryRun          = queryParam("dryRun", "When present, indicates that modifications should not be persisted.")
	paramFieldManager    = queryParam("fieldManager", "fieldManager is a name associated with the actor or entity that is making these changes.")
	paramFieldValidation = queryParam("fieldValidation", "fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Valid values are Ignore, Warn and Strict.")
	listParams           = []any{
		queryParam("allowWatchBookmarks", "allowWatchBookmarks requests watch events with type \"BOOKMARK\"."),
		queryParam("continue", "The continue option should be set when retrieving more results from the server."),
		queryParam("fieldSelector", "A selector to restrict the list of returned objects by their fields."),
		queryParam("labelSelector", "A selector to restrict the list of returned objects by their labels."),
		queryParam("limit", "limit is a maximum number of responses to return for a list call."),
		queryParam("resourceVersion", "resourceVersion sets a constraint on what resource versions a request may be served from."),
		queryParam("resourceVersionMatch", "resourceVersionMatch determines how resourceVersion is applied to list calls."),
		queryParam("sendInitialEvents", "sendInitialEvents=true may be set together with watch=true."),
		queryParam("timeoutSeconds", "Timeout for the list/watch call."),
		queryParam("watch", "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications."),
	}
)

func (s *Server) openAPIDocument(gv schema.GroupVersion) map[string]any {
	paths := map[string]any{}
	schemas := map[string]any{}
	prefix := "/" + gvPath(gv)
	for _, res := range s.registry.Resources(gv) {
		gvk := map[string]string{"group": res.Group, "version": res.Version, "kind": res.Kind}
		ref := map[string]any{"$ref": "#/components/schemas/" + definitionName(res, res.Kind)}
		listRef := map[string]any{"$ref": "#/components/schemas/" + definitionName(res, res.ListKind())}
		schemas[definitionName(res, res.Kind)] = map[string]any{
			"type": "object", "x-kubernetes-group-version-kind": []any{gvk},
			"properties": map[string]any{
				"apiVersion": map[string]any{"type": "string"}, "kind": map[string]any{"type": "string"},
				"metadata": map[string]any{"type": "object"},
			},
		}
		schemas[definitionName(res, res.ListKind())] = map[string]any{
			"type": "object", "required": []string{"items"},
			"x-kubernetes-group-version-kind": []any{map[string]string{"group": res.Group, "version": res.Version, "kind": res.ListKind()}},
			"properties":                      map[string]any{"items": map[string]any{"type": "array", "items": ref}},
		}
		op := func(action, id string, body bool, params ...any) map[string]any {
			resp := ref
			if action == "list" {
				resp = listRef
			}
			o := map[string]any{
				"operationId": id, "x-kubernetes-action": action, "x-kubernetes-group-version-kind": gvk,
				"responses": map[string]any{"200": map[string]any{"description": "OK",
					"content": map[string]any{"application/json": map[string]any{"schema": resp}}}},
				"parameters": append([]any{paramPretty}, params...),
			}
			if body {
				o["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": ref}}}
			}
			return o
		}
		writeParams := []any{paramDryRun, paramFieldManager, paramFieldValidation}
		collection, item := prefix+"/"+res.Plural, prefix+"/"+res.Plural+"/{name}"
		if res.Namespaced {
			collection = prefix + "/namespaces/{namespace}/" + res.Plural
			item = collection + "/{name}"
			paths[prefix+"/"+res.Plural] = map[string]any{"get": op("list", "list"+res.Kind+"ForAllNamespaces", false, listParams...)}
		}
		coll := map[string]any{}
		if res.HasVerb("list") {
			coll["get"] = op("list", "list"+res.Kind, false, listParams...)
		}
		if res.HasVerb("create") {
			coll["post"] = op("post", "create"+res.Kind, true, writeParams...)
		}
		if res.HasVerb("deletecollection") {
			coll["delete"] = op("deletecollection", "deleteCollection"+res.Kind, false, listParams...)
		}
		paths[collection] = coll
		one := map[string]any{}
		if res.HasVerb("get") {
			one["get"] = op("get", "read"+res.Kind, false)
		}
		if res.HasVerb("update") {
			one["put"] = op("put", "replace"+res.Kind, true, writeParams...)
		}
		if res.HasVerb("patch") {
			one["patch"] = op("patch", "patch"+res.Kind, true, append(writeParams, queryParam("force", "Force is going to \"force\" Apply requests."))...)
		}
		if res.HasVerb("delete") {
			one["delete"] = op("delete", "delete"+res.Kind, false, paramDryRun)
		}
		paths[item] = one
	}
	return map[string]any{
		"openapi":    "3.0.0",
		"info":       map[string]any{"title": "Kubernetes", "version": KubernetesVersion},
		"paths":      paths,
		"components": map[string]any{"schemas": schemas},
	}
}

// definitionName is kube's OpenAPI definition name, e.g. io.k8s.api.apps.v1.Deployment.
func definitionName(res *schema.Resource, kind string) string {
	group := res.Group
	if group == "" {
		group = "core"
	}
	group = strings.TrimSuffix(group, ".k8s.io")
	return "io.k8s.api." + group + "." + res.Version + "." + kind
}

package kubectl

// This file owns kubectl's reads of the server's OpenAPI v3 documents: the
// index (/openapi/v3) once per command line, then a group version's
// document at the address the index gives (with its hash), once per
// session: immutable, kubectl's HTTP cache keeps it on disk. Every command that sends objects reads them
// first, as kubectl's validation asks whether the server checks fields
// itself (fieldValidation=Strict); apply reads patch strategies from them.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// openAPICache is one command line's OpenAPI v3 documents.
type openAPICache struct {
	index map[string]string // "apis/apps/v1" → its serverRelativeURL; nil until read
	docs  map[string]map[string]any
	// What kubectl's validation reads when a kind is not in its group
	// version's document: the OpenAPI v2 document and the
	// CustomResourceDefinitions, each once.
	v2, crds bool
}

// openAPI is the command line's cache of OpenAPI documents.
func (c *Cmd) openAPI() *openAPICache {
	if c.openapi == nil {
		c.openapi = &openAPICache{docs: map[string]map[string]any{}}
	}
	return c.openapi
}

// openAPIPath is a group version's key in the OpenAPI v3 index.
func openAPIPath(apiVersion string) string {
	if strings.Contains(apiVersion, "/") {
		return "apis/" + apiVersion
	}
	return "api/" + apiVersion
}

// openAPIDocument fetches the document of apiVersion's group version (the
// index first, once), and returns its bytes, or nil if the server has none.
func (c *Cmd) openAPIDocument(apiVersion string) ([]byte, error) {
	cache := c.openAPI()
	if cache.index == nil {
		data, err := c.Do(&Request{Method: "GET", Path: "/openapi/v3", Query: url.Values{"timeout": {discoveryTimeout}},
			Header: [][2]string{{"Accept", acceptTypedAny}}})
		if err != nil {
			return nil, err
		}
		var index struct {
			Paths map[string]struct {
				ServerRelativeURL string `json:"serverRelativeURL"`
			} `json:"paths"`
		}
		if err := json.Unmarshal(data, &index); err != nil {
			return nil, err
		}
		cache.index = map[string]string{}
		for p, v := range index.Paths {
			c.openapi.index[p] = v.ServerRelativeURL
		}
	}
	rel, ok := c.openapi.index[openAPIPath(apiVersion)]
	if !ok {
		return nil, nil
	}
	if data, ok := c.session.openAPI[rel]; ok {
		return data, nil
	}
	u, err := url.Parse(rel)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set("timeout", discoveryTimeout)
	data, err := c.Do(&Request{Method: "GET", Path: u.Path, Query: q, Header: [][2]string{{"Accept", "application/json"}}})
	if err != nil {
		return nil, err
	}
	if c.session.openAPI == nil {
		c.session.openAPI = map[string][]byte{}
	}
	c.session.openAPI[rel] = data
	return data, nil
}

// patchSchemaFor is the schema apply's strategic merge patch reads for a
// resource's kind, and whether the server takes a strategic merge patch of
// it (kubectl's gvkSupportsPatchOpenAPIV3): a custom resource's does not.
func (c *Cmd) patchSchemaFor(r Resource) (patchSchema, bool, error) {
	data, err := c.openAPIDocument(r.GroupVersion())
	if err != nil || data == nil {
		return patchSchema{}, false, err
	}
	doc, ok := c.openapi.docs[r.GroupVersion()]
	if !ok {
		if err := json.Unmarshal(data, &doc); err != nil {
			return patchSchema{}, false, fmt.Errorf("parsing OpenAPI v3 document of %s: %v", r.GroupVersion(), err)
		}
		c.openapi.docs[r.GroupVersion()] = doc
	}
	if !takesStrategicPatch(doc, r) {
		return patchSchema{}, false, nil
	}
	s, ok := schemaForKind(doc, r.Group, r.Version, r.Kind)
	return s, ok, nil
}

// takesStrategicPatch says whether a PATCH path of the kind accepts
// application/strategic-merge-patch+json.
func takesStrategicPatch(doc map[string]any, r Resource) bool {
	paths, _ := doc["paths"].(map[string]any)
	for _, p := range paths {
		op, _ := p.(map[string]any)["patch"].(map[string]any)
		gvk, _ := op["x-kubernetes-group-version-kind"].(map[string]any)
		if op == nil || gvk["group"] != r.Group || gvk["version"] != r.Version || gvk["kind"] != r.Kind {
			continue
		}
		body, _ := op["requestBody"].(map[string]any)
		content, _ := body["content"].(map[string]any)
		_, ok := content["application/strategic-merge-patch+json"]
		return ok
	}
	return false
}

// validateKind is kubectl's check that the server validates a kind's
// fields itself (its fieldValidation verifier): the kind's PATCH in its
// group version's OpenAPI v3 document. For a kind that is not there it
// reads, as kubectl does before validating on the client with the OpenAPI
// v2 document (which knows no more of it), the v2 document and the
// CustomResourceDefinitions: the CRDs first when the group version itself
// is unknown.
func (c *Cmd) validateKind(apiVersion, kind string) error {
	doc, err := c.openAPIDocument(apiVersion)
	if err != nil {
		return err
	}
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "", apiVersion
	}
	needle := fmt.Sprintf(`{"group":%q,"kind":%q,"version":%q}`, group, kind, version)
	if doc != nil && bytes.Contains(doc, []byte(needle)) {
		return nil
	}
	steps := []func() error{c.readOpenAPIV2, c.listCRDs}
	if doc == nil {
		steps[0], steps[1] = steps[1], steps[0]
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

func (c *Cmd) readOpenAPIV2() error {
	if c.openAPI().v2 {
		return nil
	}
	c.openapi.v2 = true
	_, err := c.Do(&Request{Method: "GET", Path: "/openapi/v2", Query: url.Values{"timeout": {discoveryTimeout}},
		Header: [][2]string{{"Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"}}})
	return err
}

func (c *Cmd) listCRDs() error {
	if c.openAPI().crds {
		return nil
	}
	c.openapi.crds = true
	_, err := c.Do(&Request{Method: "GET", Path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
		Header: [][2]string{{"Accept", "application/json"}}})
	return err
}

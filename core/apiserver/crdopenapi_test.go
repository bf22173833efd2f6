package apiserver

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"kubeplay/internal/refapi"
)

// crdOpenAPIKubeFile holds what kube-apiserver 1.32.13 publishes of
// crdOpenAPIDefinitions' versions: the definitions and paths /openapi/v2
// gains, by name, and the documents /openapi/v3/apis/GROUP/VERSION.
const crdOpenAPIKubeFile = "testdata/crd-openapi-kube-1.32.13.json"

const publishedVersion = `{"name":"VERSION","served":true,"storage":STORAGE,SELECT"schema":{"openAPIV3Schema":SCHEMA}}`

// publishedSubresources are v1 of Foo's subresources.
const publishedSubresources = `"subresources":{"status":{},"scale":{"specReplicasPath":".spec.size","statusReplicasPath":".status.size"}},`

// publishedCRD is a definition of kind in publish.example.com, one version
// per schema (the first stored; v1 of Foo selects by spec.color and has
// status and scale subresources).
func publishedCRD(plural, kind, scope string, schemas ...string) string {
	var versions []string
	for i, schema := range schemas {
		name, storage, sel := []string{"v1", "v2", "v3"}[i], "false", ""
		if i == 0 {
			storage = "true"
		}
		if i == 0 && kind == "Foo" {
			sel = `"selectableFields":[{"jsonPath":".spec.color"}],` + publishedSubresources
		}
		versions = append(versions, strings.NewReplacer("VERSION", name, "STORAGE", storage, "SELECT", sel, "SCHEMA", schema).Replace(publishedVersion))
	}
	return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"` + plural + `.publish.example.com"},` +
		`"spec":{"group":"publish.example.com","scope":"` + scope + `","names":{"plural":"` + plural + `","kind":"` + kind + `"},"versions":[` + strings.Join(versions, ",") + `]}}`
}

// crdOpenAPIDefinitions exercise what kube's builder does to a schema:
// descriptions, enums, patterns, required, defaults (kept in v3, pruned in
// v2), nullable, int-or-string, preserved unknown fields nested and at the
// root, embedded resources, additionalProperties, list and map types.
var crdOpenAPIDefinitions = []string{
	publishedCRD("foos", "Foo", "Namespaced",
		`{"description":"Foo CRD for Testing","type":"object","properties":{"spec":{"type":"object","description":"Specification of Foo","required":["color","size"],"properties":{`+
			`"color":{"type":"string","default":"blue","enum":["blue","red"]},"size":{"type":"integer","nullable":true,"minimum":1,"format":"int32"},`+
			`"port":{"x-kubernetes-int-or-string":true},"name":{"type":"string","pattern":"^a","maxLength":8,"example":"abc"},`+
			`"bars":{"description":"List of Bars.","type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}},`+
			`"labels":{"type":"object","x-kubernetes-map-type":"granular","additionalProperties":{"type":"string"}},`+
			`"free":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"x":{"type":"string"}}},`+
			`"list":{"type":"array","x-kubernetes-preserve-unknown-fields":true,"items":{"type":"string"}},`+
			`"emb":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"string"}}},`+
			`"embFree":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},`+
			`"anything":{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}],"properties":{"a":{"type":"string"},"b":{"type":"string"}}}}},`+
			`"status":{"type":"object","properties":{"ok":{"type":"boolean"},"size":{"type":"integer"}}}}}`,
		`{"type":"object","x-kubernetes-preserve-unknown-fields":true,"description":"Anything goes","properties":{"spec":{"type":"object"}}}`),
	publishedCRD("bazs", "Baz", "Cluster", `{"type":"object","x-kubernetes-preserve-unknown-fields":true}`),
}

// publishedNames are the names the definitions publish.
var publishedNames = []string{"com.example.publish.v1.Foo", "com.example.publish.v1.FooList", "com.example.publish.v2.Foo",
	"com.example.publish.v2.FooList", "com.example.publish.v1.Baz", "com.example.publish.v1.BazList"}

// publishedSchemas reads what /openapi/v2 and /openapi/v3 publish of
// crdOpenAPIDefinitions, once all publishedNames are (false before).
func publishedSchemas(get func(path string) (int, []byte)) (map[string]json.RawMessage, bool) {
	out := map[string]json.RawMessage{}
	var v2 struct{ Paths, Definitions map[string]json.RawMessage }
	if _, body := get("/openapi/v2"); json.Unmarshal(body, &v2) != nil {
		return nil, false
	}
	for _, n := range publishedNames {
		d, ok := v2.Definitions[n]
		if !ok {
			return nil, false
		}
		out["v2 "+n] = d
	}
	for p, item := range v2.Paths {
		if strings.HasPrefix(p, "/apis/publish.example.com/") {
			out["v2 "+p] = item
		}
	}
	for _, v := range []string{"v1", "v2"} {
		code, body := get("/openapi/v3/apis/publish.example.com/" + v)
		if code != 200 {
			return nil, false
		}
		out["v3 apis/publish.example.com/"+v] = body
	}
	return out, true
}

// TestRecordCRDOpenAPIKube writes crdOpenAPIKubeFile from a kube-apiserver:
//
//	KUBEPLAY_REFAPI=https://127.0.0.1:7543 go test -run TestRecordCRDOpenAPIKube ./core/apiserver
func TestRecordCRDOpenAPIKube(t *testing.T) {
	kube := refapi.Connect(t)
	get := func(path string) (int, []byte) {
		resp, body := kube.Do("GET", path, nil, nil)
		return resp.StatusCode, body
	}
	for _, d := range crdOpenAPIDefinitions {
		askKube(t, kube, kpost(gizmoCRDs, d), nil)
	}
	var got map[string]json.RawMessage
	waitReady(t, get, "/openapi/v2", func(int, []byte) bool {
		var ok bool
		got, ok = publishedSchemas(get)
		return ok
	})
	b, err := json.MarshalIndent(map[string]any{"comment": "What kube-apiserver v1.32.13 (the refapi kit) publishes in /openapi/v2 and /openapi/v3 of crdOpenAPIDefinitions in crdopenapi_test.go; recorded by " + t.Name() + ".", "schemas": got}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(crdOpenAPIKubeFile, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestK8S_URI_4_CustomResourceOpenAPIAsKube: each served version of a
// definition is published in /openapi/v2 and /openapi/v3 as kube-apiserver
// 1.32.13 publishes it (its structural schema, apiVersion, kind and metadata,
// its group-version-kind and selectable fields, its list kind; v2 in the form
// kubectl's v2 readers take, without defaults); a version no longer served
// leaves both, and the documents' ETags change with them.
func TestK8S_URI_4_CustomResourceOpenAPIAsKube(t *testing.T) {
	s := newTestServer(t, testConfig{})
	get := func(path string) (int, []byte) {
		r := s.do("GET", path, nil)
		return r.Code, r.Body
	}
	before := s.do("GET", "/openapi/v2", nil).must(t, 200).Header.Get("Etag")
	for _, d := range crdOpenAPIDefinitions {
		s.do("POST", gizmoCRDs, d).must(t, 201)
	}
	var got map[string]json.RawMessage
	waitReady(t, get, "/openapi/v2", func(int, []byte) bool {
		var ok bool
		got, ok = publishedSchemas(get)
		return ok
	})
	var kube struct{ Schemas map[string]json.RawMessage }
	if err := json.Unmarshal([]byte(readTestdata(t, strings.TrimPrefix(crdOpenAPIKubeFile, "testdata/"))), &kube); err != nil {
		t.Fatal(err)
	}
	for name, want := range kube.Schemas {
		var g, k any
		_ = json.Unmarshal(got[name], &g)
		_ = json.Unmarshal(want, &k)
		if !reflect.DeepEqual(g, k) {
			t.Errorf("%s differs from kube at %v\n got %s\nkube %s", name, jsonDiff("", g, k), got[name], want)
		}
	}
	v2 := s.do("GET", "/openapi/v2", nil).must(t, 200)
	if v2.Header.Get("Etag") == before {
		t.Error("the v2 document's ETag did not change")
	}
	s.do("GET", "/openapi/v2", nil, "If-None-Match", v2.Header.Get("Etag")).must(t, 304)

	v1URL := v3IndexURL(t, s, "apis/publish.example.com/v1")
	if v3IndexURL(t, s, "apis/publish.example.com/v2") == "" {
		t.Fatal("the /openapi/v3 index does not list apis/publish.example.com/v2")
	}

	// v2 of foos is no longer served: it leaves both documents.
	foo := strings.Replace(crdOpenAPIDefinitions[0], `"name":"v2","served":true`, `"name":"v2","served":false`, 1)
	s.do("PATCH", gizmoCRDs+"/foos.publish.example.com", foo, "Content-Type", "application/merge-patch+json").must(t, 200)
	waitReady(t, get, "/openapi/v2", func(_ int, body []byte) bool { return !strings.Contains(string(body), `"com.example.publish.v2.Foo"`) })
	if code, _ := get("/openapi/v3/apis/publish.example.com/v2"); code != 404 {
		t.Errorf("/openapi/v3/apis/publish.example.com/v2: %d", code)
	}
	if v3IndexURL(t, s, "apis/publish.example.com/v2") != "" {
		t.Error("the /openapi/v3 index still lists apis/publish.example.com/v2")
	}
	if _, body := get("/openapi/v2"); !strings.Contains(string(body), `"com.example.publish.v1.Foo"`) {
		t.Error("v1 of foos left the v2 document")
	}

	// v1 of foos changes: its document's hash in the index changes, and the
	// old hash's URL redirects to the new one (the client follows it).
	foo = strings.Replace(foo, "Foo CRD for Testing", "Foo CRD, described anew", 1)
	s.do("PATCH", gizmoCRDs+"/foos.publish.example.com", foo, "Content-Type", "application/merge-patch+json").must(t, 200)
	waitReady(t, get, "/openapi/v3/apis/publish.example.com/v1", func(_ int, body []byte) bool { return strings.Contains(string(body), "described anew") })
	newURL := v3IndexURL(t, s, "apis/publish.example.com/v1")
	if newURL == v1URL {
		t.Errorf("the index's URL of apis/publish.example.com/v1 did not change: %s", newURL)
	}
	if r := s.do("GET", v1URL, nil); r.Code != 200 || !strings.Contains(string(r.Body), "described anew") {
		t.Errorf("GET %s: %d %.200s", v1URL, r.Code, r.Body)
	}
}

// v3IndexURL is the URL the /openapi/v3 index gives the document at path,
// "" when it lists none.
func v3IndexURL(t *testing.T, s *testServer, path string) string {
	t.Helper()
	var index struct {
		Paths map[string]struct {
			URL string `json:"serverRelativeURL"`
		}
	}
	if err := json.Unmarshal(s.do("GET", "/openapi/v3", nil).must(t, 200).Body, &index); err != nil {
		t.Fatal(err)
	}
	return index.Paths[path].URL
}

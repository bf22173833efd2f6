package openapi_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"kubeplay/internal/refapi"
)

// Kube's answers to OpenAPI requests and the documents' contents, recorded from
// kube-apiserver 1.32.13 (the refapi kit) by TestRecordKubeOpenAPI and replayed
// against kubeplay by the tests of openapi_test.go.

const (
	httpCasesFile = "testdata/openapi-http-kube-1.32.13.json"
	digestsFile   = "testdata/openapi-digests-kube-1.32.13.json"
)

// httpCase is one request and kube's answer, its variable parts normalized:
// in the request, HASH and ETAG stand for the document's current hash; in the
// answer, ETAG for its ETag, HASH for its hash, DATE for a date and N for a
// length that is not 0.
type httpCase struct {
	Name    string            `json:"name"`
	Method  string            `json:"method"`
	Path    string            `json:"path"` // under the server, with HASH
	Header  map[string]string `json:"header,omitempty"`
	Status  int               `json:"status"`
	Answer  map[string]string `json:"answer"` // headers, multiple values joined by ", "
	Body    string            `json:"body"`   // see bodyKind
	Differs string            `json:"differs,omitempty"`
}

type httpCases struct {
	Comment string     `json:"comment"`
	Cases   []httpCase `json:"cases"`
}

// kubeRequests are the requests recorded: what kubectl sends, the caching and
// negotiation answers, and the paths kube answers with bare 404s.
var kubeRequests = []httpCase{
	{Name: "index", Method: "GET", Path: "/openapi/v3", Header: map[string]string{"Accept": "application/json, */*"}},
	{Name: "index POST", Method: "POST", Path: "/openapi/v3"},
	{Name: "document as kubectl asks", Method: "GET", Path: "/openapi/v3/api/v1?hash=HASH", Header: map[string]string{"Accept": "application/json"}},
	{Name: "document without hash", Method: "GET", Path: "/openapi/v3/apis/apps/v1"},
	{Name: "document with empty hash", Method: "GET", Path: "/openapi/v3/apis/apps/v1?hash="},
	{Name: "document with stale hash", Method: "GET", Path: "/openapi/v3/apis/apps/v1?hash=0123ABC"},
	{Name: "document HEAD", Method: "HEAD", Path: "/openapi/v3/apis/coordination.k8s.io/v1?hash=HASH"},
	{Name: "document POST", Method: "POST", Path: "/openapi/v3/apis/coordination.k8s.io/v1?hash=HASH"},
	{Name: "document If-None-Match", Method: "GET", Path: "/openapi/v3/apis/coordination.k8s.io/v1?hash=HASH", Header: map[string]string{"If-None-Match": `"ETAG"`}},
	{Name: "document If-None-Match without hash", Method: "GET", Path: "/openapi/v3/apis/coordination.k8s.io/v1", Header: map[string]string{"If-None-Match": `"ETAG"`}},
	{Name: "document If-Modified-Since", Method: "GET", Path: "/openapi/v3/apis/coordination.k8s.io/v1", Header: map[string]string{"If-Modified-Since": "Fri, 01 Jan 2100 00:00:00 GMT"}},
	{Name: "document as YAML", Method: "GET", Path: "/openapi/v3/apis/apps/v1?hash=HASH", Header: map[string]string{"Accept": "application/yaml"}},
	{Name: "document as protobuf", Method: "GET", Path: "/openapi/v3/apis/apps/v1?hash=HASH", Header: map[string]string{"Accept": "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"},
		Differs: "kube also serves v3 documents as protobuf; no kubectl 1.32 command asks for it"},
	{Name: "document gzip", Method: "GET", Path: "/openapi/v3/apis/apps/v1?hash=HASH", Header: map[string]string{"Accept-Encoding": "gzip"}},
	{Name: "group document", Method: "GET", Path: "/openapi/v3/apis/apps"},
	{Name: "core group document", Method: "GET", Path: "/openapi/v3/api"},
	{Name: "version document", Method: "GET", Path: "/openapi/v3/version"},
	{Name: "unknown group version", Method: "GET", Path: "/openapi/v3/apis/example.com/v1"},
	{Name: "v3 slash", Method: "GET", Path: "/openapi/v3/"},
	{Name: "under a document", Method: "GET", Path: "/openapi/v3/api/v1/pods"},
	{Name: "v2 JSON", Method: "GET", Path: "/openapi/v2", Header: map[string]string{"Accept": "application/json"}},
	{Name: "v2 any", Method: "GET", Path: "/openapi/v2"},
	{Name: "v2 protobuf as kubectl asks", Method: "GET", Path: "/openapi/v2", Header: map[string]string{"Accept": "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"}},
	{Name: "v2 protobuf", Method: "GET", Path: "/openapi/v2", Header: map[string]string{"Accept": "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"}},
	{Name: "v2 gzip", Method: "GET", Path: "/openapi/v2", Header: map[string]string{"Accept": "application/json", "Accept-Encoding": "gzip"}},
	{Name: "v2 protobuf gzip", Method: "GET", Path: "/openapi/v2", Header: map[string]string{"Accept": "application/com.github.proto-openapi.spec.v2@v1.0+protobuf", "Accept-Encoding": "gzip"}},
	{Name: "v2 If-None-Match", Method: "GET", Path: "/openapi/v2", Header: map[string]string{"If-None-Match": `"ETAG"`}},
	{Name: "v2 as YAML", Method: "GET", Path: "/openapi/v2", Header: map[string]string{"Accept": "application/yaml"}},
	{Name: "v2 DELETE", Method: "DELETE", Path: "/openapi/v2"},
	{Name: "v2 slash", Method: "GET", Path: "/openapi/v2/"},
	{Name: "openapi", Method: "GET", Path: "/openapi"},
	{Name: "openapi other", Method: "GET", Path: "/openapi/v4"},
}

// ignoredHeaders differ per request or are the transport's; Accept-Ranges is
// left out on purpose: kubeplay serves no ranges (no client asks for one).
var ignoredHeaders = map[string]bool{"Date": true, "Audit-Id": true, "X-Kubernetes-Pf-Flowschema-Uid": true,
	"X-Kubernetes-Pf-Prioritylevel-Uid": true, "Accept-Ranges": true, "Transfer-Encoding": true}

// docPath is the v3 document a request path names ("" for none).
func docPath(p string) string {
	p, _, _ = strings.Cut(p, "?")
	return strings.TrimPrefix(p, "/openapi/v3/")
}

// normalize turns an answer into the recorded form.
func normalize(c httpCase, res *http.Response, body []byte, etag string) httpCase {
	c.Status = res.StatusCode
	c.Answer = map[string]string{}
	for k, vs := range res.Header {
		k = http.CanonicalHeaderKey(k)
		if ignoredHeaders[k] {
			continue
		}
		v := strings.Join(vs, ", ")
		switch k {
		case "Etag":
			v = replace(v, etag, "ETAG")
		case "Location":
			v = replace(v, etag, "HASH")
		case "Date", "Expires", "Last-Modified":
			v = "DATE"
		case "Content-Length":
			if v != "0" {
				v = "N"
			}
		}
		c.Answer[k] = v
	}
	c.Body = bodyKind(res.Header, body)
	return c
}

// replace replaces old with new in s, unless old is empty (a document without a hash).
func replace(s, old, new string) string {
	if old == "" {
		return s
	}
	return strings.ReplaceAll(s, old, new)
}

// bodyKind says what a body is: empty, a JSON document, the index, protobuf,
// gzip, or else its text.
func bodyKind(h http.Header, body []byte) string {
	var v map[string]any
	switch {
	case len(body) == 0:
		return "empty"
	case bytes.HasPrefix(body, []byte{0x1f, 0x8b}):
		return "gzip"
	case strings.Contains(h.Get("Content-Type"), "protobuf"):
		return "protobuf"
	case json.Unmarshal(body, &v) == nil && (v["openapi"] != nil || v["swagger"] != nil):
		return "document"
	case v != nil && v["paths"] != nil:
		return "index"
	}
	return "text: " + string(body)
}

// digests are each document's parts by name, as a short hash of their JSON.
type digests map[string]map[string]map[string]string // document -> part ("paths", "schemas", ...) -> name -> digest

// digest is a short hash of v's JSON (keys sorted).
func digest(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// documentParts splits a document into the parts the digests cover: its
// paths, its schemas (v3) or definitions and parameters (v2), and the rest.
func documentParts(doc map[string]any) map[string]map[string]any {
	parts := map[string]map[string]any{"paths": doc["paths"].(map[string]any)}
	rest := map[string]any{}
	for k, v := range doc {
		rest[k] = v
	}
	delete(rest, "paths")
	if c, ok := doc["components"].(map[string]any); ok {
		parts["schemas"], _ = c["schemas"].(map[string]any)
		c2 := map[string]any{}
		for k, v := range c {
			if k != "schemas" {
				c2[k] = v
			}
		}
		rest["components"] = c2
	}
	for _, k := range []string{"definitions", "parameters"} {
		if m, ok := doc[k].(map[string]any); ok {
			parts[k] = m
			delete(rest, k)
		}
	}
	parts["rest"] = map[string]any{"": rest}
	return parts
}

// TestRecordKubeOpenAPI records kube's answers and document digests from a
// running kube-apiserver (see internal/refapi). It covers what kubeplay's
// documents hold, so record again when they change.
func TestRecordKubeOpenAPI(t *testing.T) {
	kube := refapi.Connect(t)
	get := func(method, path string, header map[string]string) (*http.Response, []byte) {
		return kube.Do(method, path, header, nil)
	}
	_, idx := get("GET", "/openapi/v3", nil)
	var index struct {
		Paths map[string]struct{ ServerRelativeURL string } `json:"paths"`
	}
	if err := json.Unmarshal(idx, &index); err != nil {
		t.Fatal(err)
	}
	hashOf := func(p string) string {
		u, _ := url.Parse(index.Paths[p].ServerRelativeURL)
		return u.Query().Get("hash")
	}
	res, _ := get("GET", "/openapi/v2", nil)
	v2etag := strings.Trim(res.Header.Get("Etag"), `"`)

	var cases httpCases
	cases.Comment = "Answers of kube-apiserver v1.32.13 (the refapi kit, --feature-gates=CBORServingAndStorage=true) to OpenAPI requests, recorded on " +
		time.Now().UTC().Format("2006-01-02") + " by TestRecordKubeOpenAPI (core/openapi/kube_test.go) over HTTPS. " +
		"In a request HASH and ETAG stand for the document's current hash; in an answer ETAG, HASH, DATE and N stand for its ETag, hash, a date and a length. " +
		"A case with 'differs' is an intentional difference, with its reason."
	for _, c := range kubeRequests {
		etag := v2etag
		if d := docPath(c.Path); strings.HasPrefix(c.Path, "/openapi/v3/") {
			etag = hashOf(d)
		}
		path := replace(c.Path, "HASH", etag)
		header := map[string]string{}
		for k, v := range c.Header {
			header[k] = replace(v, "ETAG", etag)
		}
		res, body := get(c.Method, path, header)
		cases.Cases = append(cases.Cases, normalize(c, res, body, etag))
	}
	writeJSON(t, httpCasesFile, cases)

	// The digests of kube's documents, for what kubeplay's hold.
	ours := ourDocuments(t)
	out := struct {
		Comment   string  `json:"comment"`
		Documents digests `json:"documents"`
	}{Comment: "Digests (the first 8 bytes of the SHA-256 of the JSON, keys sorted) of the paths, schemas, definitions and parameters of the OpenAPI documents of kube-apiserver v1.32.13 (the refapi kit, --feature-gates=CBORServingAndStorage=true) that kubeplay's documents hold, and of the rest of each document, recorded on " +
		time.Now().UTC().Format("2006-01-02") + " by TestRecordKubeOpenAPI (core/openapi/kube_test.go).",
		Documents: digests{}}
	for name, doc := range ours {
		path := "/openapi/v3/" + name
		if name == "v2" {
			path = "/openapi/v2"
		}
		res, body := get("GET", path, map[string]string{"Accept": "application/json"})
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d", path, res.StatusCode)
		}
		var kube map[string]any
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if err := dec.Decode(&kube); err != nil {
			t.Fatal(err)
		}
		kubeParts := documentParts(kube)
		out.Documents[name] = map[string]map[string]string{}
		for part, entries := range documentParts(doc) {
			d := map[string]string{}
			for k := range entries {
				if v, ok := kubeParts[part][k]; ok {
					d[k] = digest(v)
				}
			}
			out.Documents[name][part] = d
		}
	}
	writeJSON(t, digestsFile, out)
}

func writeJSON(t *testing.T, file string, v any) {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ourDocuments are kubeplay's documents, decoded, by v3 path and "v2", as its
// API server serves them.
func ourDocuments(t *testing.T) map[string]map[string]any {
	t.Helper()
	base := serve(t)
	out := map[string]map[string]any{}
	for p, u := range index(t, base) {
		out[p] = decodeDocument(t, fetch(t, base+u))
	}
	out["v2"] = decodeDocument(t, fetch(t, base+"/openapi/v2"))
	return out
}

func decodeDocument(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

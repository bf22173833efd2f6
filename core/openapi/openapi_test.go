package openapi_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/clock"
	"kubeplay/core/kinds"
	"kubeplay/core/openapi"
	"kubeplay/core/sandbox"
	"kubeplay/core/web"
)

// serve starts an API server and returns its URL.
func serve(t *testing.T) string {
	t.Helper()
	s, err := sandbox.NewServer(sandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts.URL
}

func fetch(t *testing.T, u string) []byte {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", u, res.StatusCode, b)
	}
	return b
}

// index reads the v3 index: document path -> server-relative URL.
func index(t *testing.T, base string) map[string]string {
	t.Helper()
	var idx struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(fetch(t, base+"/openapi/v3"), &idx); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for p, e := range idx.Paths {
		out[p] = e.ServerRelativeURL
	}
	return out
}

// TestK8S_URI_2_OpenAPIAnswersAsKube replays kube's recorded answers to OpenAPI
// requests (status, headers, what the body is) against kubeplay.
func TestK8S_URI_2_OpenAPIAnswersAsKube(t *testing.T) {
	var rec httpCases
	b, err := os.ReadFile(httpCasesFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	base := serve(t)
	idx := index(t, base)
	v2, err := http.Get(base + "/openapi/v2")
	if err != nil {
		t.Fatal(err)
	}
	v2.Body.Close()
	client := &http.Client{
		Transport:     &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	for _, want := range rec.Cases {
		if want.Differs != "" {
			t.Logf("%s: not compared: %s", want.Name, want.Differs)
			continue
		}
		etag := strings.Trim(v2.Header.Get("Etag"), `"`)
		if strings.HasPrefix(want.Path, "/openapi/v3/") {
			u, _ := url.Parse(idx[docPath(want.Path)])
			etag = u.Query().Get("hash")
		}
		req, err := http.NewRequest(want.Method, base+replace(want.Path, "HASH", etag), nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range want.Header {
			req.Header.Set(k, replace(v, "ETAG", etag))
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		got := normalize(want, res, body, etag)
		if got.Status != want.Status || got.Body != want.Body || fmt.Sprint(got.Answer) != fmt.Sprint(want.Answer) {
			t.Errorf("%s: got %d %v %s\nkube: %d %v %s", want.Name, got.Status, got.Answer, got.Body, want.Status, want.Answer, want.Body)
		}
	}
}

// TestK8S_URI_2_OpenAPIDocumentsAsKube checks every path, schema, definition
// and parameter of kubeplay's documents against kube's recorded digests: they
// are kube-apiserver's own, enums and descriptions included.
func TestK8S_URI_2_OpenAPIDocumentsAsKube(t *testing.T) {
	var rec struct {
		Documents digests `json:"documents"`
	}
	b, err := os.ReadFile(digestsFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	ours := ourDocuments(t)
	for name, doc := range ours {
		kube, ok := rec.Documents[name]
		if !ok {
			t.Errorf("%s: no recorded kube digests (record them with TestRecordKubeOpenAPI)", name)
			continue
		}
		for part, entries := range documentParts(doc) {
			for k, v := range entries {
				want, ok := kube[part][k]
				switch {
				case !ok:
					t.Errorf("%s %s %q: not recorded from kube (record with TestRecordKubeOpenAPI)", name, part, k)
				case digest(v) != want:
					t.Errorf("%s %s %q: differs from kube's", name, part, k)
				}
			}
			if len(kube[part]) != len(entries) {
				t.Errorf("%s %s: %d entries, kube's recording has %d", name, part, len(entries), len(kube[part]))
			}
		}
	}
	if len(ours) != len(rec.Documents) {
		t.Errorf("%d documents, %d recorded", len(ours), len(rec.Documents))
	}
}

// TestK8S_URI_2_OpenAPICoversServedResources checks the documents against the
// schema registry: the index lists a document for every served group version,
// each holds every served resource's paths (collection, object, watch, each
// served subresource), whose operations are the resource's verbs, the v2
// document holds the same paths, every reference resolves, and each ETag is
// its document's SHA-512.
func TestK8S_URI_2_OpenAPICoversServedResources(t *testing.T) {
	base := serve(t)
	idx := index(t, base)
	reg := api.NewRegistry(kinds.All()...)
	wantDocs := map[string]bool{"apis": true, "version": true}
	for _, gv := range reg.GroupVersions() {
		g := "apis/" + gv.Group
		if gv.Group == "" {
			g = "api"
		}
		wantDocs[g], wantDocs[g+"/"+gv.Version] = true, true
	}
	if fmt.Sprint(slices.Sorted(maps.Keys(idx))) != fmt.Sprint(slices.Sorted(maps.Keys(wantDocs))) {
		t.Fatalf("index lists %v, want %v", slices.Sorted(maps.Keys(idx)), slices.Sorted(maps.Keys(wantDocs)))
	}
	docs := map[string]map[string]any{}
	for p, u := range idx {
		body := fetch(t, base+u)
		if sum := fmt.Sprintf("%X", sha512.Sum512(body)); !strings.HasSuffix(u, "?hash="+sum) {
			t.Errorf("%s: hash is not the document's SHA-512", p)
		}
		docs[p] = decodeDocument(t, body)
		checkRefs(t, p, docs[p], "#/components/schemas/", docs[p]["components"].(map[string]any)["schemas"])
	}
	v2 := decodeDocument(t, fetch(t, base+"/openapi/v2"))
	checkRefs(t, "v2", v2, "#/definitions/", v2["definitions"])
	checkRefs(t, "v2", v2, "#/parameters/", v2["parameters"])
	actionVerb := map[string]string{"post": "create", "put": "update", "watchlist": "watch"}
	connectVerb := map[string]string{"get": "get", "head": "get", "post": "create", "put": "update", "patch": "patch", "delete": "delete"}
	for _, r := range reg.All() {
		g := "apis/" + r.Group
		if r.Group == "" {
			g = "api"
		}
		prefix := "/" + g + "/" + r.Version
		coll := prefix + "/" + r.Plural
		watch := prefix + "/watch/" + r.Plural
		if r.Namespaced {
			coll = prefix + "/namespaces/{namespace}/" + r.Plural
			watch = prefix + "/watch/namespaces/{namespace}/" + r.Plural
		}
		want := []string{coll}
		if r.HasVerb("get") {
			want = append(want, coll+"/{name}")
		}
		if r.HasVerb("watch") {
			want = append(want, watch, watch+"/{name}")
		}
		if r.Namespaced && r.HasVerb("list") {
			want = append(want, prefix+"/"+r.Plural)
		}
		if r.Namespaced && r.HasVerb("watch") {
			want = append(want, prefix+"/watch/"+r.Plural)
		}
		for _, sub := range r.Subs {
			want = append(want, coll+"/{name}/"+sub.Name)
		}
		paths := docs[g+"/"+r.Version]["paths"].(map[string]any)
		for _, p := range want {
			item, ok := paths[p].(map[string]any)
			if !ok {
				t.Errorf("%s: no path %s", r.Plural, p)
				continue
			}
			if _, ok := v2["paths"].(map[string]any)[p]; !ok {
				t.Errorf("%s: v2 has no path %s", r.Plural, p)
			}
			verbs := r.Verbs
			if sub, ok := strings.CutPrefix(p, coll+"/{name}/"); ok {
				verbs = r.Sub(sub).Verbs
			}
			for method, op := range item {
				o, _ := op.(map[string]any) // or the path's parameters
				action, _ := o["x-kubernetes-action"].(string)
				if action == "" {
					continue
				}
				verb := action
				if v, ok := actionVerb[action]; ok {
					verb = v
				}
				if action == "connect" { // a connect subresource: each method its verb
					if method == "options" {
						continue // passed on by a proxy whatever its verbs (TestK8S_URI_3_ConnectUnreachable)
					}
					verb = connectVerb[method]
				}
				if !contains(verbs, verb) {
					t.Errorf("%s %s: operation %s (%s) is not a verb kubeplay serves (%v)", strings.ToUpper(method), p, action, verb, verbs)
				}
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkRefs checks that every reference with prefix in doc names an entry of defs.
func checkRefs(t *testing.T, name string, doc any, prefix string, defs any) {
	t.Helper()
	m, _ := defs.(map[string]any)
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok && strings.HasPrefix(ref, prefix) {
				if _, ok := m[strings.TrimPrefix(ref, prefix)]; !ok {
					t.Errorf("%s: %s does not resolve", name, ref)
				}
			}
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(doc)
}

// TestK8S_URI_2_OpenAPIGzipAndProtobuf reads the v2 document gzipped and as
// protobuf: the gzip holds the JSON, the protobuf starts with swagger "2.0".
func TestK8S_URI_2_OpenAPIGzipAndProtobuf(t *testing.T) {
	base := serve(t)
	plain := fetch(t, base+"/openapi/v2")
	req, _ := http.NewRequest("GET", base+"/openapi/v2", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	unzipped, _ := io.ReadAll(zr)
	res.Body.Close()
	if !bytes.Equal(unzipped, plain) {
		t.Fatal("the gzipped v2 document is not the document")
	}
	req, _ = http.NewRequest("GET", base+"/openapi/v2", nil)
	req.Header.Set("Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	pb, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !bytes.HasPrefix(pb, []byte("\n\x032.0")) || res.Header.Get("Etag") == "" {
		t.Fatalf("protobuf: %q %v", pb[:min(len(pb), 20)], res.Header)
	}
}

// TestK8S_URI_2_OpenAPIExtraDocuments: a group version the built-in documents
// do not describe (a CRD's) is listed once Options.Document describes it, and
// the index follows the registry's generation.
func TestK8S_URI_2_OpenAPIExtraDocuments(t *testing.T) {
	reg := api.NewRegistry(kinds.All()...)
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clk := clock.NewFake(start)
	calls := 0
	svc := openapi.New(reg, openapi.Options{Clock: clk, Document: func(gv api.GroupVersion, rs []*api.Resource) ([]byte, bool) {
		calls++
		if gv.Group != "example.com" {
			return nil, false
		}
		var kinds []string
		for _, r := range rs {
			kinds = append(kinds, r.Kind)
		}
		return []byte(fmt.Sprintf(`{"openapi":"3.0.0","kinds":%q}`, kinds)), true
	}})
	get := func(p string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		svc.ServeHTTP(w, httptest.NewRequest("GET", p, nil))
		return w
	}
	idx := get("/openapi/v3").Body.String()
	if strings.Contains(idx, "example.com") || calls != 0 {
		t.Fatalf("index before the CRD: %s (%d calls)", idx, calls)
	}
	clk.Step(time.Minute)
	reg.Add(&api.Resource{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets", Namespaced: true})
	var parsed struct {
		Paths map[string]struct{ ServerRelativeURL string } `json:"paths"`
	}
	if err := json.Unmarshal(get("/openapi/v3").Body.Bytes(), &parsed); err != nil {
		t.Fatal(err)
	}
	u := parsed.Paths["apis/example.com/v1"].ServerRelativeURL
	if u == "" {
		t.Fatalf("index after the CRD lacks it: %v", parsed.Paths)
	}
	w := get(u)
	if w.Code != web.StatusOK || w.Body.String() != `{"openapi":"3.0.0","kinds":["Widget"]}` ||
		w.Header().Get("Last-Modified") != start.Add(time.Minute).Format(http.TimeFormat) {
		t.Fatalf("CRD document: %d %v %s", w.Code, w.Header(), w.Body)
	}
	if _, ok := parsed.Paths["apis/example.com"]; ok {
		t.Fatal("a CRD's group has no group document of its own here")
	}
	get("/openapi/v3")
	if calls != 1 {
		t.Fatalf("the document was built %d times for one generation", calls)
	}
}

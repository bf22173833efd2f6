package apiserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/registry"
	"kubeplay/core/request"
)

// The fuzz targets send arbitrary requests through the whole handler (filters,
// router, verbs) and check the contract every kube client relies on: no panic (the
// recovery filter would turn one into a 500), no 5xx, and every error a JSON
// metav1.Status whose code is the HTTP status. testdata/fuzz holds checked-in seeds.

// fzWatchBudget bounds a fuzzed request: watches and waits for a future
// resourceVersion end when it does.
const fzWatchBudget = 30 * time.Millisecond

var (
	fzMu      sync.Mutex
	fzServers = map[string]*testCore{}
)

// fzServer is one server per fuzz target and process (targets that write do not
// disturb those that check nothing changes), seeded with configmaps cm-0..cm-5
// (labels app=web|api, idx) in default and two in kube-system.
func fzServer(t testing.TB) *testCore {
	fzMu.Lock()
	defer fzMu.Unlock()
	name, _, _ := strings.Cut(t.Name(), "/")
	if s := fzServers[name]; s != nil {
		return s
	}
	s, err := newCore(testConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		app := "web"
		if i%2 == 1 {
			app = "api"
		}
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%d","labels":{"app":%q,"idx":"%d"}},"data":{"i":"%d"}}`, i, app, i, i)
		if code, out := fzDo(s, http.MethodPost, "/api/v1/namespaces/default/configmaps", "", "application/json", []byte(body)); code != http.StatusCreated {
			t.Fatalf("seeding cm-%d: %d %s", i, code, out)
		}
	}
	for i := range 2 {
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"sys-%d"}}`, i)
		if code, out := fzDo(s, http.MethodPost, "/api/v1/namespaces/kube-system/configmaps", "", "application/json", []byte(body)); code != http.StatusCreated {
			t.Fatalf("seeding sys-%d: %d %s", i, code, out)
		}
	}
	fzServers[name] = s
	return s
}

// fzDo serves one request in-process with a short deadline.
func fzDo(s *testCore, method, path, rawQuery, contentType string, body []byte) (int, []byte) {
	rec, _ := fzServe(s, method, path, rawQuery, contentType, body)
	return rec.Code, rec.Body.Bytes()
}

// fzServe serves one request in-process; headers are extra name, value pairs.
func fzServe(s *testCore, method, path, rawQuery, contentType string, body []byte, headers ...string) (*httptest.ResponseRecorder, *http.Request) {
	ctx, cancel := context.WithTimeout(context.Background(), fzWatchBudget)
	defer cancel()
	r := httptest.NewRequest(http.MethodGet, "/", nil).WithContext(ctx)
	r.Method = method
	r.URL = &url.URL{Path: path, RawQuery: rawQuery}
	r.RequestURI = r.URL.RequestURI()
	if body != nil {
		r.Body = fzBody{bytes.NewReader(body)}
		r.ContentLength = int64(len(body))
		if contentType != "" {
			r.Header.Set("Content-Type", contentType)
		}
	}
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, r)
	return rec, r
}

type fzBody struct{ *bytes.Reader }

func (fzBody) Close() error { return nil }

// fzCheckStatus checks that an error answer is a Status with the answer's code,
// and returns it.
func fzCheckStatus(t *testing.T, what string, rec *httptest.ResponseRecorder) *apierrors.Status {
	t.Helper()
	var st apierrors.Status
	if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil {
		t.Fatalf("%s: %d answer is not JSON: %v\n%q", what, rec.Code, err, rec.Body.String())
	}
	if st.Kind != "Status" || st.APIVersion != "v1" || st.Status != "Failure" {
		t.Fatalf("%s: %d answer is not a failure Status: %s", what, rec.Code, rec.Body.String())
	}
	if st.Code != rec.Code {
		t.Fatalf("%s: Status code %d, HTTP %d: %s", what, st.Code, rec.Code, rec.Body.String())
	}
	if st.Message == "" || st.Reason == "" {
		t.Fatalf("%s: Status without message or reason: %s", what, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%s: Status served as %q", what, ct)
	}
	return &st
}

// fzTooLargeRV says whether an answer is kube's 504 for a resourceVersion the
// store has not reached (the fuzzer's deadline cuts the wait short).
func fzTooLargeRV(st *apierrors.Status) bool {
	return st.Code == http.StatusGatewayTimeout && st.Reason == "Timeout" &&
		strings.Contains(st.Message, "Too large resource version")
}

var fzMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE", "PROPFIND"}

func fzValidMethod(m string) bool {
	if m == "" {
		return false
	}
	for _, c := range m {
		if c <= ' ' || c >= 0x7f || strings.ContainsRune(`()<>@,;:\"/[]?={}`, c) {
			return false
		}
	}
	return true
}

func FuzzRequestPath(f *testing.F) {
	type seed struct {
		method, path, query, contentType, body string
	}
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fz"}}`
	for _, s := range []seed{
		{"GET", "/api", "", "", ""},
		{"GET", "/apis", "", "", ""},
		{"GET", "/api/v1", "", "", ""},
		{"GET", "/apis/apps/v1", "", "", ""},
		{"GET", "/apis/apps", "", "", ""},
		{"GET", "/version", "", "", ""},
		{"GET", "/healthz/ping", "verbose=1", "", ""},
		{"GET", "/openapi/v3", "", "", ""},
		{"GET", "/openapi/v3/api/v1", "", "", ""},
		{"GET", "/openapi/v3/api/v1", "hash=stale", "", ""},
		{"GET", "/openapi/v3/apis/example.com/v1", "", "", ""},
		{"POST", "/openapi/v2", "", "", ""},
		{"GET", "/api/v1/namespaces/default/configmaps/cm-1", "resourceVersion=0", "", ""},
		{"GET", "/api/v1/namespaces/default/configmaps", "limit=2&labelSelector=app%3Dweb", "", ""},
		{"GET", "/api/v1/configmaps", "fieldSelector=metadata.namespace%3Ddefault", "", ""},
		{"GET", "/api/v1/watch/namespaces/default/configmaps", "resourceVersion=1", "", ""},
		{"GET", "/api/v1/namespaces/default/configmaps", "watch=true&allowWatchBookmarks=true", "", ""},
		{"GET", "/api/v1/namespaces/default/pods/p/log", "", "", ""},
		{"GET", "/api/v1/namespaces/default/status", "", "", ""},
		{"GET", "/apis/apps/v1/namespaces/default/deployments/d/scale", "", "", ""},
		{"GET", "/api/v1/nodes/n/status", "", "", ""},
		{"GET", "/api/v1/namespaces/default/nodes", "", "", ""},
		{"GET", "/api/v1/configmaps/x", "", "", ""},
		{"GET", "/api/v1/namespaces//configmaps", "", "", ""},
		{"GET", "/api/v1/watch", "", "", ""},
		{"GET", "/api/v1/proxy/nodes/n", "", "", ""},
		{"GET", "/apis/apps/v1/pods", "", "", ""},
		{"GET", "/api/apps/v1/deployments", "", "", ""},
		{"GET", "/api/v1/namespaces/default/configmaps/a/b/c/d", "", "", ""},
		{"GET", "/api/v1/namespaces/default/configmaps", "resourceVersion=999999&resourceVersionMatch=NotOlderThan", "", ""},
		{"POST", "/api/v1/namespaces/default/configmaps", "dryRun=All", "application/json", cm},
		{"POST", "/api/v1/namespaces/default/configmaps", "", "application/json", `{"metadata":{"generateName":"fz-"}}`},
		{"POST", "/api/v1/namespaces/default/configmaps", "", "application/yaml", "kind: ConfigMap"},
		{"POST", "/api/v1/namespaces/default/configmaps", "", "application/json", `{"metadata":{"name":"Bad_Name"}}`},
		{"POST", "/api/v1/namespaces/missing/configmaps", "", "application/json", cm},
		{"POST", "/api/v1/namespaces", "", "application/json", `{"metadata":{"name":"fz-ns"}}`},
		{"PUT", "/api/v1/namespaces/default/configmaps/cm-2", "", "application/json", `{"metadata":{"name":"cm-2","resourceVersion":"1"}}`},
		{"PATCH", "/api/v1/namespaces/default/configmaps/cm-3", "", "application/merge-patch+json", `{"data":{"x":"y"}}`},
		{"PATCH", "/api/v1/namespaces/default/configmaps/cm-3", "", "application/json-patch+json", `[{"op":"test","path":"/data/i","value":"3"}]`},
		{"DELETE", "/api/v1/namespaces/default/configmaps/fz", "gracePeriodSeconds=0", "", ""},
		{"DELETE", "/api/v1/namespaces/default/configmaps", "labelSelector=none", "", ""},
		{"DELETE", "/api/v1/namespaces/kube-system", "", "", ""},
		{"OPTIONS", "/api/v1/namespaces", "", "", ""},
		{"PROPFIND", "/api/v1/namespaces/default/configmaps", "", "", ""},
		{"HEAD", "/api/v1/namespaces/default/configmaps/cm-0", "", "", ""},
		{"GET", "/api/v1/namespaces/default/configmaps", "limit=%zz&continue=%", "", ""},
		{"GET", "/%2e%2e/api", "", "", ""},
	} {
		f.Add(s.method, s.path, s.query, s.contentType, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, method, path, query, contentType string, body []byte) {
		srv := fzServer(t)
		if !fzValidMethod(method) {
			// net/http rejects such a request line before any handler sees it; map
			// the fuzzer's bytes onto a real method instead.
			method = fzMethods[len(method)%len(fzMethods)]
		}
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		if len(body) == 0 {
			body = nil
		}
		what := fmt.Sprintf("%s %s?%s (%s %q)", method, path, query, contentType, body)
		rec, r := fzServe(srv, method, path, query, contentType, body)
		code := rec.Code
		switch {
		case strings.HasPrefix(r.URL.Path, "/openapi"):
			// kube answers OpenAPI requests outside its Status machinery: bare
			// 404s and 406s, 301 to a document's current hash, 304
			// (core/openapi replays kube's answers).
			if code >= 500 {
				t.Fatalf("%s: answered %d: %s", what, code, rec.Body.String())
			}
		case code >= 200 && code < 300:
			info := request.ParseRequestInfo(r)
			ct := rec.Header().Get("Content-Type")
			if info.Verb != "watch" && method != http.MethodHead && strings.HasPrefix(ct, "application/json") &&
				!json.Valid(rec.Body.Bytes()) {
				t.Fatalf("%s: %d answer served as %s is not valid JSON: %q", what, code, ct, rec.Body.String())
			}
		case code >= 400 && code < 500:
			fzCheckStatus(t, what, rec)
		case code == http.StatusGatewayTimeout:
			if st := fzCheckStatus(t, what, rec); !fzTooLargeRV(st) {
				t.Fatalf("%s: 504 that is not a too-large resourceVersion: %s", what, rec.Body.String())
			}
		default:
			t.Fatalf("%s: answered %d: %s", what, code, rec.Body.String())
		}
	})
}

func FuzzListQuery(f *testing.F) {
	for _, q := range []string{
		"",
		"limit=2",
		"limit=0",
		"limit=-1",
		"limit=abc",
		"limit=99999999999999999999",
		"labelSelector=app%3Dweb",
		"labelSelector=app+in+%28web%2Capi%29%2C%21gone",
		"labelSelector=idx%3E2",
		"labelSelector=a+in",
		"labelSelector=%3D%3D",
		"fieldSelector=metadata.name%3Dcm-1",
		"fieldSelector=metadata.namespace%21%3Ddefault",
		"fieldSelector=spec.nodeName%3Dx",
		"fieldSelector=metadata.name%3Da%5Cx",
		"resourceVersion=0",
		"resourceVersion=1",
		"resourceVersion=abc",
		"resourceVersion=-1",
		"resourceVersion=999999999",
		"resourceVersion=1&resourceVersionMatch=Exact",
		"resourceVersion=1&resourceVersionMatch=NotOlderThan",
		"resourceVersion=0&resourceVersionMatch=Exact",
		"resourceVersionMatch=NotOlderThan",
		"resourceVersionMatch=exact&resourceVersion=1",
		"resourceVersion=3&limit=2",
		"limit=2&continue=bm90IGEgdG9rZW4",
		"continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhXHUwMDAwIn0",
		"continue=%25&limit=1",
		"continue=x&resourceVersion=5",
		"continue=x&resourceVersionMatch=Exact&resourceVersion=5",
		"watch=true",
		"watch=1&timeoutSeconds=1&allowWatchBookmarks=true",
		"watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
		"watch=true&sendInitialEvents=true",
		"watch=true&resourceVersionMatch=NotOlderThan",
		"watch=maybe",
		"watch=false&sendInitialEvents=false",
		"timeoutSeconds=-3",
		"timeoutSeconds=x",
		"allowWatchBookmarks=yes",
		"limit=1&limit=2&labelSelector=a&labelSelector=b",
		"%zz=1",
		";;&&==",
		"pretty=true&includeUninitialized=1&unknown=param",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, query string) {
		srv := fzServer(t)
		before := srv.store.Revision()
		const path = "/api/v1/namespaces/default/configmaps"
		what := "GET " + path + "?" + query
		rec, _ := fzServe(srv, http.MethodGet, path, query, "", nil)
		q, _ := url.ParseQuery(query)
		switch code := rec.Code; code {
		case http.StatusOK:
			if !fzIsWatchQuery(q) {
				var list struct {
					Kind     string `json:"kind"`
					Metadata struct {
						ResourceVersion string `json:"resourceVersion"`
					} `json:"metadata"`
					Items []struct {
						Metadata struct {
							Namespace string `json:"namespace"`
						} `json:"metadata"`
					} `json:"items"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
					t.Fatalf("%s: 200 answer is not JSON: %v\n%s", what, err, rec.Body.String())
				}
				if list.Kind != "ConfigMapList" || list.Metadata.ResourceVersion == "" {
					t.Fatalf("%s: not a ConfigMapList with a resourceVersion: %s", what, rec.Body.String())
				}
				for _, it := range list.Items {
					if it.Metadata.Namespace != "default" {
						t.Fatalf("%s: item from namespace %q", what, it.Metadata.Namespace)
					}
				}
			}
		case http.StatusBadRequest, http.StatusUnprocessableEntity:
			st := fzCheckStatus(t, what, rec)
			if want := map[int]string{400: "BadRequest", 422: "Invalid"}[code]; st.Reason != want {
				t.Fatalf("%s: %d with reason %q, want %q", what, code, st.Reason, want)
			}
		case http.StatusGone:
			st := fzCheckStatus(t, what, rec)
			if st.Reason != "Expired" || (q.Get("continue") == "" && q.Get("resourceVersion") == "") {
				t.Fatalf("%s: 410 without a continue token or resourceVersion: %s", what, rec.Body.String())
			}
		case http.StatusGatewayTimeout:
			st := fzCheckStatus(t, what, rec)
			if !fzTooLargeRV(st) || (q.Get("resourceVersion") == "" && q.Get("continue") == "") {
				t.Fatalf("%s: 504: %s", what, rec.Body.String())
			}
		default:
			t.Fatalf("%s: answered %d: %s", what, code, rec.Body.String())
		}
		if after := srv.store.Revision(); after != before {
			t.Fatalf("%s changed the store: revision %d -> %d", what, before, after)
		}
	})
}

// isWatchQuery says whether the handler treats q as a watch, as RequestInfo does.
func fzIsWatchQuery(q url.Values) bool {
	r := &http.Request{URL: &url.URL{RawQuery: q.Encode()}}
	return request.IsWatch(r)
}

// fzFirstPage lists default's configmaps two at a time and returns the
// continue token of the first page.
func fzFirstPage(t testing.TB, srv *testCore, query string) string {
	code, body := fzDo(srv, http.MethodGet, "/api/v1/namespaces/default/configmaps", query, "", nil)
	var list struct {
		Metadata struct {
			Continue string `json:"continue"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(body, &list); err != nil || code != http.StatusOK || list.Metadata.Continue == "" {
		t.Fatalf("first page (%s): %d %s", query, code, body)
	}
	return list.Metadata.Continue
}

func FuzzContinueToken(f *testing.F) {
	for _, s := range []struct {
		token string
		pos   uint
		b     byte
	}{
		{"", 0, 0},
		{"e30", 0, 'x'},
		{"bm90IGEgdG9rZW4", 3, 'A'},
		{"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhXHUwMDAwIn0", 10, '-'},
		{"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiY20tMVx1MDAwMCIsIm1hYyI6IjAwIn0", 0, 'f'},
		{"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MCwic3RhcnQiOiJcdTAwMDAifQ", 1, 0},
		{"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6OTk5OTk5OTk5LCJzdGFydCI6ImNtLTFcdTAwMDAiLCJtYWMiOiJ4In0", 50, '_'},
		{"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0==", 7, '='},
		{"%%%", 2, '+'},
		{strings.Repeat("A", 300), 100, 'B'},
	} {
		f.Add(s.token, s.pos, s.b)
	}
	f.Fuzz(func(t *testing.T, token string, pos uint, b byte) {
		srv := fzServer(t)
		res := srv.kinds.Lookup("", "v1", "configmaps")
		decodeContinue := func(token string) (int64, string, error) {
			return registry.DecodeContinue(res, "default", &registry.ListOptions{Continue: token})
		}

		// Decoding arbitrary input never panics; what it accepts it accepts
		// through the handler too.
		rv, after, err := decodeContinue(token)
		if err != nil {
			st, ok := err.(*apierrors.Status)
			if !ok || st.Code != http.StatusBadRequest || st.Message == "" {
				t.Fatalf("decodeContinue(%q): %v, want a 400 Status", token, err)
			}
		} else if rv == 0 || rv < -1 {
			t.Fatalf("decodeContinue(%q) accepted revision %d", token, rv)
		}
		q := url.Values{"limit": {"2"}, "continue": {token}}.Encode()
		rec, _ := fzServe(srv, http.MethodGet, "/api/v1/namespaces/default/configmaps", q, "", nil)
		switch rec.Code {
		case http.StatusOK:
			if token != "" && err != nil {
				t.Fatalf("continue=%q: 200 for a token decodeContinue rejects (%v)", token, err)
			}
		case http.StatusBadRequest:
			if st := fzCheckStatus(t, "continue="+token, rec); st.Reason != "BadRequest" || (err == nil && token != "") {
				t.Fatalf("continue=%q: %s (decodeContinue: %d %q %v)", token, rec.Body.String(), rv, after, err)
			}
		case http.StatusGone:
			if st := fzCheckStatus(t, "continue="+token, rec); st.Reason != "Expired" || err != nil {
				t.Fatalf("continue=%q: %s", token, rec.Body.String())
			}
		case http.StatusGatewayTimeout:
			if st := fzCheckStatus(t, "continue="+token, rec); !fzTooLargeRV(st) || err != nil {
				t.Fatalf("continue=%q: %s", token, rec.Body.String())
			}
		default:
			t.Fatalf("continue=%q: answered %d: %s", token, rec.Code, rec.Body.String())
		}

		// A real token with one byte changed is refused with 400, unless the change
		// does not change what it says (base64's spare bits, JSON's case-insensitive
		// keys): then it continues the same list at the same place.
		valid := fzFirstPage(t, srv, "limit=2")
		wantRV, wantAfter, err := decodeContinue(valid)
		if err != nil {
			t.Fatalf("a token the server issued does not decode: %v", err)
		}
		tampered := []byte(valid)
		tampered[pos%uint(len(tampered))] = b
		if string(tampered) == valid {
			return
		}
		gotRV, gotAfter, err := decodeContinue(string(tampered))
		if err == nil && (gotRV != wantRV || gotAfter != wantAfter) {
			raw, _ := base64.RawURLEncoding.DecodeString(string(tampered))
			t.Fatalf("tampered token %q (%s) accepted as revision %d after %q; the real one says %d after %q",
				tampered, raw, gotRV, gotAfter, wantRV, wantAfter)
		}
		q = url.Values{"limit": {"2"}, "continue": {string(tampered)}}.Encode()
		rec, _ = fzServe(srv, http.MethodGet, "/api/v1/namespaces/default/configmaps", q, "", nil)
		if err != nil {
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("tampered token %q: %d %s, want 400", tampered, rec.Code, rec.Body.String())
			}
			fzCheckStatus(t, "tampered token", rec)
		} else if rec.Code != http.StatusOK {
			t.Fatalf("tampered but equivalent token %q: %d %s", tampered, rec.Code, rec.Body.String())
		}

		// The real token on another list (namespace, selectors) is refused.
		for _, other := range []struct{ path, query string }{
			{"/api/v1/namespaces/kube-system/configmaps", ""},
			{"/api/v1/configmaps", ""},
			{"/api/v1/namespaces/default/configmaps", "labelSelector=app%3Dweb&"},
			{"/api/v1/namespaces/default/secrets", ""},
		} {
			rec, _ := fzServe(srv, http.MethodGet, other.path, other.query+"limit=2&continue="+url.QueryEscape(valid), "", nil)
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("token of default's configmaps on %s?%s: %d %s, want 400", other.path, other.query, rec.Code, rec.Body.String())
			}
		}
	})
}

// TestK8S_WATCH_1_QueryParametersConvertAsKube pins kube's url.Values conversion
// (found by fuzzing RequestInfo and ListOptions against k8s.io/apiserver v0.32): a
// boolean parameter is true unless "0" or "false" in any case, even when empty;
// an integer parameter that is present must parse, even when empty.
func TestK8S_WATCH_1_QueryParametersConvertAsKube(t *testing.T) {
	srv := fzServer(t)
	const coll = "/api/v1/namespaces/default/configmaps"
	for _, c := range []struct {
		query string
		verb  string // RequestInfo's verb
		code  int
		watch bool // the answer is a watch stream
	}{
		{"watch=maybe", "watch", 200, true},
		{"watch=", "watch", 200, true},
		{"watch", "watch", 200, true},
		{"watch=yes&watch=0", "watch", 200, true},
		{"watch=0&watch=1", "list", 200, false},
		{"watch=FALSE", "list", 200, false},
		{"watch=False&allowWatchBookmarks=nope", "list", 200, false},
		{"limit=", "list", 400, false},
		{"watch=1&timeoutSeconds=", "watch", 400, false},
		{"sendInitialEvents=", "list", 422, false}, // true, and forbidden for list
	} {
		rec, r := fzServe(srv, http.MethodGet, coll, c.query, "", nil)
		if got := request.ParseRequestInfo(r).Verb; got != c.verb {
			t.Errorf("?%s: verb %q, want %q", c.query, got, c.verb)
		}
		if rec.Code != c.code {
			t.Errorf("?%s: %d %s, want %d", c.query, rec.Code, rec.Body.String(), c.code)
			continue
		}
		isStream := rec.Code == 200 && strings.HasPrefix(rec.Body.String(), `{"type":`)
		if isStream != c.watch {
			t.Errorf("?%s: answered %.80q, want a watch stream: %v", c.query, rec.Body.String(), c.watch)
		}
	}
}

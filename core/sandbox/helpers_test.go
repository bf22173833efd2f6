package sandbox

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kubeplay/core/object"
)

// env is a sandbox served over loopback HTTP, with its APF configuration in
// place.
type env struct {
	t  testing.TB
	sb *Sandbox
	hs *httptest.Server
}

func newEnv(t testing.TB, cfg Config) *env {
	t.Helper()
	sb, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sb)
	t.Cleanup(func() {
		hs.Close()
		sb.Close()
	})
	e := &env{t: t, sb: sb, hs: hs}
	e.eventually("the suggested configuration", func() bool {
		r := e.do("GET", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", nil, admin)
		items, _ := r.Obj["items"].([]any)
		for _, it := range items {
			if object.Path(it, "status", "conditions") == nil {
				return false
			}
		}
		return len(items) == 13
	})
	return e
}

// resp is an answer, read whole.
type resp struct {
	Code   int
	Header http.Header
	Body   []byte
	Obj    object.Object
}

// as are the headers that say who asks.
type as map[string]string

var (
	admin      = as{"Authorization": "Bearer kubeplay"}
	superAdmin = as{"Authorization": "Bearer kubeplay-super-admin"}
	anonymous  = as{}
)

// impersonating is admin asking as user in groups.
func impersonating(user string, groups ...string) http.Header {
	h := http.Header{"Authorization": {"Bearer kubeplay"}, "Impersonate-User": {user}}
	for _, g := range groups {
		h.Add("Impersonate-Group", g)
	}
	return h
}

func (e *env) do(method, path string, body any, who as) resp {
	h := http.Header{}
	for k, v := range who {
		h.Set(k, v)
	}
	return e.doH(method, path, body, h)
}

func (e *env) doH(method, path string, body any, h http.Header) resp {
	e.t.Helper()
	if body == nil {
		return e.raw(method, path, "", nil, h)
	}
	b, err := json.Marshal(body)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.raw(method, path, "application/json", b, h)
}

// raw sends body (nil: none) of contentType as it is.
func (e *env) raw(method, path, contentType string, body []byte, h http.Header) resp {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, e.hs.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header = h.Clone()
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	r := resp{Code: res.StatusCode, Header: res.Header, Body: b}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		r.Obj, _ = object.Decode(b)
	}
	return r
}

func (e *env) eventually(what string, ok func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// uid is the uid of a FlowSchema or PriorityLevelConfiguration.
func (e *env) uid(plural, name string) string {
	e.t.Helper()
	r := e.do("GET", "/apis/flowcontrol.apiserver.k8s.io/v1/"+plural+"/"+name, nil, admin)
	if r.Code != 200 {
		e.t.Fatalf("get %s %s: %d %s", plural, name, r.Code, r.Body)
	}
	return object.MetaString(r.Obj, "uid")
}

// classifiedAs is the FlowSchema and priority level a response names.
func (e *env) classifiedAs(r resp) (fs, pl string) {
	e.t.Helper()
	names := func(plural, uid string) string {
		// Read as the super-admin (system:masters, exempt): a test's FlowSchemas
		// may send everyone else to catch-all, which rejects when busy (429).
		l := e.do("GET", "/apis/flowcontrol.apiserver.k8s.io/v1/"+plural, nil, superAdmin)
		if l.Code != 200 {
			e.t.Fatalf("list %s: %d %s", plural, l.Code, l.Body)
		}
		items, _ := l.Obj["items"].([]any)
		for _, it := range items {
			if o, _ := it.(map[string]any); object.MetaString(o, "uid") == uid {
				return object.MetaString(o, "name")
			}
		}
		return "<uid " + uid + ">"
	}
	return names("flowschemas", r.Header.Get("X-Kubernetes-PF-FlowSchema-UID")),
		names("prioritylevelconfigurations", r.Header.Get("X-Kubernetes-PF-PriorityLevel-UID"))
}

// widget defines the custom resource Widget (example.com/v1, any fields) and
// makes one, w, in namespace, once the kind is served.
func (e *env) widget(namespace string) {
	e.t.Helper()
	crd := map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{"group": "example.com", "scope": "Namespaced", "names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}}
	if r := e.do("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd, admin); r.Code != 201 {
		e.t.Fatalf("crd: %d %s", r.Code, r.Body)
	}
	widgets := "/apis/example.com/v1/namespaces/" + namespace + "/widgets"
	e.eventually("the Widget kind served", func() bool { return e.do("GET", widgets, nil, admin).Code == 200 })
	if r := e.do("POST", widgets, map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}, "size": 3}, admin); r.Code != 201 {
		e.t.Fatalf("widget: %d %s", r.Code, r.Body)
	}
}

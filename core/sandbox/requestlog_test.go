package sandbox

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"kubeplay/core/apiserver"
	"kubeplay/core/requestlog"
	"kubeplay/core/web"
)

// TestWORK_3_RequestLogOfTheSandbox: every request the sandbox answers is
// in its log, kubectl's and its own controllers' alike, with the user
// authentication gave it (and who impersonated them), the client its
// User-Agent names, kube's verb and APF's priority level and flow schema;
// /debug/kubeplay/requests lists them filtered, shows one with its bodies,
// follows them as a stream, refuses a bad filter with 400, and is not
// itself logged.
func TestWORK_3_RequestLogOfTheSandbox(t *testing.T) {
	e := newEnv(t, Config{APIOnly: true})
	h := http.Header{"Authorization": {"Bearer kubeplay"}, "User-Agent": {"kubectl/v1.32.13 (linux/amd64) kubernetes/x"}, "Content-Type": {"application/json"}}
	if r := e.doH("POST", "/api/v1/namespaces/default/configmaps", map[string]any{"metadata": map[string]any{"name": "logged"}, "data": map[string]any{"a": "b"}}, h); r.Code != 201 {
		t.Fatalf("create: %d %s", r.Code, r.Body)
	}
	h2 := impersonating("alice")
	h2.Set("User-Agent", "kubectl/v1.32.13 (linux/amd64) kubernetes/x")
	if r := e.doH("GET", "/api/v1/namespaces/default/configmaps", nil, h2); r.Code != 403 {
		t.Fatalf("alice's list: %d %s", r.Code, r.Body)
	}

	r := e.do("GET", requestlog.Path+"?client=kubectl", nil, admin)
	var list struct{ Items []requestlog.Entry }
	if err := json.Unmarshal(r.Body, &list); err != nil || r.Code != 200 || len(list.Items) != 2 {
		t.Fatalf("kubectl's requests: %d %s", r.Code, r.Body)
	}
	created, refused := list.Items[0], list.Items[1]
	if created.User != "kubernetes-admin" || created.Verb != "create" || created.Code != 201 || created.Method != "POST" ||
		created.URI != "/api/v1/namespaces/default/configmaps" || created.PriorityLevel != "global-default" || created.FlowSchema != "global-default" ||
		created.Internal || !created.Bodies || created.RequestBytes == 0 || created.ResponseBytes == 0 {
		t.Errorf("the create: %+v", created)
	}
	if refused.User != "alice" || refused.ImpersonatedBy != "kubernetes-admin" || refused.Verb != "list" || refused.Code != 403 {
		t.Errorf("alice's refused list: %+v", refused)
	}

	r = e.do("GET", requestlog.Path+"/"+strconv.FormatInt(created.Seq, 10), nil, admin)
	var one struct {
		Entry        requestlog.Entry
		RequestBody  string
		ResponseBody string
	}
	if err := json.Unmarshal(r.Body, &one); err != nil || one.Entry.Seq != created.Seq || one.RequestBody != `{"data":{"a":"b"},"metadata":{"name":"logged"}}` ||
		!strings.Contains(one.ResponseBody, `"name":"logged"`) {
		t.Errorf("the create with its bodies: %s", r.Body)
	}

	// The sandbox's own controllers are logged too, as in-process callers.
	r = e.do("GET", requestlog.Path+"?code=2xx", nil, admin)
	if err := json.Unmarshal(r.Body, &list); err != nil {
		t.Fatal(err)
	}
	internal := false
	for _, it := range list.Items {
		internal = internal || it.Internal
		if it.Code/100 != 2 || requestlog.IsPath(strings.Split(it.URI, "?")[0]) {
			t.Errorf("code=2xx listed %+v", it)
		}
	}
	if !internal {
		t.Error("no request of the sandbox's own components is logged")
	}

	if r := e.do("GET", requestlog.Path+"?code=teapot", nil, admin); r.Code != 400 {
		t.Errorf("a bad code filter: %d %s", r.Code, r.Body)
	}
	if r := e.do("GET", requestlog.Path+"/999999", nil, admin); r.Code != 404 {
		t.Errorf("a request no longer in the log: %d %s", r.Code, r.Body)
	}
	if r := e.do("GET", requestlog.Path, nil, anonymous); r.Code != 403 {
		t.Errorf("anonymous reads the log: %d %s", r.Code, r.Body)
	}

	// A follower hears the kept entries, then what follows.
	req, _ := http.NewRequest("GET", e.hs.URL+requestlog.Path+"?watch=1&client=kubectl&timeoutSeconds=5", nil)
	req.Header.Set("Authorization", "Bearer kubeplay")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	lines := bufio.NewScanner(res.Body)
	for range 2 {
		lines.Scan()
	}
	e.doH("DELETE", "/api/v1/namespaces/default/configmaps/logged", nil, h)
	if !lines.Scan() {
		t.Fatal("the stream ended before the delete")
	}
	var ev requestlog.Event
	if err := json.Unmarshal(lines.Bytes(), &ev); err != nil || ev.Type != "ADDED" || ev.Object.Verb != "delete" || ev.Object.Code != 200 {
		t.Errorf("the delete followed: %s", lines.Bytes())
	}
}

// TestLEARN_1_PageKubectlsUserAgentIsTheRequests: the page's kubectl, whose
// fetch may not set User-Agent, sends its agent as X-Kubeplay-User-Agent;
// the sandbox logs the request with that agent (client kubectl, not the
// browser), and its handlers see it as the User-Agent and never the header.
// A request without the header keeps its own agent.
func TestLEARN_1_PageKubectlsUserAgentIsTheRequests(t *testing.T) {
	const kubectl = "kubectl/v1.32.13 (js/wasm) kubernetes/kubeplay"
	const chromium = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	seen := map[string]http.Header{} // path → the headers a handler saw
	var mu sync.Mutex
	record := func(next web.Handler) web.Handler {
		return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
			mu.Lock()
			seen[r.URL.Path] = r.Header.Clone()
			mu.Unlock()
			next.ServeHTTP(w, r)
		})
	}
	e := newEnv(t, Config{APIOnly: true, API: apiserver.Config{Filters: []apiserver.Filter{record}}})
	page := http.Header{"Authorization": {"Bearer kubeplay"}, "User-Agent": {chromium}, "X-Kubeplay-User-Agent": {kubectl}}
	if r := e.doH("GET", "/api/v1/namespaces/default/pods", nil, page); r.Code != 200 {
		t.Fatalf("kubectl's list: %d %s", r.Code, r.Body)
	}
	browser := http.Header{"Authorization": {"Bearer kubeplay"}, "User-Agent": {chromium}}
	if r := e.doH("GET", "/api/v1/namespaces/default/configmaps", nil, browser); r.Code != 200 {
		t.Fatalf("the page's own list: %d %s", r.Code, r.Body)
	}

	mu.Lock()
	pods, configmaps := seen["/api/v1/namespaces/default/pods"], seen["/api/v1/namespaces/default/configmaps"]
	mu.Unlock()
	if pods.Get("User-Agent") != kubectl || pods.Values("X-Kubeplay-User-Agent") != nil {
		t.Errorf("the handlers saw kubectl's request with %v", pods)
	}
	if configmaps.Get("User-Agent") != chromium {
		t.Errorf("the handlers saw the page's request with %v", configmaps)
	}

	r := e.do("GET", requestlog.Path, nil, admin)
	var list struct{ Items []requestlog.Entry }
	if err := json.Unmarshal(r.Body, &list); err != nil {
		t.Fatalf("the log: %d %s", r.Code, r.Body)
	}
	found := map[string]requestlog.Entry{}
	for _, it := range list.Items {
		if !it.Internal {
			found[it.URI] = it
		}
	}
	if it := found["/api/v1/namespaces/default/pods"]; it.UserAgent != kubectl || it.Client != "kubectl" {
		t.Errorf("kubectl's request is logged as %+v", it)
	}
	if it := found["/api/v1/namespaces/default/configmaps"]; it.UserAgent != chromium || it.Client != "browser" {
		t.Errorf("the page's own request is logged as %+v", it)
	}
}

package requestlog

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kubeplay/core/clock"
	"kubeplay/core/web"
)

// serve sends one request through l's filter to a handler that reads the
// body, takes took on the fake clock and answers code with answer.
func serve(l *Log, clk *clock.Fake, method, uri, ua, body string, code int, answer string, took time.Duration) {
	h := l.Filter(web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		if e := From(r.Context()); e != nil {
			e.User = "alice"
		}
		_, _ = io.ReadAll(r.Body)
		clk.Step(took)
		w.WriteHeader(code)
		_, _ = io.WriteString(w, answer)
	}))
	r := httptest.NewRequest(method, uri, strings.NewReader(body))
	r.Header.Set("User-Agent", ua)
	h.ServeHTTP(httptest.NewRecorder(), r)
}

// TestWORK_3_RequestLogKeepsRecentRequests: each answered request is an
// entry (arrival, user, client, method, URI, code, latency, bytes each way)
// with its bodies; the ring keeps the newest size entries, the bodies of the
// newest within the budget, each body cut at BodyCap.
func TestWORK_3_RequestLogKeepsRecentRequests(t *testing.T) {
	clk := clock.NewFake(time.Unix(1700000000, 0))
	l := New(clk, 3, 2*BodyCap+10, func(p string) bool { return p == "/skip" })
	serve(l, clk, "POST", "/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create", "kubectl/v1.32.13 (linux/amd64) kubernetes/x",
		`{"metadata":{"name":"a"}}`, 201, `{"kind":"ConfigMap"}`, 3*time.Millisecond)
	serve(l, clk, "GET", "/skip", "curl/8", "", 200, "x", 0)
	got, _ := l.List(nil, 0)
	if len(got) != 1 {
		t.Fatalf("entries %+v", got)
	}
	e := got[0]
	if e.Seq != 1 || e.User != "alice" || e.Client != "kubectl" || e.Method != "POST" || e.Code != 201 || e.LatencyMicros != 3000 ||
		e.RequestBytes != 25 || e.ResponseBytes != 20 || !e.Bodies || e.URI != "/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create" ||
		!e.Time.Equal(time.Unix(1700000000, 0)) {
		t.Errorf("entry %+v", e)
	}
	if _, b, ok := l.Get(1); !ok || string(b.Request) != `{"metadata":{"name":"a"}}` || string(b.Response) != `{"kind":"ConfigMap"}` || b.RequestTruncated || b.ResponseTruncated {
		t.Errorf("bodies %q %q", b.Request, b.Response)
	}

	big := strings.Repeat("x", BodyCap+100)
	serve(l, clk, "PUT", "/big", "curl/8", big, 200, big, 0)
	if _, b, _ := l.Get(2); len(b.Request) != BodyCap || len(b.Response) != BodyCap || !b.RequestTruncated || !b.ResponseTruncated {
		t.Errorf("a big entry's bodies: %d %d %v %v", len(b.Request), len(b.Response), b.RequestTruncated, b.ResponseTruncated)
	}
	if e, _, _ := l.Get(2); e.RequestBytes != int64(len(big)) || e.ResponseBytes != int64(len(big)) {
		t.Errorf("a big entry counts all its bytes: %+v", e)
	}
	// Past the budget the oldest bodies go; past the size, the oldest entries.
	serve(l, clk, "PUT", "/small", "curl/8", "abc", 200, "def", 0)
	if e, _, _ := l.Get(1); e.Bodies {
		t.Errorf("the oldest entry kept its bodies past the budget: %+v", e)
	}
	if _, b, _ := l.Get(3); string(b.Request) != "abc" {
		t.Errorf("the newest entry's bodies: %q", b.Request)
	}
	serve(l, clk, "DELETE", "/last", "curl/8", "", 200, "", 0)
	var seqs []int64
	list, _ := l.List(nil, 0)
	for _, e := range list {
		seqs = append(seqs, e.Seq)
	}
	if len(seqs) != 3 || seqs[0] != 2 || seqs[2] != 4 {
		t.Errorf("kept %v, want the newest three", seqs)
	}
	if _, _, ok := l.Get(1); ok {
		t.Error("an entry past the ring is still there")
	}
}

// TestWORK_3_RequestLogFollowers: a follower hears the kept entries (when it
// asks for a replay), then each one added; a long-running answer is ADDED
// (open) when it is first flushed and MODIFIED when it ends; a follower too
// far behind is cut off, never waited for.
func TestWORK_3_RequestLogFollowers(t *testing.T) {
	clk := clock.NewFake(time.Unix(1700000000, 0))
	l := New(clk, 0, 0, nil)
	serve(l, clk, "GET", "/a", "kubectl/v1.32.13", "", 200, "a", 0)
	f := l.Follow(func(e Entry) bool { return e.Client == "kubectl" }, true)
	defer f.Stop()
	if ev := <-f.Events(); ev.Type != "ADDED" || ev.Object.URI != "/a" {
		t.Fatalf("replayed %+v", ev)
	}
	serve(l, clk, "GET", "/b", "curl/8", "", 200, "b", 0) // not followed

	flushed := make(chan struct{})
	finish := make(chan struct{})
	h := l.Filter(web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		w.WriteHeader(200)
		_ = web.Flush(w)
		close(flushed)
		<-finish
		clk.Step(2 * time.Second)
		_, _ = io.WriteString(w, `{"type":"ADDED"}`)
	}))
	r := httptest.NewRequest("GET", "/api/v1/pods?watch=1", nil)
	r.Header.Set("User-Agent", "kubectl/v1.32.13")
	done := make(chan struct{})
	go func() { h.ServeHTTP(httptest.NewRecorder(), r); close(done) }()
	<-flushed
	if ev := <-f.Events(); ev.Type != "ADDED" || !ev.Object.Open || ev.Object.Code != 200 || ev.Object.URI != "/api/v1/pods?watch=1" {
		t.Fatalf("a watch's start: %+v", ev)
	}
	_, openedAt := l.List(nil, 0)
	close(finish)
	<-done
	// A poller asking what changed since the answer opened hears it end.
	if changed, _ := l.List(nil, openedAt); len(changed) != 1 || changed[0].Open || changed[0].URI != "/api/v1/pods?watch=1" {
		t.Errorf("changed since the watch opened: %+v", changed)
	}
	if ev := <-f.Events(); ev.Type != "MODIFIED" || ev.Object.Open || ev.Object.LatencyMicros != 2e6 || ev.Object.ResponseBytes != 16 {
		t.Fatalf("a watch's end: %+v", ev)
	}

	slow := l.Follow(nil, false)
	for range followBuffer + 1 {
		serve(l, clk, "GET", "/c", "curl/8", "", 200, "", 0)
	}
	n := 0
	for range slow.Events() {
		n++
	}
	if n != followBuffer {
		t.Errorf("a follower that fell behind heard %d events before it was cut off, want %d", n, followBuffer)
	}
}

// TestWORK_3_ClientOf names clients from their User-Agent.
func TestWORK_3_ClientOf(t *testing.T) {
	for ua, want := range map[string]string{
		"kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07":                                "kubectl",
		"kubectl-dispatcher/v1.32.4 (linux/amd64) kubernetes/4cb5f07":                     "kubectl",
		"kube-controller-manager/v1.32.13 (kubeplay) replicaset-controller":               "replicaset-controller",
		"kube-apiserver/v1.32.13 (kubeplay) apf":                                          "apf",
		"kube-apiserver/v1.32.13 (kubeplay)":                                              "kube-apiserver",
		"kubelet/v1.32.13 (linux/amd64) kubernetes/kubeplay":                              "kubelet",
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/1": "browser",
		"curl/8.5.0":                      "curl",
		"e2e.test/v1.32.13 (linux/amd64)": "e2e.test",
		"":                                "unknown",
	} {
		if got := ClientOf(ua); got != want {
			t.Errorf("ClientOf(%q) = %q, want %q", ua, got, want)
		}
	}
}

// TestWORK_3_RequestLogPassesFlushes: a streamed answer still reaches the
// client as it is flushed through the log's writer.
func TestWORK_3_RequestLogPassesFlushes(t *testing.T) {
	l := New(clock.Real, 0, 0, nil)
	h := l.Filter(web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		_, _ = io.WriteString(w, "line\n")
		if err := web.Flush(w); err != nil {
			t.Error(err)
		}
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", bytes.NewReader(nil)))
	if !rec.Flushed || rec.Code != http.StatusOK || rec.Body.String() != "line\n" {
		t.Errorf("flushed %v, %d %q", rec.Flushed, rec.Code, rec.Body)
	}
}

// TestWORK_2_FailuresAreClientsLastErrors: the last n answers of 400 or more
// from clients, oldest first, with their Status's message; the sandbox's own
// components' failures and successes are not among them.
func TestWORK_2_FailuresAreClientsLastErrors(t *testing.T) {
	clk := clock.NewFake(time.Unix(1700000000, 0))
	l := New(clk, 0, 0, nil)
	forbidden := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods is forbidden: no","reason":"Forbidden","code":403}`
	serve(l, clk, "GET", "/api/v1/namespaces/default/pods/a", "kubectl/v1.32.13", "", 404, `{"kind":"Status","message":"pods \"a\" not found","code":404}`, 0)
	serve(l, clk, "POST", "/api/v1/namespaces/default/pods", "kubectl/v1.32.13", "{}", 403, forbidden, 0)
	serve(l, clk, "GET", "/api/v1/namespaces", "kubectl/v1.32.13", "", 200, `{}`, 0)
	serve(l, clk, "DELETE", "/x", "curl/8", "", 500, "not json", 0)
	h := l.Filter(web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		From(r.Context()).Internal = true
		w.WriteHeader(409)
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("PUT", "/apis/apps/v1/namespaces/default/replicasets/r", nil))

	got := l.Failures(2)
	if len(got) != 2 {
		t.Fatalf("failures %+v", got)
	}
	if f := got[0]; f.Code != 403 || f.Verb != "post" || f.URI != "/api/v1/namespaces/default/pods" || f.User != "alice" || f.Message != "pods is forbidden: no" ||
		!f.Time.Equal(time.Unix(1700000000, 0)) {
		t.Errorf("first %+v", f)
	}
	if f := got[1]; f.Code != 500 || f.Verb != "delete" || f.Message != "" {
		t.Errorf("second %+v", f)
	}
	if all := l.Failures(10); len(all) != 3 || all[0].Code != 404 || all[0].Message != `pods "a" not found` {
		t.Errorf("all %+v", all)
	}
}

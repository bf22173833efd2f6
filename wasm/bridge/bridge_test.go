//go:build js && wasm

package bridge

import (
	"encoding/json"
	"fmt"
	"sync"
	"syscall/js"
	"testing"

	"kubeplay/core/web"
	"kubeplay/wasm/jsio"
)

// These run under GOOS=js in Node (make wasm-check): the binding as a host
// (sw.js, edge/sandbox.mjs) calls it, from JavaScript values to JavaScript values.

// handle calls h's binding with a header block and no body and awaits its answer.
func handle(t *testing.T, h web.Handler, method, url, headers string) js.Value {
	t.Helper()
	f := Handler(h)
	defer f.Release()
	res, err := jsio.Await(f.Invoke(method, url, headers, js.Null()))
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return res
}

// answerHeaders parses an answer's headers (JSON text of [[name, value], ...]).
func answerHeaders(t *testing.T, res js.Value) map[string][]string {
	t.Helper()
	var pairs [][2]string
	if err := json.Unmarshal([]byte(res.Get("headers").String()), &pairs); err != nil {
		t.Fatalf("headers %q: %v", res.Get("headers").String(), err)
	}
	out := map[string][]string{}
	for _, kv := range pairs {
		out[kv[0]] = append(out[kv[0]], kv[1])
	}
	return out
}

func TestWholeAnswerComesAsBytesWithItsHeaders(t *testing.T) {
	h := web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		seen, _ := json.Marshal(map[string]any{"header": r.Header, "host": r.Host, "path": r.URL.Path})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Add("X-Many", "1")
		w.Header().Add("X-Many", "2")
		w.Header().Set("X-Colon", "a: b")
		w.WriteHeader(web.StatusCreated)
		_, _ = w.Write(seen)
		w.Header().Set("X-Late", "not sent") // after the status, as net/http
	})
	res := handle(t, h, "POST", "https://example.test:8443/api?x=1",
		"content-type: application/json\r\nx-many: 1\r\nx-many: 2\r\nx-colon: a: b\r\nx-empty: \r\n")
	if got := res.Get("status").Int(); got != web.StatusCreated {
		t.Errorf("status %d", got)
	}
	body := res.Get("body")
	if !body.InstanceOf(js.Global().Get("Uint8Array")) {
		t.Fatalf("a whole answer's body is %s, not a Uint8Array", body.Type())
	}
	var seen struct {
		Header map[string][]string
		Host   string
		Path   string
	}
	if err := json.Unmarshal(jsio.BytesFromJS(body), &seen); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"Content-Type": {"application/json"}, "X-Many": {"1", "2"}, "X-Colon": {"a: b"}, "X-Empty": {""}}
	if fmt.Sprint(seen.Header) != fmt.Sprint(want) || seen.Host != "example.test:8443" || seen.Path != "/api" {
		t.Errorf("the handler saw %+v, want header %v at example.test:8443/api", seen, want)
	}
	got := answerHeaders(t, res)
	if fmt.Sprint(got) != fmt.Sprint(map[string][]string{"Content-Type": {"application/json"}, "X-Many": {"1", "2"}, "X-Colon": {"a: b"}}) {
		t.Errorf("answer headers %v", got)
	}
}

func TestEmptyAnswerHasNoBody(t *testing.T) {
	res := handle(t, web.HandlerFunc(func(w web.ResponseWriter, _ *web.Request) {
		w.WriteHeader(204)
	}), "DELETE", "https://h/x", "")
	if res.Get("status").Int() != 204 || !res.Get("body").IsNull() {
		t.Errorf("status %d body %s", res.Get("status").Int(), res.Get("body").Type())
	}
	if res.Get("headers").String() != "[]" {
		t.Errorf("headers %s", res.Get("headers").String())
	}
}

func TestFlushedAnswerStreamsAndCancelEndsTheRequest(t *testing.T) {
	ended := make(chan struct{})
	h := web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		_, _ = w.Write([]byte("first"))
		w.(web.Flusher).Flush()
		<-r.Context().Done()
		close(ended)
	})
	res := handle(t, h, "GET", "https://h/watch", "")
	body := res.Get("body")
	if !body.InstanceOf(js.Global().Get("ReadableStream")) {
		t.Fatalf("a flushed answer's body is %s, not a ReadableStream", body.Type())
	}
	reader := body.Call("getReader")
	chunk, err := jsio.Await(reader.Call("read"))
	if err != nil || string(jsio.BytesFromJS(chunk.Get("value"))) != "first" {
		t.Fatalf("first chunk %v, %v", chunk, err)
	}
	if _, err := jsio.Await(reader.Call("cancel")); err != nil {
		t.Fatal(err)
	}
	<-ended
}

func TestOverlappingRequestsAllAnswered(t *testing.T) {
	release := make(chan struct{})
	h := web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		if r.URL.Query().Get("wait") != "" {
			<-release
		}
		_, _ = w.Write([]byte(r.URL.Query().Get("n")))
	})
	f := Handler(h)
	defer f.Release()
	// More at once than goroutines wait for work, then more after they finished.
	for round := range 2 {
		var wg sync.WaitGroup
		for i := range 3 * maxIdleServers {
			wg.Add(1)
			promise := f.Invoke("GET", fmt.Sprintf("https://h/?wait=1&n=%d", i), "", js.Null())
			go func() {
				defer wg.Done()
				res, err := jsio.Await(promise)
				if err != nil || string(jsio.BytesFromJS(res.Get("body"))) != fmt.Sprint(i) {
					t.Errorf("round %d request %d: %v %v", round, i, res, err)
				}
			}()
		}
		close(release)
		wg.Wait()
		release = make(chan struct{})
	}
}

func TestBadCallsAndPanicsAnswerAsAServerWould(t *testing.T) {
	f := Handler(web.HandlerFunc(func(web.ResponseWriter, *web.Request) { panic("boom") }))
	defer f.Release()
	if _, err := jsio.Await(f.Invoke("GET", "https://h/", js.ValueOf([]any{}), js.Null())); err == nil {
		t.Error("headers that are not a header block: want a rejection")
	}
	res, err := jsio.Await(f.Invoke("GET", "https://h/", "", js.Null()))
	if err != nil {
		t.Fatal(err)
	}
	var status map[string]any
	_ = json.Unmarshal(jsio.BytesFromJS(res.Get("body")), &status)
	if res.Get("status").Int() != 500 || status["reason"] != "InternalError" {
		t.Errorf("a panic answered %d %v", res.Get("status").Int(), status)
	}
	res, err = jsio.Await(f.Invoke("GET", "https://h/api/%zz", "", js.Null()))
	if err != nil || res.Get("status").Int() != 400 || string(jsio.BytesFromJS(res.Get("body"))) != "400 Bad Request" {
		t.Errorf("an unparsable path answered %v %v", res, err)
	}
}

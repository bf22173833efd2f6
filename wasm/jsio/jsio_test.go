//go:build js && wasm

package jsio

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"syscall/js"
	"testing"

	"kubeplay/core/web"
)

// These run under GOOS=js in Node (make wasm-check): Fetch over JavaScript
// functions as the page's kubectl module calls the page's fetch.

// fetchFunc is a JavaScript fetch-like function answering with answer(args).
func fetchFunc(t *testing.T, answer func(args []js.Value) js.Value) js.Value {
	f := js.FuncOf(func(_ js.Value, args []js.Value) any { return answer(args) })
	t.Cleanup(f.Release)
	return f.Value
}

func roundTrip(t *testing.T, h web.Handler, ctx context.Context, header [][2]string, body string) *web.Response {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	r, err := web.NewRequest(ctx, "POST", "http://kubeplay.test/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range header {
		r.Header.Add(kv[0], kv[1])
	}
	return web.RoundTrip(h, r, cancel)
}

func TestLEARN_1_FetchSendsTheRequestAndReadsAWholeAnswer(t *testing.T) {
	var seen []string
	fn := fetchFunc(t, func(args []js.Value) js.Value {
		seen = []string{args[0].String(), args[1].String(), args[2].String(), string(BytesFromJS(args[3])), fmt.Sprint(args[4].Get("aborted").Bool())}
		res := js.Global().Get("Object").New()
		res.Set("status", 201)
		res.Set("headers", `[["Content-Type","application/json"],["Warning","299 - \"a\""],["Warning","299 - \"b\""]]`)
		res.Set("body", BytesToJS([]byte(`{"kind":"ConfigMap"}`)))
		return jsPromise.Call("resolve", res)
	})
	resp := roundTrip(t, Fetch(fn), context.Background(), [][2]string{{"Content-Type", "application/json"}}, `{"x":1}`)
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := []string{"POST", "http://kubeplay.test/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create", "Content-Type: application/json\r\n", `{"x":1}`, "false"}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("the function was called with %q, want %q", seen, want)
	}
	if resp.Code != 201 || string(data) != `{"kind":"ConfigMap"}` || len(resp.Header.Values("Warning")) != 2 {
		t.Errorf("answer %d %v %q", resp.Code, resp.Header, data)
	}
}

func TestLEARN_1_FetchStreamsAndAbortsTheJavaScriptSideWhenTheRequestEnds(t *testing.T) {
	var signal, controller js.Value
	start := js.FuncOf(func(_ js.Value, args []js.Value) any {
		controller = args[0]
		controller.Call("enqueue", BytesToJS([]byte("first\n")))
		return nil
	})
	defer start.Release()
	fn := fetchFunc(t, func(args []js.Value) js.Value {
		signal = args[4]
		source := js.Global().Get("Object").New()
		source.Set("start", start)
		res := js.Global().Get("Object").New()
		res.Set("status", 200)
		res.Set("headers", `[]`)
		res.Set("body", js.Global().Get("ReadableStream").New(source))
		return jsPromise.Call("resolve", res)
	})
	ctx, cancel := context.WithCancel(context.Background())
	resp := roundTrip(t, Fetch(fn), ctx, nil, "")
	buf := make([]byte, 6)
	if _, err := io.ReadFull(resp.Body, buf); err != nil || string(buf) != "first\n" {
		t.Fatalf("the stream's first chunk: %q %v", buf, err)
	}
	if signal.Get("aborted").Bool() {
		t.Fatal("aborted while the request goes on")
	}
	cancel() // Ctrl-C
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Fatalf("the stream ends: %v", err)
	}
	resp.Body.Close()
	if !signal.Get("aborted").Bool() {
		t.Error("the request ended and the JavaScript side's signal was not aborted")
	}
}

func TestLEARN_1_FetchThatFailsIsA503Status(t *testing.T) {
	fn := fetchFunc(t, func([]js.Value) js.Value {
		return jsPromise.Call("reject", Error.New("Failed to fetch"))
	})
	resp := roundTrip(t, Fetch(fn), context.Background(), nil, "")
	data, _ := io.ReadAll(resp.Body)
	var status struct{ Reason, Message string }
	_ = json.Unmarshal(data, &status)
	if resp.Code != 503 || status.Reason != "ServiceUnavailable" || status.Message != "Failed to fetch" {
		t.Errorf("a failed fetch: %d %s", resp.Code, data)
	}
	if resp.Header.Get(web.HeaderTransportError) == "" {
		t.Errorf("a failed fetch's 503 is not marked as no server's answer (%s)", web.HeaderTransportError)
	}
}

func TestLEARN_1_FetchSendsTheUserAgentAsKubeplaysHeader(t *testing.T) {
	var headers string
	fn := fetchFunc(t, func(args []js.Value) js.Value {
		headers = args[2].String()
		res := js.Global().Get("Object").New()
		res.Set("status", 200)
		res.Set("headers", `[]`)
		return jsPromise.Call("resolve", res)
	})
	resp := roundTrip(t, Fetch(fn), context.Background(), [][2]string{{"User-Agent", "kubectl/v1.32.13 (js/wasm) kubernetes/kubeplay"}}, "")
	resp.Body.Close()
	if want := "X-Kubeplay-User-Agent: kubectl/v1.32.13 (js/wasm) kubernetes/kubeplay\r\n"; headers != want {
		t.Errorf("the function was sent the headers %q, want %q", headers, want)
	}
}

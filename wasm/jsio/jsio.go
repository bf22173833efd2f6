//go:build js && wasm

// Package jsio is what Go modules and their JavaScript hosts exchange, and
// nothing heavier: promises (made and awaited), bytes, and a web.Handler over
// a JavaScript fetch-like function. The page's kubectl module uses it without
// the bridge's store and persistence (package bridge), which it has no use for.
package jsio

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall/js"

	"kubeplay/core/web"
)

// JavaScript constructors used on every request, looked up once: each js.Value
// Go receives costs a finalizer, a large part of what a crossing costs.
var (
	Object            = js.Global().Get("Object")
	ReadableStream    = js.Global().Get("ReadableStream")
	Error             = js.Global().Get("Error")
	jsUint8Array      = js.Global().Get("Uint8Array")
	jsPromise         = js.Global().Get("Promise")
	jsAbortController = js.Global().Get("AbortController")
)

// Await blocks the calling goroutine until promise settles. It must not run on
// the goroutine of a JavaScript callback.
func Await(promise js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	done := make(chan result, 1)
	var onOK, onErr js.Func
	onOK = js.FuncOf(func(_ js.Value, args []js.Value) any {
		var v js.Value
		if len(args) > 0 {
			v = args[0]
		}
		done <- result{v: v}
		return nil
	})
	onErr = js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := "promise rejected"
		if len(args) > 0 {
			msg = String(args[0])
		}
		done <- result{err: errors.New(msg)}
		return nil
	})
	promise.Call("then", onOK, onErr)
	r := <-done
	onOK.Release()
	onErr.Release()
	return r.v, r.err
}

// String is v as text: a string itself, an Error's message, or its toString.
func String(v js.Value) string {
	if v.Type() == js.TypeString {
		return v.String()
	}
	if s := v.Get("message"); s.Type() == js.TypeString {
		return s.String()
	}
	return v.Call("toString").String()
}

// BytesFromJS copies a Uint8Array into Go.
func BytesFromJS(v js.Value) []byte {
	if v.IsUndefined() || v.IsNull() {
		return nil
	}
	b := make([]byte, v.Get("byteLength").Int())
	js.CopyBytesToGo(b, v)
	return b
}

// BytesToJS copies b into a new Uint8Array.
func BytesToJS(b []byte) js.Value {
	a := jsUint8Array.New(len(b))
	js.CopyBytesToJS(a, b)
	return a
}

// executor is every promise's executor: the Promise constructor calls it
// before it returns, so NewPromise finds its functions here.
var (
	executor                        = js.FuncOf(takeResolvers)
	executorResolve, executorReject js.Value
)

func takeResolvers(_ js.Value, args []js.Value) any {
	executorResolve, executorReject = args[0], args[1]
	return nil
}

// NewPromise returns a JavaScript promise and its resolve and reject functions.
func NewPromise() (promise, resolve, reject js.Value) {
	promise = jsPromise.New(executor)
	return promise, executorResolve, executorReject
}

// StatusBody is a metav1.Status failure's JSON, as kube-apiserver writes it.
func StatusBody(code int, reason, message string) []byte {
	body, _ := json.Marshal(map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": message, "reason": reason, "code": code})
	return body
}

// Fetch is a web.Handler over a JavaScript function that answers as Handler's
// does: fn(method, url, headers, body, signal) takes the header block
// ("name: value\r\n" each) and the body (a Uint8Array or null) and returns a
// Promise of {status, headers (the JSON text of [[name, value], ...]), body
// (a Uint8Array, a ReadableStream or null)}. signal is an AbortSignal, aborted
// when the request's context ends (Ctrl-C in the page's kubectl, a client
// gone): a fetch underneath ends with it, before or after its answer came.
// A promise that fails is a 503 Status with its message, as the hosts answer
// when a module cannot serve. ServeHTTP must not run on the goroutine of a
// JavaScript callback. The request's User-Agent goes as web.UserAgentHeader
// (X-Kubeplay-User-Agent), which the core makes the User-Agent again: a
// page's fetch may not set User-Agent (Chromium drops it and sends the
// browser's), and the page's kubectl should be seen as kubectl.
func Fetch(fn js.Value) web.Handler {
	return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		var headers strings.Builder
		for name, values := range r.Header {
			if name == "User-Agent" {
				name = web.UserAgentHeader // a page's fetch may not set User-Agent
			}
			for _, v := range values {
				fmt.Fprintf(&headers, "%s: %s\r\n", name, v)
			}
		}
		body := js.Null()
		if data, err := io.ReadAll(r.Body); err == nil && len(data) > 0 {
			body = BytesToJS(data)
		}
		abort := jsAbortController.New()
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			select {
			case <-r.Context().Done():
				abort.Call("abort")
			case <-stop:
			}
		}()
		res, err := Await(fn.Invoke(r.Method, r.URL.String(), headers.String(), body, abort.Get("signal")))
		if err != nil {
			failed(w, err)
			return
		}
		var pairs [][2]string
		_ = json.Unmarshal([]byte(res.Get("headers").String()), &pairs)
		for _, p := range pairs {
			w.Header().Add(p[0], p[1])
		}
		w.WriteHeader(res.Get("status").Int())
		b := res.Get("body")
		if b.IsNull() || b.IsUndefined() {
			return
		}
		if !b.InstanceOf(ReadableStream) {
			_, _ = w.Write(BytesFromJS(b))
			return
		}
		// A stream that is not a fetch's (a module's handle) knows nothing of
		// the signal: cancelling its reader ends it.
		reader := b.Call("getReader")
		go func() {
			select {
			case <-r.Context().Done():
				reader.Call("cancel")
			case <-stop:
			}
		}()
		for {
			chunk, err := Await(reader.Call("read"))
			if err != nil || chunk.Get("done").Bool() {
				return
			}
			if _, err := w.Write(BytesFromJS(chunk.Get("value"))); err != nil {
				reader.Call("cancel")
				return
			}
			_ = web.Flush(w)
		}
	})
}

// failed answers a request whose JavaScript side failed: 503
// ServiceUnavailable, a Status with err's message, marked as no server's
// answer (web.HeaderTransportError).
func failed(w web.ResponseWriter, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(web.HeaderTransportError, "1")
	w.WriteHeader(web.StatusServiceUnavailable)
	_, _ = w.Write(StatusBody(web.StatusServiceUnavailable, "ServiceUnavailable", err.Error()))
}

// Async runs fn on its own goroutine and returns a Promise of its result, which
// must be a value js.ValueOf accepts.
func Async(fn func() (any, error)) js.Value {
	promise, resolve, reject := NewPromise()
	go func() {
		v, err := fn()
		if err != nil {
			reject.Invoke(Error.New(err.Error()))
			return
		}
		resolve.Invoke(js.ValueOf(v))
	}()
	return promise
}

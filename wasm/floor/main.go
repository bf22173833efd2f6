//go:build js && wasm

// Command floor is the benchmark floor for the browser host: an empty Go wasm
// (no core) exposing the same kubeplay.start/stop/handle binding to the same
// service worker. Cold start and request cost are measured against it. Built with
// -tags linked (linked.go) it also carries the core without starting it.
package main

import "syscall/js"

func main() {
	resolved := func(v any) js.Value { return js.Global().Get("Promise").Call("resolve", v) }
	api := js.Global().Get("Object").New()
	api.Set("start", js.FuncOf(func(js.Value, []js.Value) any {
		return resolved(map[string]any{"revision": 0, "restoreErrors": []any{}})
	}))
	api.Set("stop", js.FuncOf(func(js.Value, []js.Value) any { return resolved(nil) }))
	api.Set("handle", js.FuncOf(func(js.Value, []js.Value) any {
		return resolved(map[string]any{"status": 200, "headers": `[["Content-Type","application/json"]]`, "body": "{}\n"})
	}))
	js.Global().Set("kubeplay", api)
	if ready := js.Global().Get("kubeplayReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

//go:build js && wasm && linked

package main

import (
	"syscall/js"

	"kubeplay/core/sandbox"
	"kubeplay/wasm/bridge"
)

// Built with -tags linked, the floor also carries the core: all its code and
// dependencies are linked and their packages initialized, but no server starts.
// Its cold start is what the browser pays for the core's size alone.
func init() {
	// Never true; the branch only keeps the core linked.
	if js.Global().Get("kubeplayFloorStartsCore").Truthy() {
		s, _ := sandbox.New(sandbox.Config{})
		bridge.Handler(s)
	}
}

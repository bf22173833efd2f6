//go:build js && wasm

// Command floor is the smallest Go Worker built with github.com/syumai/workers:
// it answers every request with a fixed text. The edge benchmarks compare a new
// sandbox's first request with this Worker's first request in the same workerd.
package main

import (
	"net/http"

	"github.com/syumai/workers"
)

func main() {
	workers.Serve(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok\n"))
	}))
}

//go:build js && wasm

// Command front is the edge's control plane, in Go on
// github.com/syumai/workers: it creates sandboxes and holds no state of its own.
//
//	POST /sandboxes          create one sandbox (limited per caller)
//	POST /workshops          create N sandboxes for an instructor token
//
// It runs inside the front Worker, whose entry (front.mjs, beside it) hands it
// only these two paths: workers.Serve starts one Go instance per request, which
// suits requests this rare and nothing else. The front Worker itself routes
// /s/{id}/... to the sandbox's Durable Object (edge/sandbox/sandbox.mjs, which
// hosts the core and checks the sandbox's token) and serves the playground.
package main

import (
	"net/http"

	"github.com/syumai/workers"
)

func main() {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /sandboxes", createSandbox)
	mux.HandleFunc("POST /workshops", createWorkshop)
	mux.HandleFunc("/sandboxes", methodNotAllowed)
	mux.HandleFunc("/workshops", methodNotAllowed)
	workers.Serve(mux)
}

//go:build js && wasm

// Command edgefront is kubeplay's front Worker on Cloudflare Workers, built with
// github.com/syumai/workers. It owns sandbox lifecycle and routing and holds no
// state of its own:
//
//	POST /sandboxes          create one sandbox (limited per caller)
//	POST /workshops          create N sandboxes for an instructor token
//	/s/{id}/...              the sandbox's Durable Object, prefix stripped
//	everything else          the playground's static assets
//
// Each sandbox is one Durable Object (edge/sandbox.mjs) that hosts the core and
// checks the sandbox's bearer token; this Worker answers what it can decide
// without waking one: unknown ids, missing tokens and oversize bodies.
package main

import (
	"net/http"

	"github.com/syumai/workers"
)

func main() {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /sandboxes", createSandbox)
	mux.HandleFunc("POST /workshops", createWorkshop)
	mux.HandleFunc("/s/{id}", forwardToSandbox)
	mux.HandleFunc("/s/{id}/{rest...}", forwardToSandbox)
	mux.HandleFunc("/sandboxes", methodNotAllowed)
	mux.HandleFunc("/workshops", methodNotAllowed)
	mux.HandleFunc("/", serveAsset)
	workers.Serve(mux)
}

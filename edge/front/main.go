//go:build js && wasm

// Command front is the edge's control plane, in Go on
// github.com/syumai/workers: the workshop control protocol (internal/control)
// over the sandboxes' Durable Objects; it holds no state of its own.
//
//	POST /sandboxes          create one sandbox (limited per caller; the instructor's are not)
//	POST /workshops          create N sandboxes for the instructor token (INSTRUCTOR_TOKEN)
//	GET  /sandboxes[/credentials], POST /sandboxes/{id}/reset|token, DELETE /sandboxes/{id}
//	                         the instructor's view (WORK-2, fleet.go)
//
// It runs inside the front Worker, whose entry (front.mjs, beside it) hands it
// only the protocol's paths: workers.Serve starts one Go instance per request,
// which suits requests this rare and nothing else. The front Worker itself
// routes /s/{id}/... to the sandbox's Durable Object (edge/sandbox/sandbox.mjs,
// which hosts the core and checks the sandbox's token) and serves the
// playground.
package main

import (
	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"

	"kubeplay/internal/control"
)

func main() {
	workers.Serve(&control.Handler{
		Fleet:           fleet{},
		InstructorToken: func() string { return cloudflare.Getenv("INSTRUCTOR_TOKEN") },
		Admit:           takeCreationAllowance,
	})
}

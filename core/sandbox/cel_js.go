//go:build js && !cel

package sandbox

import "kubeplay/core/api"

// hostCEL is the sandbox's CEL: in the browser's js/wasm core only the one
// the host gives (the CEL module's, loaded on first use: cel-go does not fit
// kubeplay.wasm's budget); the edge's core is built with -tags cel and links
// core/cel (cel.go).
func hostCEL(c api.CEL) api.CEL { return c }

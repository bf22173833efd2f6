//go:build js

package sandbox

import "kubeplay/core/api"

// hostCEL is the sandbox's CEL: in js/wasm only the one the host gives (the
// CEL module's, loaded on first use: cel-go does not fit kubeplay.wasm's
// budget).
func hostCEL(c api.CEL) api.CEL { return c }

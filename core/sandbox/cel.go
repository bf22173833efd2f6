//go:build !js

package sandbox

import (
	"kubeplay/core/api"
	"kubeplay/core/cel"
)

// hostCEL is the sandbox's CEL: c, else core/cel's, linked in.
func hostCEL(c api.CEL) api.CEL {
	if c == nil {
		return cel.NewEvaluator()
	}
	return c
}

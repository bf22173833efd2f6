//go:build !js

package sandbox

import (
	"kubeplay/core/api"
	"kubeplay/core/cel/celapi"
)

// hostCEL is the sandbox's CEL: c, else core/cel's, linked in.
func hostCEL(c api.CEL) api.CEL {
	if c == nil {
		return celapi.New()
	}
	return c
}

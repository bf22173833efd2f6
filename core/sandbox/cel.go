//go:build !js || cel

package sandbox

import (
	"kubeplay/core/api"
	"kubeplay/core/cel/celapi"
)

// hostCEL is the sandbox's CEL: c, else core/cel's, linked in (natively, and
// in the edge's core, built with -tags cel).
func hostCEL(c api.CEL) api.CEL {
	if c == nil {
		return celapi.New()
	}
	return c
}

//go:build js && wasm

// Command vap is the browser's CEL module for ValidatingAdmissionPolicies
// (kubeplay-vap.wasm): their expressions compiled and evaluated as
// kube-apiserver does (core/cel, on cel-go), a Go instance beside the core,
// loaded on the first policy written or matched. The core's policy plugin
// (core/registry: which policies and bindings match, parameters, actions,
// failure policy, the denial) asks it through wasm/bridge's RemoteCEL, one
// call a policy and binding that matched a request:
// kubeplayVAP.call(fn, requestJSON, authorize) (wasm/celjs), fn
// evaluatePolicy or checkPolicy (core/cel/celmodule's Policies); the
// authorizer library's checks go back to the core's authorizer through
// authorize. CustomResourceDefinitions' rules are wasm/cel's: the two do not
// fit one module's budget.
//
// It links core/cel alone of kubeplay (not core/api nor wasm/bridge) to
// keep within its download budget.
package main

import (
	"kubeplay/core/cel/celmodule"
	"kubeplay/wasm/celjs"
)

func main() { celjs.Serve("kubeplayVAP", celmodule.Policies()) }

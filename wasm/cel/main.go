//go:build js && wasm

// Command cel is the browser's CEL module for CustomResourceDefinitions
// (kubeplay-cel.wasm): the Common Expression Language as kube-apiserver
// evaluates it (core/cel, on cel-go), a Go instance beside the core, loaded
// on the first definition or custom resource that has
// x-kubernetes-validations rules, so cel-go costs the core's download
// nothing. The core asks it through wasm/bridge's RemoteCEL, one call a
// request: kubeplayCEL.call(fn, requestJSON) (wasm/celjs), fn checkRules or
// validateCustom (core/cel/celmodule's Rules). ValidatingAdmissionPolicies
// have a module of their own (wasm/vap): the two do not fit one budget.
//
// It links core/cel alone of kubeplay (not core/api nor wasm/bridge) to
// keep within its download budget.
package main

import (
	"kubeplay/core/cel/celmodule"
	"kubeplay/wasm/celjs"
)

func main() { celjs.Serve("kubeplayCEL", celmodule.Rules()) }

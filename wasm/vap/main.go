//go:build js && wasm

// Command vap is the browser's CEL module for ValidatingAdmissionPolicies
// (kubeplay-vap.wasm): their expressions compiled and evaluated as
// kube-apiserver does (core/cel, on cel-go), a Go instance beside the core,
// loaded on the first policy written or matched. The core's policy plugin
// (core/registry: which policies and bindings match, parameters, actions,
// failure policy, the denial) asks it through wasm/bridge's RemoteCEL, one
// call a policy and binding that matched a request (core/cel/celmodule's
// protocol, JSON both ways):
//
//	kubeplayVAP.call(fn, requestJSON, authorize) → Promise<string>
//
// fn evaluatePolicy, checkPolicy or typeCheckPolicy; authorize(checkJSON) → Promise<string>
// is the core's, for the authorizer library's checks. CustomResourceDefinitions'
// rules are wasm/cel's: the two do not fit one module's budget.
//
// It links core/cel alone of kubeplay (not core/api nor wasm/bridge) to
// keep within its download budget.
package main

import (
	"errors"
	"syscall/js"

	"kubeplay/core/cel/celmodule"
)

var module = celmodule.New()

func main() {
	mod := js.Global().Get("Object").New()
	mod.Set("call", js.FuncOf(func(_ js.Value, args []js.Value) any {
		var resolve, reject js.Value
		promise := js.Global().Get("Promise").New(js.FuncOf(func(_ js.Value, args []js.Value) any {
			resolve, reject = args[0], args[1]
			return nil
		}))
		// evaluation may take a while and waits for the core's authorizer:
		// on a goroutine of its own, not the event loop's callback
		go func() {
			b, err := call(args)
			if err != nil {
				reject.Invoke(js.Global().Get("Error").New(err.Error()))
				return
			}
			resolve.Invoke(string(b))
		}()
		return promise
	}))
	js.Global().Set("kubeplayVAP", mod)
	if ready := js.Global().Get("kubeplayVAPReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

// call answers call(fn, requestJSON, authorize).
func call(args []js.Value) ([]byte, error) {
	if len(args) < 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeString {
		return nil, errors.New("call(fn, requestJSON, authorize)")
	}
	var authorize func([]byte) ([]byte, error)
	if len(args) > 2 && args[2].Type() == js.TypeFunction {
		core := args[2]
		authorize = func(check []byte) ([]byte, error) {
			res, err := await(core.Invoke(string(check)))
			if err != nil {
				return nil, err
			}
			return []byte(res.String()), nil
		}
	}
	return module.Call(args[0].String(), []byte(args[1].String()), authorize)
}

// await blocks the calling goroutine (never a callback's) until promise
// settles.
func await(promise js.Value) (js.Value, error) {
	done := make(chan error, 1)
	var v js.Value
	onOK := js.FuncOf(func(_ js.Value, args []js.Value) any {
		v = args[0]
		done <- nil
		return nil
	})
	onErr := js.FuncOf(func(_ js.Value, args []js.Value) any {
		done <- errors.New(args[0].Call("toString").String())
		return nil
	})
	promise.Call("then", onOK, onErr)
	err := <-done
	onOK.Release()
	onErr.Release()
	return v, err
}

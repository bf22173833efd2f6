//go:build js && wasm

// Command cel is the browser's CEL module (kubeplay-cel.wasm): the Common
// Expression Language as kube-apiserver evaluates it (core/cel, on cel-go),
// a Go instance beside the core, loaded on the first definition or custom
// resource that has x-kubernetes-validations rules, or the first
// ValidatingAdmissionPolicy written or matched, so cel-go costs the core's
// download nothing. The core asks it through wasm/bridge's RemoteCEL, one
// call a request (core/cel/celmodule's protocol, JSON both ways):
//
//	kubeplayCEL.call(fn, requestJSON, authorize?) → Promise<string>
//
// where authorize(checkJSON) → Promise<string> is the core's, for the
// authorizer library's checks of a policy being evaluated.
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
		if len(args) < 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeString {
			return reject(errors.New("call(fn, requestJSON, authorize?)"))
		}
		fn, req := args[0].String(), []byte(args[1].String())
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
		// evaluation may take a while and may wait for the core: on a
		// goroutine of its own, not the event loop's callback
		promise, resolve, rejectFn := newPromise()
		go func() {
			b, err := module.Call(fn, req, authorize)
			if err != nil {
				rejectFn.Invoke(js.Global().Get("Error").New(err.Error()))
				return
			}
			resolve.Invoke(string(b))
		}()
		return promise
	}))
	js.Global().Set("kubeplayCEL", mod)
	if ready := js.Global().Get("kubeplayCELReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

// newPromise is a JavaScript promise and its resolve and reject functions.
func newPromise() (promise, resolve, reject js.Value) {
	promise = js.Global().Get("Promise").New(js.FuncOf(func(_ js.Value, args []js.Value) any {
		resolve, reject = args[0], args[1]
		return nil
	}))
	return promise, resolve, reject
}

// reject is a promise rejected with err.
func reject(err error) js.Value {
	return js.Global().Get("Promise").Call("reject", js.Global().Get("Error").New(err.Error()))
}

// await blocks the calling goroutine (never a callback's) until promise
// settles.
func await(promise js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	done := make(chan result, 1)
	onOK := js.FuncOf(func(_ js.Value, args []js.Value) any {
		done <- result{v: args[0]}
		return nil
	})
	onErr := js.FuncOf(func(_ js.Value, args []js.Value) any {
		done <- result{err: errors.New(args[0].Call("toString").String())}
		return nil
	})
	promise.Call("then", onOK, onErr)
	r := <-done
	onOK.Release()
	onErr.Release()
	return r.v, r.err
}

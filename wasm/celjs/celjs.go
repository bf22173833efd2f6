//go:build js && wasm

// Package celjs serves a CEL module (core/cel/celmodule) to the worker's
// JavaScript, as the browser's CEL modules' commands do (wasm/cel,
// wasm/vap): it sets the global object name to
//
//	{call(fn, requestJSON, authorize?) → Promise<string>}
//
// where authorize(checkJSON) → Promise<string> is the core's, for the
// authorizer library's checks of a policy being evaluated, then calls the
// global function name+"Ready" if there is one. It links no more of
// kubeplay than the module does (not core/api nor wasm/bridge).
package celjs

import (
	"errors"
	"syscall/js"

	"kubeplay/core/cel/celmodule"
)

// Serve serves m as the global name, until the program ends.
func Serve(name string, m *celmodule.Module) {
	mod := js.Global().Get("Object").New()
	mod.Set("call", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) < 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeString {
			return js.Global().Get("Promise").Call("reject", js.Global().Get("Error").New("call(fn, requestJSON, authorize?)"))
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
		var resolve, reject js.Value
		promise := js.Global().Get("Promise").New(js.FuncOf(func(_ js.Value, args []js.Value) any {
			resolve, reject = args[0], args[1]
			return nil
		}))
		go func() {
			b, err := m.Call(fn, req, authorize)
			if err != nil {
				reject.Invoke(js.Global().Get("Error").New(err.Error()))
				return
			}
			resolve.Invoke(string(b))
		}()
		return promise
	}))
	js.Global().Set(name, mod)
	if ready := js.Global().Get(name + "Ready"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
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

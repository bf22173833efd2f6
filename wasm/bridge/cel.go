//go:build js && wasm

package bridge

import (
	"syscall/js"

	"kubeplay/core/api"
	"kubeplay/core/cel/celremote"
	"kubeplay/wasm/jsio"
)

// RemoteCEL is api.CEL (and api.Policies) done by the CEL modules
// (kubeplay-cel.wasm for CustomResourceDefinitions' rules, kubeplay-vap.wasm
// for ValidatingAdmissionPolicies; core/cel/celremote's calls) through the
// host's function call(fn, requestJSON, authorize), a Promise of the
// answer's JSON, the module that has fn loaded on its first call. authorize, a function of this
// instance given with a policy's evaluation, answers each of the
// authorizer library's checks (checkJSON) with a Promise of its answer's
// JSON: the core's authorizer decides. Its methods must not run on the
// goroutine of a JavaScript callback.
func RemoteCEL(call js.Value) api.CEL {
	return celremote.New(func(fn string, req []byte, authorize func([]byte) ([]byte, error)) ([]byte, error) {
		auth := js.Undefined()
		if authorize != nil {
			f := js.FuncOf(func(_ js.Value, args []js.Value) any {
				check := ""
				if len(args) > 0 {
					check = jsio.String(args[0])
				}
				// the authorizer may wait (for a lock): not on this callback's goroutine
				return jsio.Async(func() (any, error) {
					b, err := authorize([]byte(check))
					return string(b), err
				})
			})
			defer f.Release()
			auth = f.Value
		}
		res, err := jsio.Await(call.Invoke(fn, string(req), auth))
		if err != nil {
			return nil, err
		}
		return []byte(jsio.String(res)), nil
	})
}

//go:build js && wasm

package bridge

import (
	"context"
	"encoding/json"
	"syscall/js"
	"testing"

	"kubeplay/core/api"
	"kubeplay/wasm/jsio"
)

// TestRemoteCELAsksTheCoresAuthorizerBack: a policy's evaluation goes to the
// host's cel(fn, json, authorize) with the request's JSON, and the module's
// checks of the authorizer library come back through authorize, a promise
// each, to the core's Authorize.
func TestRemoteCELAsksTheCoresAuthorizerBack(t *testing.T) {
	var gotFn string
	var gotReq map[string]any
	call := js.FuncOf(func(_ js.Value, args []js.Value) any {
		gotFn = args[0].String()
		_ = json.Unmarshal([]byte(args[1].String()), &gotReq)
		authorize := args[2]
		promise, resolve, reject := jsio.NewPromise()
		go func() {
			res, err := jsio.Await(authorize.Invoke(`{"User":"alice","Groups":["dev"],"ResourceRequest":true,"Group":"apps","Resource":"deployments","Verb":"delete"}`))
			if err != nil {
				reject.Invoke(jsio.Error.New(err.Error()))
				return
			}
			var a struct {
				Allowed bool
				Reason  string
			}
			_ = json.Unmarshal([]byte(res.String()), &a)
			answer, _ := json.Marshal(map[string]any{"matched": true, "decisions": []any{map[string]any{"deny": !a.Allowed, "message": a.Reason}}})
			resolve.Invoke(string(answer))
		}()
		return promise
	})
	defer call.Release()
	var asked api.AuthzCheck
	policies := RemoteCEL(call.Value).(api.Policies)
	decisions := policies.EvaluatePolicy(context.Background(), api.PolicyRequest{Key: "uid/1", Policy: map[string]any{"validations": []any{}},
		Request: map[string]any{"operation": "CREATE"}, User: "alice", Groups: []string{"dev"},
		Authorize: func(c api.AuthzCheck) (bool, string) {
			asked = c
			return false, "no RBAC rule allows it"
		}})
	if gotFn != "evaluatePolicy" || gotReq["key"] != "uid/1" || gotReq["user"] != "alice" {
		t.Errorf("the module was called with %s %v", gotFn, gotReq)
	}
	if asked.User != "alice" || asked.Verb != "delete" || asked.Resource != "deployments" || !asked.ResourceRequest {
		t.Errorf("the core's authorizer was asked %+v", asked)
	}
	if len(decisions) != 1 || !decisions[0].Deny || decisions[0].Message != "no RBAC rule allows it" {
		t.Errorf("decisions %+v", decisions)
	}
}

// TestRemoteCELFailsAPolicyItCannotAsk: a module that cannot answer makes
// an error decision, for the policy's failure policy.
func TestRemoteCELFailsAPolicyItCannotAsk(t *testing.T) {
	call := js.FuncOf(func(_ js.Value, args []js.Value) any {
		return js.Global().Get("Promise").Call("reject", jsio.Error.New("loading kubeplay-vap.wasm: HTTP 404"))
	})
	defer call.Release()
	decisions := RemoteCEL(call.Value).(api.Policies).EvaluatePolicy(context.Background(), api.PolicyRequest{Key: "uid/1"})
	if len(decisions) != 1 || !decisions[0].Error || decisions[0].Message != "the CEL module could not evaluate the policy: loading kubeplay-vap.wasm: HTTP 404" {
		t.Errorf("decisions %+v", decisions)
	}
}

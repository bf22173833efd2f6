//go:build js && wasm

package bridge

import (
	"context"
	"encoding/json"
	"syscall/js"

	"kubeplay/core/api"
	"kubeplay/core/field"
)

// CELAnswer is the CEL module's answer to the core (wasm/cel).
type CELAnswer struct {
	Errors   field.ErrorList `json:"errors,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
	// Missing: the module has not compiled the rules and the request left
	// out their schema.
	Missing bool `json:"missing,omitempty"`
}

// RemoteCEL is api.CEL done by the CEL module (kubeplay-cel.wasm) through
// the host's functions: check(requestJSON) and validate(requestJSON), each a
// Promise of a CELAnswer's JSON, the module loaded on their first call. A
// custom resource's rules go without their schema once the module has
// compiled them. Its methods must not run on the goroutine of a JavaScript
// callback.
func RemoteCEL(check, validate js.Value) api.CEL { return &remoteCEL{check, validate} }

type remoteCEL struct{ check, validate js.Value }

// ask calls fn with req's JSON and reads its answer; a module that cannot
// answer makes an internal error at path.
func ask(fn js.Value, req any, path string) CELAnswer {
	var a CELAnswer
	b, err := json.Marshal(req)
	if err == nil {
		var res js.Value
		if res, err = await(fn.Invoke(string(b))); err == nil {
			if err = json.Unmarshal([]byte(res.String()), &a); err == nil {
				return a
			}
		}
	}
	e := field.InternalError(nil, "the CEL module could not evaluate the rules: "+err.Error())
	e.Field = path
	return CELAnswer{Errors: field.ErrorList{e}}
}

func (r *remoteCEL) CheckRules(req api.CheckRules) field.ErrorList {
	return ask(r.check, req, req.Path).Errors
}

func (r *remoteCEL) ValidateCustom(_ context.Context, req api.ValidateCustom) (field.ErrorList, []string) {
	rules := req.Rules
	req.Rules = &api.CustomRules{Key: rules.Key}
	a := ask(r.validate, req, "<nil>")
	if a.Missing {
		req.Rules = rules
		a = ask(r.validate, req, "<nil>")
	}
	return a.Errors, a.Warnings
}

//go:build js && wasm

// Command cel is the browser's CEL module (kubeplay-cel.wasm): the Common
// Expression Language as kube-apiserver evaluates it (core/cel, on cel-go),
// a Go instance beside the core, loaded on the first definition or custom
// resource that has x-kubernetes-validations rules, so cel-go costs the
// core's download nothing. The core asks it through wasm/bridge's RemoteCEL,
// one call a request, JSON both ways:
//
//	kubeplayCEL.checkRules(requestJSON) → Promise<string>
//	    core/api's CheckRules → {"errors": [...]}
//	kubeplayCEL.validateCustom(requestJSON) → Promise<string>
//	    core/api's ValidateCustom → {"errors": [...], "warnings": [...]},
//	    or {"missing": true} when the request left out the schema of rules
//	    not compiled here yet (the core sends it again with it).
//
// It links core/cel alone of kubeplay (not core/api nor wasm/bridge) to
// keep within its download budget.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"syscall/js"

	"kubeplay/core/cel"
	"kubeplay/core/field"
)

var evaluator = cel.NewEvaluator()

// answer is what the module answers (wasm/bridge's CELAnswer).
type answer struct {
	Errors   field.ErrorList `json:"errors,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
	Missing  bool            `json:"missing,omitempty"`
}

func main() {
	mod := js.Global().Get("Object").New()
	mod.Set("checkRules", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return async(func() (answer, error) {
			var req cel.CheckRequest
			if err := decode(args, &req); err != nil {
				return answer{}, err
			}
			return answer{Errors: evaluator.Check(req)}, nil
		})
	}))
	mod.Set("validateCustom", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return async(func() (answer, error) {
			var req cel.ValidateRequest
			if err := decode(args, &req); err != nil {
				return answer{}, err
			}
			if req.Rules == nil {
				return answer{}, errors.New("no rules")
			}
			if req.Rules.Schema == nil && !evaluator.Compiled(req.Rules.Key) {
				return answer{Missing: true}, nil
			}
			errs, warnings := evaluator.Validate(context.Background(), req)
			return answer{Errors: errs, Warnings: warnings}, nil
		})
	}))
	js.Global().Set("kubeplayCEL", mod)
	if ready := js.Global().Get("kubeplayCELReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

// decode reads a request, its numbers as json.Number (as the core's objects
// hold them).
func decode(args []js.Value, into any) error {
	if len(args) < 1 || args[0].Type() != js.TypeString {
		return errors.New("a request's JSON")
	}
	d := json.NewDecoder(bytes.NewReader([]byte(args[0].String())))
	d.UseNumber()
	return d.Decode(into)
}

// async runs fn on a goroutine of its own (evaluation may take a while, and
// must not hold up the event loop's callback) and is a Promise of its
// answer's JSON.
func async(fn func() (answer, error)) js.Value {
	var resolve, reject js.Value
	promise := js.Global().Get("Promise").New(js.FuncOf(func(_ js.Value, args []js.Value) any {
		resolve, reject = args[0], args[1]
		return nil
	}))
	go func() {
		a, err := fn()
		var b []byte
		if err == nil {
			b, err = json.Marshal(a)
		}
		if err != nil {
			reject.Invoke(js.Global().Get("Error").New(err.Error()))
			return
		}
		resolve.Invoke(string(b))
	}()
	return promise
}

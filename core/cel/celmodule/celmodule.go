// Package celmodule is the CEL module's side of its protocol with the core
// (core/cel/celremote is the core's): each request a call of a named
// function with its JSON, answered with an Answer's JSON, evaluated by
// core/cel, the code the native and edge cores call directly. The browser's
// CEL module (wasm/cel) serves it to the core across the worker's
// JavaScript; tests call it in one process.
//
// It links core/cel alone of kubeplay (not core/api) to keep the module
// within its download budget.
package celmodule

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"kubeplay/core/cel"
	"kubeplay/core/field"
)

// Answer is what the module answers (core/cel/celremote reads it).
type Answer struct {
	Errors   field.ErrorList `json:"errors,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
	// Missing: a custom resource's rules are not compiled here and the
	// request left out their schema (the core sends it again with it).
	Missing bool `json:"missing,omitempty"`
	// Decisions are a policy's (evaluatePolicy), Matched when its match
	// conditions let the request in.
	Decisions []cel.PolicyDecision `json:"decisions,omitempty"`
	Matched   bool                 `json:"matched,omitempty"`
}

// AuthzAnswer is the core's answer to one of the authorizer library's
// checks (a cel.AuthzCheck's JSON).
type AuthzAnswer struct {
	Allowed bool   `json:"allowed,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// Module answers the core's calls, its compiled rules and policies kept
// between them.
type Module struct{ evaluator *cel.Evaluator }

// New is a module with nothing compiled yet.
func New() *Module { return &Module{cel.NewEvaluator()} }

// Call answers the call of fn with request req:
//
//	checkRules      a cel.CheckRequest: the errors of a definition's rules
//	validateCustom  a cel.ValidateRequest: a custom resource's errors and
//	                warnings, or Missing
//	evaluatePolicy  a cel.PolicyRequest: the policy's decisions, its
//	                authorizer's checks asked of authorize
//	checkPolicy     a policy's spec: the errors of its expressions
//
// authorize answers a check's JSON with an AuthzAnswer's; it may be nil
// but for evaluatePolicy.
func (m *Module) Call(fn string, req []byte, authorize func(check []byte) ([]byte, error)) ([]byte, error) {
	var a Answer
	var err error
	switch fn {
	case "checkRules":
		var r cel.CheckRequest
		if err = decode(req, &r); err == nil {
			a.Errors = m.evaluator.Check(r)
		}
	case "validateCustom":
		var r cel.ValidateRequest
		if err = decode(req, &r); err == nil {
			switch {
			case r.Rules == nil:
				err = errors.New("no rules")
			case r.Rules.Schema == nil && !m.evaluator.Compiled(r.Rules.Key):
				a.Missing = true
			default:
				a.Errors, a.Warnings = m.evaluator.Validate(context.Background(), r)
			}
		}
	case "evaluatePolicy":
		var r cel.PolicyRequest
		if err = decode(req, &r); err == nil {
			if authorize != nil {
				r.Authorize = askCore(authorize)
			}
			a.Decisions = m.evaluator.EvaluatePolicy(context.Background(), r)
			a.Matched = a.Decisions != nil
		}
	case "checkPolicy":
		var spec map[string]any
		if err = decode(req, &spec); err == nil {
			a.Errors = cel.CheckPolicy(spec)
		}
	default:
		err = errors.New("no function " + fn)
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(a)
}

// askCore is the authorizer library's checks asked of the core.
func askCore(authorize func([]byte) ([]byte, error)) cel.Authorize {
	return func(c cel.AuthzCheck) (bool, string) {
		b, err := json.Marshal(c)
		if err == nil {
			if b, err = authorize(b); err == nil {
				var a AuthzAnswer
				if err = json.Unmarshal(b, &a); err == nil {
					return a.Allowed, a.Reason
				}
			}
		}
		return false, "the authorizer could not be asked: " + err.Error()
	}
}

// decode reads a request, its numbers as json.Number (as the core's objects
// hold them).
func decode(req []byte, into any) error {
	d := json.NewDecoder(bytes.NewReader(req))
	d.UseNumber()
	return d.Decode(into)
}

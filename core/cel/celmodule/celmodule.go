// Package celmodule is the CEL modules' side of their protocol with the
// core (core/cel/celremote is the core's): each request a call of a named
// function with its JSON, answered with an Answer's JSON, evaluated by
// core/cel, the code the native and edge cores call directly. The browser's
// CEL modules (wasm/cel for rules, wasm/vap for policies, through
// wasm/celjs) serve it to the core across the worker's JavaScript; tests
// call it in one process.
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
type Module struct {
	evaluator *cel.Evaluator
	functions map[string]function
}

// function answers a call's request into a.
type function func(m *Module, req []byte, authorize func([]byte) ([]byte, error), a *Answer) error

// Rules is a module for CustomResourceDefinitions' rules (kubeplay-cel.wasm):
//
//	checkRules      a cel.CheckRequest: the errors of a definition's rules
//	validateCustom  a cel.ValidateRequest: a custom resource's errors and
//	                warnings, or Missing
func Rules() *Module {
	return &Module{cel.NewEvaluator(), map[string]function{"checkRules": checkRules, "validateCustom": validateCustom}}
}

// Policies is a module for ValidatingAdmissionPolicies (kubeplay-vap.wasm):
//
//	evaluatePolicy  a cel.PolicyRequest: the policy's decisions, its
//	                authorizer's checks asked of authorize
//	checkPolicy     a policy's spec: the errors of its expressions
//
// Apart from Rules: the two together do not fit one module's download
// budget, and each links only its own.
func Policies() *Module {
	return &Module{cel.NewEvaluator(), map[string]function{"evaluatePolicy": evaluatePolicy, "checkPolicy": checkPolicy}}
}

// Call answers the call of fn with request req. authorize answers a check's
// JSON with an AuthzAnswer's; it may be nil but for evaluatePolicy.
func (m *Module) Call(fn string, req []byte, authorize func(check []byte) ([]byte, error)) ([]byte, error) {
	f, ok := m.functions[fn]
	if !ok {
		return nil, errors.New("no function " + fn)
	}
	var a Answer
	if err := f(m, req, authorize, &a); err != nil {
		return nil, err
	}
	return json.Marshal(a)
}

func checkRules(m *Module, req []byte, _ func([]byte) ([]byte, error), a *Answer) error {
	var r cel.CheckRequest
	if err := decode(req, &r); err != nil {
		return err
	}
	a.Errors = m.evaluator.Check(r)
	return nil
}

func validateCustom(m *Module, req []byte, _ func([]byte) ([]byte, error), a *Answer) error {
	var r cel.ValidateRequest
	if err := decode(req, &r); err != nil {
		return err
	}
	switch {
	case r.Rules == nil:
		return errors.New("no rules")
	case r.Rules.Schema == nil && !m.evaluator.Compiled(r.Rules.Key):
		a.Missing = true
	default:
		a.Errors, a.Warnings = m.evaluator.Validate(context.Background(), r)
	}
	return nil
}

func evaluatePolicy(m *Module, req []byte, authorize func([]byte) ([]byte, error), a *Answer) error {
	var r cel.PolicyRequest
	if err := decode(req, &r); err != nil {
		return err
	}
	if authorize != nil {
		r.Authorize = askCore(authorize)
	}
	a.Decisions = m.evaluator.EvaluatePolicy(context.Background(), r)
	a.Matched = a.Decisions != nil
	return nil
}

func checkPolicy(_ *Module, req []byte, _ func([]byte) ([]byte, error), a *Answer) error {
	var spec map[string]any
	if err := decode(req, &spec); err != nil {
		return err
	}
	a.Errors = cel.CheckPolicy(spec)
	return nil
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

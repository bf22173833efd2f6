// Package celmodule is the policies' CEL module's side of its protocol with
// the core (core/cel/celremote is the core's): each request a call of a
// named function with its JSON, answered with an Answer's JSON, evaluated by
// core/cel, the code the native and edge cores call directly (through
// core/cel/celapi, which shares CheckPolicy from here). The browser's
// kubeplay-vap.wasm (wasm/vap) serves it to the core across the worker's
// JavaScript; tests call it in one process. (The rules' module,
// kubeplay-cel.wasm, answers checkRules and validateCustom with the same
// JSON in wasm/cel itself.)
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
	Errors field.ErrorList `json:"errors,omitempty"`
	// Decisions are a policy's, Matched when its match conditions let the
	// request in.
	Decisions    []cel.PolicyDecision `json:"decisions,omitempty"`
	Matched      bool                 `json:"matched,omitempty"`
	TypeWarnings []TypeWarning        `json:"typeWarnings,omitempty"`
}

// AuthzAnswer is the core's answer to one of the authorizer library's
// checks (a cel.AuthzCheck's JSON).
type AuthzAnswer struct {
	Allowed bool   `json:"allowed,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// Module answers the core's calls, the policies it compiled kept between
// them.
type Module struct{ evaluator *cel.Evaluator }

// New is a module with nothing compiled yet.
func New() *Module { return &Module{cel.NewEvaluator()} }

// Call answers the call of fn with request req:
//
//	evaluatePolicy  a policy request (cel.PolicyRequest's JSON, with the
//	                user and groups of who made it): the policy's
//	                decisions, its authorizer's checks asked of authorize
//	checkPolicy     a policy's spec: the errors of its expressions
//	typeCheckPolicy a policy's spec and the schemas of its kinds
//	                (a TypeCheck): its type warnings
//
// authorize answers a check's JSON with an AuthzAnswer's.
func (m *Module) Call(fn string, req []byte, authorize func(check []byte) ([]byte, error)) ([]byte, error) {
	var a Answer
	switch fn {
	case "evaluatePolicy":
		var r struct {
			cel.PolicyRequest
			User   string   `json:"user"`
			Groups []string `json:"groups"`
		}
		if err := decode(req, &r); err != nil {
			return nil, err
		}
		r.PolicyRequest.User, r.PolicyRequest.Groups = r.User, r.Groups
		if authorize != nil {
			r.Authorize = askCore(authorize)
		}
		a.Decisions = m.evaluator.EvaluatePolicy(context.Background(), r.PolicyRequest)
		a.Matched = a.Decisions != nil
	case "checkPolicy":
		var spec map[string]any
		if err := decode(req, &spec); err != nil {
			return nil, err
		}
		a.Errors = CheckPolicy(spec)
	case "typeCheckPolicy":
		var r TypeCheck
		if err := decode(req, &r); err != nil {
			return nil, err
		}
		a.TypeWarnings = TypeCheckPolicy(r)
	default:
		return nil, errors.New("no function " + fn)
	}
	return json.Marshal(a)
}

// CheckPolicy is kube's errors for a policy's expressions that do not
// compile or are of the wrong type (core/cel's CheckPolicy), as the
// validation of a ValidatingAdmissionPolicy answers them.
func CheckPolicy(spec map[string]any) field.ErrorList {
	var errs field.ErrorList
	for _, i := range cel.CheckPolicy(spec) {
		errs = append(errs, field.Invalid(field.NewPath(i.Path), i.Expression, i.Detail))
	}
	return errs
}

// TypeCheck asks for the type checking of a policy (core/api's
// PolicyTypeCheck's JSON): its spec, the kinds its constraints match with
// their schemas, its paramKind's schema.
type TypeCheck struct {
	Policy map[string]any  `json:"policy"`
	Kinds  []TypedKind     `json:"kinds"`
	Params json.RawMessage `json:"params,omitempty"`
}

// TypedKind is a kind and its schema (core/api's TypedKind's JSON).
type TypedKind struct {
	Kind   string          `json:"kind"`
	Schema json.RawMessage `json:"schema"`
}

// TypeWarning is an expression's type errors (core/api's
// ExpressionWarning's JSON).
type TypeWarning struct {
	FieldRef string `json:"fieldRef"`
	Warning  string `json:"warning"`
}

// TypeCheckPolicy is core/cel's type checking of a policy, as its status's
// warnings.
func TypeCheckPolicy(r TypeCheck) []TypeWarning {
	names, schemas := make([]string, len(r.Kinds)), make([][]byte, len(r.Kinds))
	for i, k := range r.Kinds {
		names[i], schemas[i] = k.Kind, k.Schema
	}
	var out []TypeWarning
	for _, i := range cel.TypeCheckPolicy(r.Policy, names, schemas, r.Params) {
		out = append(out, TypeWarning{FieldRef: i.Path, Warning: i.Detail})
	}
	return out
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

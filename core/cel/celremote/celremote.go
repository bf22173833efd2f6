// Package celremote is core/api's CEL done by a CEL module that speaks JSON
// (core/cel/celmodule's protocol): the browser core's CEL, which reaches
// kubeplay-cel.wasm through wasm/bridge, one call a custom resource's rules
// or a policy a request matched. The policy plugin itself (which policies
// and bindings match, parameters, failure policy, validation actions,
// denials) stays in the core (core/registry); only expressions are compiled
// and evaluated across. It links no cel-go.
package celremote

import (
	"context"
	"encoding/json"

	"kubeplay/core/api"
	"kubeplay/core/field"
)

// Call calls the module's function fn with a request's JSON and returns its
// answer's JSON; authorize, when not nil, answers the authorizer library's
// checks the module asks while it evaluates.
type Call func(fn string, req []byte, authorize func(check []byte) ([]byte, error)) ([]byte, error)

// New is the CEL of the module call reaches, which also evaluates
// ValidatingAdmissionPolicies (api.Policies). A custom resource's rules go
// without their schema once the module has compiled them.
func New(call Call) api.CEL { return remote{call} }

type remote struct{ call Call }

// answer is what the module answers (core/cel/celmodule's Answer).
type answer struct {
	Errors       field.ErrorList         `json:"errors,omitempty"`
	Warnings     []string                `json:"warnings,omitempty"`
	Missing      bool                    `json:"missing,omitempty"`
	Decisions    []api.PolicyDecision    `json:"decisions,omitempty"`
	Matched      bool                    `json:"matched,omitempty"`
	TypeWarnings []api.ExpressionWarning `json:"typeWarnings,omitempty"`
}

// ask calls fn with req's JSON and reads its answer.
func (r remote) ask(fn string, req any, authorize func([]byte) ([]byte, error)) (answer, error) {
	var a answer
	b, err := json.Marshal(req)
	if err == nil {
		if b, err = r.call(fn, b, authorize); err == nil {
			err = json.Unmarshal(b, &a)
		}
	}
	return a, err
}

// rules asks for a check or an evaluation of rules; a module that cannot
// answer makes an internal error at path.
func (r remote) rules(fn string, req any, path string) answer {
	a, err := r.ask(fn, req, nil)
	if err != nil {
		e := field.InternalError(nil, "the CEL module could not evaluate the rules: "+err.Error())
		e.Field = path
		return answer{Errors: field.ErrorList{e}}
	}
	return a
}

func (r remote) CheckRules(req api.CheckRules) field.ErrorList {
	return r.rules("checkRules", req, req.Path).Errors
}

func (r remote) ValidateCustom(_ context.Context, req api.ValidateCustom) (field.ErrorList, []string) {
	rules := req.Rules
	req.Rules = &api.CustomRules{Key: rules.Key}
	a := r.rules("validateCustom", req, "<nil>")
	if a.Missing {
		req.Rules = rules
		a = r.rules("validateCustom", req, "<nil>")
	}
	return a.Errors, a.Warnings
}

// EvaluatePolicy asks the module for a policy's decisions; the checks of its
// authorizer library come back to req.Authorize. A module that cannot answer
// is an error, for the policy's failure policy.
func (r remote) EvaluatePolicy(_ context.Context, req api.PolicyRequest) []api.PolicyDecision {
	var authorize func([]byte) ([]byte, error)
	if req.Authorize != nil {
		authorize = func(check []byte) ([]byte, error) {
			var c api.AuthzCheck
			if err := json.Unmarshal(check, &c); err != nil {
				return nil, err
			}
			allowed, reason := req.Authorize(c)
			return json.Marshal(authzAnswer{allowed, reason})
		}
	}
	a, err := r.ask("evaluatePolicy", req, authorize)
	switch {
	case err != nil:
		return []api.PolicyDecision{{Error: true, Message: "the CEL module could not evaluate the policy: " + err.Error()}}
	case !a.Matched:
		return nil
	case a.Decisions == nil:
		return []api.PolicyDecision{}
	}
	return a.Decisions
}

// authzAnswer is an answer to one authorizer check (core/cel/celmodule's
// AuthzAnswer).
type authzAnswer struct {
	Allowed bool   `json:"allowed,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// CheckPolicy asks the module to compile a policy's expressions; a module
// that cannot answer makes an internal error at spec.
func (r remote) CheckPolicy(spec map[string]any) field.ErrorList {
	a, err := r.ask("checkPolicy", spec, nil)
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("spec"), "the CEL module could not compile the policy: "+err.Error())}
	}
	return a.Errors
}

// TypeCheckPolicy asks the module to type check a policy; a module that
// cannot answer leaves it without warnings.
func (r remote) TypeCheckPolicy(req api.PolicyTypeCheck) []api.ExpressionWarning {
	a, _ := r.ask("typeCheckPolicy", req, nil)
	return a.TypeWarnings
}

// Package celapi is core/cel as core/api's CEL: what hosts that link cel-go
// (natively, tests) give the server; a policy's errors worded as the
// browser's policy module words them (core/cel/celmodule's CheckPolicy). It
// is apart from core/cel so that the browser's CEL modules, which speak
// JSON, link none of core/api.
package celapi

import (
	"context"

	"kubeplay/core/api"
	"kubeplay/core/cel"
	"kubeplay/core/cel/celmodule"
	"kubeplay/core/field"
)

// New is a CEL with nothing compiled yet.
func New() api.CEL { return evaluator{cel.NewEvaluator()} }

type evaluator struct{ e *cel.Evaluator }

func (v evaluator) CheckRules(req api.CheckRules) field.ErrorList {
	return v.e.Check(cel.CheckRequest{Schema: req.Schema, Path: req.Path, Rules: req.Rules, MessageExpressions: req.MessageExpressions, Unchanged: req.Unchanged})
}

func (v evaluator) ValidateCustom(ctx context.Context, req api.ValidateCustom) (field.ErrorList, []string) {
	if req.Rules == nil {
		return nil, nil
	}
	r := cel.ValidateRequest{Object: req.Object, Old: req.Old}
	r.Rules = &struct {
		Key    string         `json:"key"`
		Schema map[string]any `json:"schema"`
	}{req.Rules.Key, req.Rules.Schema}
	return v.e.Validate(ctx, r)
}

func (v evaluator) EvaluatePolicy(ctx context.Context, req api.PolicyRequest) []api.PolicyDecision {
	r := cel.PolicyRequest{Key: req.Key, Policy: req.Policy, Object: req.Object, OldObject: req.OldObject,
		Params: req.Params, Namespace: req.Namespace, Request: req.Request, User: req.User, Groups: req.Groups}
	if req.Authorize != nil {
		r.Authorize = func(c cel.AuthzCheck) (bool, string) { return req.Authorize(api.AuthzCheck(c)) }
	}
	ds := v.e.EvaluatePolicy(ctx, r)
	if ds == nil {
		return nil
	}
	out := make([]api.PolicyDecision, len(ds))
	for i, d := range ds {
		out[i] = api.PolicyDecision{Deny: d.Deny, Error: d.Error, Message: d.Message, Reason: d.Reason}
	}
	return out
}

func (v evaluator) CheckPolicy(spec map[string]any) field.ErrorList {
	return celmodule.CheckPolicy(spec)
}

func (v evaluator) TypeCheckPolicy(req api.PolicyTypeCheck) []api.ExpressionWarning {
	kinds := make([]celmodule.TypedKind, len(req.Kinds))
	for i, k := range req.Kinds {
		kinds[i] = celmodule.TypedKind(k)
	}
	var out []api.ExpressionWarning
	for _, w := range celmodule.TypeCheckPolicy(celmodule.TypeCheck{Policy: req.Policy, Kinds: kinds, Params: req.Params}) {
		out = append(out, api.ExpressionWarning(w))
	}
	return out
}

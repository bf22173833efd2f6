package cel

import (
	"context"
	"encoding/json"
	"sync"

	"kubeplay/core/field"
)

// Evaluator checks definitions' rules and evaluates them on custom
// resources, the compiled rules kept by key: what the server asks of CEL
// (core/api's CEL, which core/cel/celapi adapts to it natively and the
// browser's CEL module in JSON).
type Evaluator struct {
	mu    sync.Mutex
	rules map[string]*Rules
}

// maxCompiled is how many custom resource versions' rules an Evaluator
// keeps compiled; past it, it starts afresh.
const maxCompiled = 256

// NewEvaluator is an Evaluator with nothing compiled.
func NewEvaluator() *Evaluator { return &Evaluator{rules: map[string]*Rules{}} }

// CheckRequest asks for the check of a definition's version's rules (the
// JSON of core/api's CheckRules).
type CheckRequest struct {
	Schema             map[string]any `json:"schema"`
	Path               string         `json:"path"`
	Rules              []string       `json:"rules,omitempty"`
	MessageExpressions []string       `json:"messageExpressions,omitempty"`
	Unchanged          bool           `json:"unchanged,omitempty"`
}

// ValidateRequest asks for the evaluation of a custom resource's rules (the
// JSON of core/api's ValidateCustom).
type ValidateRequest struct {
	Rules *struct {
		Key    string         `json:"key"`
		Schema map[string]any `json:"schema"`
	} `json:"rules"`
	Object map[string]any `json:"object"`
	Old    map[string]any `json:"old,omitempty"`
}

func parseMap(m map[string]any) (*Schema, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return ParseSchema(b)
}

// Check checks a version's rules as kube's validation of a definition.
func (e *Evaluator) Check(req CheckRequest) field.ErrorList {
	s, err := parseMap(req.Schema)
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath(req.Path), "", err.Error())}
	}
	return CheckRules(s, field.NewPath(req.Path), CheckOptions{Rules: req.Rules, MessageExpressions: req.MessageExpressions, Unchanged: req.Unchanged})
}

// Validate evaluates a custom resource's rules, compiling them on their
// key's first use.
func (e *Evaluator) Validate(ctx context.Context, req ValidateRequest) (field.ErrorList, []string) {
	if req.Rules == nil {
		return nil, nil
	}
	e.mu.Lock()
	r, ok := e.rules[req.Rules.Key]
	e.mu.Unlock()
	if !ok {
		s, err := parseMap(req.Rules.Schema)
		if err != nil {
			return field.ErrorList{field.InternalError(nil, err.Error())}, nil
		}
		r = NewRules(s)
		e.mu.Lock()
		if len(e.rules) >= maxCompiled {
			e.rules = map[string]*Rules{}
		}
		e.rules[req.Rules.Key] = r
		e.mu.Unlock()
	}
	return r.Validate(ctx, req.Object, req.Old)
}

// Compiled says whether the rules of key are compiled: a caller across a
// boundary (the browser's CEL module) then need not send their schema.
func (e *Evaluator) Compiled(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.rules[key]
	return ok
}

package cel

import (
	"context"
	"encoding/json"
	"sync"

	"kubeplay/core/api"
	"kubeplay/core/field"
)

// Evaluator is api.CEL: the checks of definitions' rules and their
// evaluation on custom resources, the compiled rules kept by key.
type Evaluator struct {
	mu    sync.Mutex
	rules map[string]*Rules
}

// maxCompiled is how many custom resource versions' rules an Evaluator
// keeps compiled; past it, it starts afresh.
const maxCompiled = 256

// NewEvaluator is an Evaluator with nothing compiled.
func NewEvaluator() *Evaluator { return &Evaluator{rules: map[string]*Rules{}} }

var _ api.CEL = (*Evaluator)(nil)

func parseMap(m map[string]any) (*Schema, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return ParseSchema(b)
}

// CheckRules checks a version's rules as kube's validation of a definition.
func (e *Evaluator) CheckRules(req api.CheckRules) field.ErrorList {
	s, err := parseMap(req.Schema)
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath(req.Path), "", err.Error())}
	}
	return CheckRules(s, field.NewPath(req.Path), CheckOptions{Rules: req.Rules, MessageExpressions: req.MessageExpressions, Unchanged: req.Unchanged})
}

// ValidateCustom evaluates a custom resource's rules, compiling them on
// their key's first use.
func (e *Evaluator) ValidateCustom(ctx context.Context, req api.ValidateCustom) (field.ErrorList, []string) {
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

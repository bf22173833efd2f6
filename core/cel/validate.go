package cel

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"

	"kubeplay/core/field"
)

// Rules are the x-kubernetes-validations rules of a custom resource
// version's schema, compiled once, as kube's cel.Validator.
type Rules struct{ root *ruleNode }

// ruleNode is a schema node's rules and those of the nodes under it that
// have any.
type ruleNode struct {
	schema     *Schema // as its values are read (a resource's root with its kind and metadata)
	rules      []compiled
	err        error
	oldSelf    bool // a rule uses oldSelf
	props      map[string]*ruleNode
	items      *ruleNode
	additional *ruleNode
}

// NewRules compiles the rules of a custom resource's schema; nil when it has
// none.
func NewRules(s *Schema) *Rules {
	if !s.hasRules() {
		return nil
	}
	return &Rules{root: newRuleNode(s, true, schemaDecl(s, true))}
}

func newRuleNode(s *Schema, resourceRoot bool, t *declType) *ruleNode {
	n := &ruleNode{schema: s}
	if resourceRoot {
		n.schema = s.withTypeAndObjectMeta()
	}
	n.rules, n.err = compileRules(s, t, nil)
	for _, r := range n.rules {
		n.oldSelf = n.oldSelf || r.usesOldSelf
	}
	var elem *declType
	if t != nil {
		elem = t.elem
	}
	if s.Items != nil && s.Items.hasRules() {
		n.items = newRuleNode(s.Items, s.Items.EmbeddedResource, elem)
	}
	for name, p := range s.Properties {
		if !p.hasRules() {
			continue
		}
		var pt *declType
		if escaped, ok := Escape(name); ok {
			if t == nil || t.fields[escaped] == nil {
				continue
			}
			pt = t.fields[escaped].typ
		} else if pt = schemaDecl(p, p.EmbeddedResource); pt == nil {
			continue
		}
		if n.props == nil {
			n.props = map[string]*ruleNode{}
		}
		n.props[name] = newRuleNode(p, p.EmbeddedResource, pt)
	}
	if a := s.additionalSchema(); a.hasRules() {
		n.additional = newRuleNode(a, a.EmbeddedResource, elem)
	}
	return n
}

// Validate evaluates the rules on a custom resource (old is the stored one
// on update, nil on create), within kube's runtime cost budget, and is what
// kube answers: errors, and warnings for the errors of an update that left
// the value they are about unchanged (kube's ratcheting).
func (r *Rules) Validate(ctx context.Context, obj, old map[string]any) (field.ErrorList, []string) {
	if r == nil {
		return nil, nil
	}
	v := &evaluation{ctx: ctx, budget: RuntimeCostBudget}
	var c *correlation
	if old != nil {
		c = &correlation{old: old, new: obj}
	}
	v.node(r.root, nil, obj, nilIfEmpty(old), c, nil)
	for _, e := range v.errs {
		if e.Field == "" {
			e.Field = "<nil>" // kube's name of the root's (no) path
		}
	}
	return v.errs, v.warnings
}

func nilIfEmpty(old map[string]any) any {
	if old == nil {
		return nil
	}
	return old
}

// correlation is an old value matched with a new one, for ratcheting: a
// rule's error about a value an update left unchanged is only a warning.
type correlation struct {
	old, new any
	equal    *bool
}

func (c *correlation) unchanged() bool {
	if c == nil {
		return false
	}
	if c.equal == nil {
		e := reflect.DeepEqual(c.old, c.new)
		c.equal = &e
	}
	return *c.equal
}

type evaluation struct {
	ctx      context.Context
	budget   int64
	errs     field.ErrorList
	warnings []string
}

// node validates obj (old: the correlated old value, nil if none) at p
// against n and the nodes under it; cur is obj's correlation, nearest the
// nearest correlated ancestor's.
func (v *evaluation) node(n *ruleNode, p *field.Path, obj, old any, cur, nearest *correlation) {
	if n == nil || obj == nil || v.budget < 0 {
		return
	}
	if cur != nil {
		nearest = cur
	}
	v.expressions(n, p, obj, old, nearest)
	if v.budget < 0 {
		return
	}
	switch obj := obj.(type) {
	case []any:
		if n.items == nil {
			return
		}
		oldList, _ := old.([]any)
		for i, e := range obj {
			var oldE any
			var c *correlation
			if n.schema.ListType == "map" {
				if oldE = mapListElement(n.schema.ListMapKeys, oldList, e); oldE != nil {
					c = &correlation{old: oldE, new: e}
				}
			}
			v.node(n.items, p.Index(i), e, oldE, c, nearest)
			if v.budget < 0 {
				return
			}
		}
	case map[string]any:
		oldMap, _ := old.(map[string]any)
		correlatable := n.schema.MapType == "" || n.schema.MapType == "granular" || n.schema.MapType == "atomic"
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		child := func(sub *ruleNode, path *field.Path, k string) {
			var oldV any
			if correlatable {
				oldV = oldMap[k]
			}
			var c *correlation
			if o, ok := oldMap[k]; ok && cur != nil {
				c = &correlation{old: o, new: obj[k]}
			}
			v.node(sub, path, obj[k], oldV, c, nearest)
		}
		if n.additional != nil {
			for _, k := range keys {
				if child(n.additional, p.Key(k), k); v.budget < 0 {
					return
				}
			}
		}
		for _, k := range keys {
			if sub := n.props[k]; sub != nil {
				if child(sub, p.Child(k), k); v.budget < 0 {
					return
				}
			}
		}
	}
}

// mapListElement is the element of old with e's keys, nil if none.
func mapListElement(keys []string, old []any, e any) any {
	em, ok := e.(map[string]any)
	if !ok {
		return nil
	}
	for _, o := range old {
		om, ok := o.(map[string]any)
		if !ok {
			continue
		}
		match := true
		for _, k := range keys {
			if !reflect.DeepEqual(om[k], em[k]) {
				match = false
				break
			}
		}
		if match {
			return o
		}
	}
	return nil
}

// activation is what a rule sees: self, and oldSelf where it has one.
type activation struct {
	self, oldSelf ref.Val
	hasOldSelf    bool
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "self":
		return a.self, true
	case "oldSelf":
		return a.oldSelf, a.hasOldSelf
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }

const outOfBudget = "validation failed due to running out of cost budget, no further validation rules will be run"

// expressions evaluates n's own rules on obj.
func (v *evaluation) expressions(n *ruleNode, p *field.Path, obj, old any, nearest *correlation) {
	typ := n.schema.Type
	if n.err != nil {
		v.errs = append(v.errs, field.Invalid(p, typ, fmt.Sprintf("rule compiler initialization error: %v", n.err)))
		return
	}
	if len(n.rules) == 0 {
		return
	}
	if v.budget <= 0 {
		v.errs = append(v.errs, field.Invalid(p, typ, outOfBudget))
		v.budget = -1
		return
	}
	self := value(obj, n.schema)
	plain := &activation{self: self}
	optional := &activation{self: self, hasOldSelf: true, oldSelf: types.OptionalNone}
	if n.oldSelf && old != nil {
		plain.oldSelf, plain.hasOldSelf = value(old, n.schema), true
		optional.oldSelf = types.OptionalOf(plain.oldSelf)
	}
	for _, c := range n.rules {
		r := c.rule
		if c.err != nil {
			v.errs = append(v.errs, field.Invalid(p, typ, "rule compile error: "+c.err.detail))
			continue
		}
		if c.program == nil {
			continue
		}
		optionalOldSelf := r.OptionalOldSelf != nil && *r.OptionalOldSelf
		if c.usesOldSelf && old == nil && !optionalOldSelf {
			continue
		}
		act := plain
		if optionalOldSelf {
			act = optional
		}
		result, details, err := c.program.ContextEval(v.ctx, act)
		if details == nil || details.ActualCost() == nil {
			v.errs = append(v.errs, field.InternalError(p, fmt.Sprintf("runtime cost could not be calculated for validation rule: %v, no further validation rules will be run", ruleString(r))))
			v.budget = -1
			return
		}
		if cost := *details.ActualCost(); cost > math.MaxInt64 || int64(cost) > v.budget {
			v.errs = append(v.errs, field.Invalid(p, typ, outOfBudget))
			v.budget = -1
			return
		} else {
			v.budget -= int64(cost)
		}
		if err != nil {
			switch msg := err.Error(); {
			case strings.HasPrefix(msg, "no such overload"):
				v.errs = append(v.errs, field.Invalid(p, typ, fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %v", msg, ruleString(r))))
			case strings.HasPrefix(msg, "operation cancelled: actual cost limit exceeded"):
				v.errs = append(v.errs, field.Invalid(p, typ, fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %v", msg, ruleString(r))))
				v.budget = -1
				return
			default:
				v.errs = append(v.errs, field.Invalid(p, typ, fmt.Sprintf("%v evaluating rule: %v", msg, ruleString(r))))
			}
			continue
		}
		if result == types.True {
			continue
		}
		at := p
		if c.fieldPath != "" {
			at = p.Child(c.fieldPath)
		}
		add := func(e *field.Error) {
			if e.Field == "" {
				e.Field = "<nil>"
			}
			if !c.usesOldSelf && nearest.unchanged() {
				v.warnings = append(v.warnings, e.Error())
			} else {
				v.errs = append(v.errs, e)
			}
		}
		message := ruleMessage(r)
		if c.message != nil {
			msg, fatal, ok := v.messageExpression(c, plain)
			switch {
			case fatal != "":
				add(field.Invalid(at, typ, fatal))
				v.budget = -1
				return
			case ok:
				message = msg
			}
		}
		add(reasonError(at, typ, message, r.Reason))
	}
}

// messageExpression evaluates a failed rule's messageExpression: its
// message, or the error that stops validation, or neither (the rule's
// message stands).
func (v *evaluation) messageExpression(c compiled, act *activation) (msg, fatal string, ok bool) {
	result, details, err := c.message.ContextEval(v.ctx, act)
	if details == nil || details.ActualCost() == nil {
		return "", fmt.Sprintf("runtime cost could not be calculated for messageExpression: %q", c.rule.MessageExpression), false
	}
	cost := *details.ActualCost()
	if cost > math.MaxInt64 || int64(cost) > v.budget {
		return "", "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run", false
	}
	if err != nil && strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded") {
		return "", fmt.Sprintf("no further validation rules will be run due to call cost exceeds limit for messageExpression: %q", c.rule.MessageExpression), false
	}
	v.budget -= int64(cost)
	if err != nil {
		return "", "", false
	}
	s, isString := result.Value().(string)
	s = strings.TrimSpace(s)
	if !isString || len(s) > maxMessageExpressionSize || strings.Contains(s, "\n") || s == "" {
		return "", "", false
	}
	return s, "", true
}

// reasonError is a failed rule's error, of the type its reason names.
func reasonError(p *field.Path, typ, detail string, reason *string) *field.Error {
	if reason != nil {
		switch *reason {
		case "FieldValueForbidden":
			return field.Forbidden(p, detail)
		case "FieldValueRequired":
			return field.Required(p, detail)
		case "FieldValueDuplicate":
			return field.Duplicate(p, typ)
		}
	}
	return field.Invalid(p, typ, detail)
}

func ruleMessage(r Rule) string {
	if r.Message == "" {
		return "failed rule: " + ruleString(r)
	}
	return strings.TrimSpace(r.Message)
}

func ruleString(r Rule) string {
	if r.Message != "" {
		return strings.TrimSpace(r.Message)
	}
	return strings.TrimSpace(r.Rule)
}

package cel

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"

	"kubeplay/core/field"
)

// reasons are the reasons a rule may give.
var reasons = []string{"FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"}

var lineBreaks = regexp.MustCompile(`[\n\r]+`)

// CheckOptions are what kube's validation of a definition knows besides the
// schema: the rules and message expressions its stored version already had
// (they compile in every option kube has; new ones only in its compatibility
// version's), and whether the version's schema is unchanged (its rules'
// costs are then not held to the per-expression limit).
type CheckOptions struct {
	Rules, MessageExpressions []string
	Unchanged                 bool
}

// CheckRules checks the x-kubernetes-validations rules of a version's
// openAPIV3Schema, at path, as kube's validation of a
// CustomResourceDefinition does: each rule's fields, then (where the schema
// has no such error) its compilation, its estimated cost and that of the
// whole schema.
func CheckRules(s *Schema, path *field.Path, opts CheckOptions) field.ErrorList {
	if s == nil {
		return nil
	}
	c := &ruleChecker{opts: opts}
	one := uint64(1)
	schemaErrs, celErrs := c.node(s, path, &nodeContext{inScope: len(s.Rules) > 0, root: true, cardinality: &one})
	errs := append(schemaErrs, celErrs...)
	if c.total > StaticEstimatedCRDCostLimit {
		for _, e := range c.expensive {
			errs = append(errs, field.Forbidden(e.path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))
		}
		errs = append(errs, field.Forbidden(path, costMessage("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", c.total, StaticEstimatedCRDCostLimit)))
	}
	return errs
}

type ruleChecker struct {
	opts      CheckOptions
	total     uint64
	expensive []ruleCost
}

type ruleCost struct {
	path *field.Path
	cost uint64
}

// observe adds a rule's cost to the schema's total, keeping the four most
// expensive of those over 1% of the limit.
func (c *ruleChecker) observe(p *field.Path, cost uint64) {
	if math.MaxUint64-c.total < cost {
		c.total = math.MaxUint64
	} else {
		c.total += cost
	}
	if cost < StaticEstimatedCRDCostLimit/100 {
		return
	}
	c.expensive = append(c.expensive, ruleCost{p, cost})
	sort.SliceStable(c.expensive, func(i, j int) bool { return c.expensive[i].cost > c.expensive[j].cost })
	if len(c.expensive) > 4 {
		c.expensive = c.expensive[:4]
	}
}

// nodeContext is where a schema node is: whether rules are at or above it,
// how many times it can occur (nil: unbounded), and the first ancestor under
// which old and new values do not correlate.
type nodeContext struct {
	inScope        bool
	root           bool
	cardinality    *uint64
	uncorrelatable *field.Path
}

func (n *nodeContext) child(parent, child *Schema, p *field.Path, uncorrelatable bool) *nodeContext {
	out := &nodeContext{inScope: n.inScope || len(child.Rules) > 0, uncorrelatable: n.uncorrelatable}
	if uncorrelatable && out.uncorrelatable == nil {
		out.uncorrelatable = p
	}
	if n.cardinality != nil {
		if m := maxElements(parent); m != nil {
			c := multiply(*n.cardinality, *m)
			out.cardinality = &c
		}
	}
	return out
}

// maxElements is how many values a schema's children may have: nil when
// unbounded.
func maxElements(s *Schema) *uint64 {
	one := uint64(1)
	switch s.Type {
	case "object":
		if s.AdditionalProperties == nil {
			return &one
		}
		if s.MaxProperties != nil {
			m := uint64(zeroIfNegative(*s.MaxProperties))
			return &m
		}
		return nil
	case "array":
		if s.MaxItems != nil {
			m := uint64(zeroIfNegative(*s.MaxItems))
			return &m
		}
		return nil
	}
	return &one
}

func multiply(a, b uint64) uint64 {
	if a == 0 {
		return 0
	}
	if math.MaxUint64/a < b {
		return math.MaxUint64
	}
	return a * b
}

// node checks s, at p, and the schemas under it: the errors of the rules'
// fields, then those of their compilation.
func (c *ruleChecker) node(s *Schema, p *field.Path, ctx *nodeContext) (schemaErrs, celErrs field.ErrorList) {
	add := func(sub func() (field.ErrorList, field.ErrorList)) {
		se, ce := sub()
		schemaErrs, celErrs = append(schemaErrs, se...), append(celErrs, ce...)
	}
	if a := s.additionalSchema(); a != nil {
		add(func() (field.ErrorList, field.ErrorList) {
			return c.node(a, p.Child("additionalProperties"), ctx.child(s, a, p, false))
		})
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		prop := s.Properties[n]
		uncorrelatable := s.MapType != "" && s.MapType != "granular" && s.MapType != "atomic"
		add(func() (field.ErrorList, field.ErrorList) {
			return c.node(prop, p.Child("properties").Key(n), ctx.child(s, prop, p, uncorrelatable))
		})
	}
	if s.Items != nil {
		add(func() (field.ErrorList, field.ErrorList) {
			return c.node(s.Items, p.Child("items"), ctx.child(s, s.Items, p, s.ListType != "map"))
		})
	}
	if len(s.Rules) == 0 {
		return schemaErrs, celErrs
	}
	rules := p.Child("x-kubernetes-validations")
	for i, r := range s.Rules {
		at := rules.Index(i)
		rule, msg := strings.TrimSpace(r.Rule), strings.TrimSpace(r.Message)
		switch {
		case rule == "":
			schemaErrs = append(schemaErrs, field.Required(at.Child("rule"), "rule is not specified"))
		case r.Message != "" && msg == "":
			schemaErrs = append(schemaErrs, field.Invalid(at.Child("message"), r.Message, "message must be non-empty if specified"))
		case lineBreaks.MatchString(msg):
			schemaErrs = append(schemaErrs, field.Invalid(at.Child("message"), r.Message, "message must not contain line breaks"))
		case lineBreaks.MatchString(rule) && msg == "":
			schemaErrs = append(schemaErrs, field.Required(at.Child("message"), "message must be specified if rule contains line breaks"))
		}
		if r.MessageExpression != "" && strings.TrimSpace(r.MessageExpression) == "" {
			schemaErrs = append(schemaErrs, field.Required(at.Child("messageExpression"), "messageExpression must be non-empty if specified"))
		}
		if r.Reason != nil && !slices.Contains(reasons, *r.Reason) {
			schemaErrs = append(schemaErrs, field.NotSupported(at.Child("reason"), *r.Reason, reasons))
		}
		if r.FieldPath != "" && strings.TrimSpace(r.FieldPath) == "" {
			schemaErrs = append(schemaErrs, field.Invalid(at.Child("fieldPath"), r.FieldPath, "fieldPath must be non-empty if specified"))
		}
		if lineBreaks.MatchString(r.FieldPath) {
			schemaErrs = append(schemaErrs, field.Invalid(at.Child("fieldPath"), r.FieldPath, "fieldPath must not contain line breaks"))
		}
		if r.FieldPath != "" {
			if _, err := validFieldPath(r.FieldPath, s); err != nil {
				schemaErrs = append(schemaErrs, field.Invalid(at.Child("fieldPath"), r.FieldPath, "fieldPath must be a valid path"))
			}
		}
	}
	if len(schemaErrs) > 0 || !ctx.inScope {
		return schemaErrs, celErrs
	}
	t := schemaDecl(s, ctx.root || s.EmbeddedResource)
	if t == nil {
		return schemaErrs, append(celErrs, field.InternalError(rules, "internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations"))
	}
	existing := func(e string, message bool) bool {
		if message {
			return slices.Contains(c.opts.MessageExpressions, e)
		}
		return slices.Contains(c.opts.Rules, e)
	}
	results, err := compileRules(s, t, existing)
	if err != nil {
		return schemaErrs, append(celErrs, field.InternalError(rules, err.Error()))
	}
	for i, cr := range results {
		at := rules.Index(i)
		cost := multiply(cr.maxCost, cr.maxCardinality)
		if ctx.cardinality != nil {
			cost = multiply(cr.maxCost, *ctx.cardinality)
		}
		if !c.opts.Unchanged && cost > StaticEstimatedCostLimit {
			celErrs = append(celErrs, field.Forbidden(at.Child("rule"), costMessage("estimated rule cost", cost, StaticEstimatedCostLimit)))
		}
		c.observe(at.Child("rule"), cost)
		if cr.err != nil {
			switch {
			case cr.err.required:
				celErrs = append(celErrs, field.Required(at.Child("rule"), cr.err.detail))
			default:
				celErrs = append(celErrs, field.Invalid(at.Child("rule"), ruleGoSyntax(cr.rule), cr.err.detail))
			}
		}
		if cr.messageErr != nil {
			celErrs = append(celErrs, field.Invalid(at.Child("messageExpression"), ruleGoSyntax(cr.rule), cr.messageErr.detail))
		} else if cr.message != nil {
			if !c.opts.Unchanged && cr.messageMaxCost > StaticEstimatedCostLimit {
				celErrs = append(celErrs, field.Forbidden(at.Child("messageExpression"), costMessage("estimated messageExpression cost", cr.messageMaxCost, StaticEstimatedCostLimit)))
			}
			c.observe(at.Child("messageExpression"), cr.messageMaxCost)
		}
		switch {
		case cr.usesOldSelf && ctx.uncorrelatable != nil:
			celErrs = append(celErrs, field.Invalid(at.Child("rule"), cr.rule.Rule, fmt.Sprintf("oldSelf cannot be used on the uncorrelatable portion of the schema within %v", ctx.uncorrelatable)))
		case !cr.usesOldSelf && cr.rule.OptionalOldSelf != nil:
			celErrs = append(celErrs, field.Invalid(at.Child("optionalOldSelf"), *cr.rule.OptionalOldSelf, "may not be set if oldSelf is not used in rule"))
		}
	}
	return schemaErrs, celErrs
}

// costMessage is kube's message for a cost over its limit.
func costMessage(name string, cost, limit uint64) string {
	factor := float64(cost) / float64(limit)
	var f string
	switch {
	case factor > 100.0:
		f = "more than 100x"
	case factor < 1.5:
		f = fmt.Sprintf("%fx", factor)
	default:
		f = fmt.Sprintf("%.1fx", factor)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", name, f)
}

// ruleGoSyntax is a rule as kube's messages show it (%#v of its
// apiextensions.ValidationRule).
func ruleGoSyntax(r Rule) field.GoSyntax {
	ptr := func(typ string, set bool) string {
		if !set {
			return "(" + typ + ")(nil)"
		}
		return "(" + typ + ")(0xc000000000)"
	}
	return field.GoSyntax(fmt.Sprintf("apiextensions.ValidationRule{Rule:%q, Message:%q, MessageExpression:%q, Reason:%s, FieldPath:%q, OptionalOldSelf:%s}",
		r.Rule, r.Message, r.MessageExpression, ptr("*apiextensions.FieldValueErrorReason", r.Reason != nil), r.FieldPath, ptr("*bool", r.OptionalOldSelf != nil)))
}

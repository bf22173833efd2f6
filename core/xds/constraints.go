package xds

import (
	"kubeplay/core/field"
	"kubeplay/core/xds/envoypb"
)

// Constraints are a resource variant's dynamic-parameter constraints
// (envoy.service.discovery.v3.DynamicParameterConstraints): a client whose
// dynamic parameters match them is served this variant of the name.
type Constraints struct {
	// Exactly one of these is set, as in the message's oneof.
	Single *SingleConstraint
	Or     []*Constraints
	And    []*Constraints
	Not    *Constraints

	json any    // as written, proto JSON
	wire []byte // encoded
}

// SingleConstraint is one key's constraint: equal to Value, or only present.
type SingleConstraint struct {
	Key    string
	Value  string
	Exists bool
}

// newConstraints reads constraints written in proto JSON at path.
func newConstraints(v any, path *field.Path) (*Constraints, field.ErrorList) {
	wire, errs := envoypb.Lookup("envoy.service.discovery.v3.DynamicParameterConstraints").Encode(nil, v, path)
	if len(errs) > 0 {
		return nil, errs
	}
	c := parseConstraints(v, path, &errs)
	if c != nil {
		c.json, c.wire = v, wire
	}
	return c, errs
}

// parseConstraints builds the tree of constraints from their proto JSON,
// which envoypb has checked; what the oneofs leave unset is an error.
func parseConstraints(v any, path *field.Path, errs *field.ErrorList) *Constraints {
	obj, _ := v.(map[string]any)
	c := &Constraints{}
	get := func(jsonName, name string) (any, *field.Path) {
		if x, ok := obj[jsonName]; ok && x != nil {
			return x, path.Child(jsonName)
		}
		if x, ok := obj[name]; ok && x != nil {
			return x, path.Child(name)
		}
		return nil, nil
	}
	list := func(x any, p *field.Path) []*Constraints {
		m, _ := x.(map[string]any)
		items, _ := m["constraints"].([]any)
		out := make([]*Constraints, len(items))
		for i, it := range items {
			out[i] = parseConstraints(it, p.Child("constraints").Index(i), errs)
		}
		return out
	}
	if x, p := get("constraint", "constraint"); x != nil {
		m, _ := x.(map[string]any)
		key, _ := m["key"].(string)
		value, hasValue := m["value"].(string)
		_, exists := m["exists"]
		if !hasValue && !exists {
			*errs = append(*errs, field.Required(p, "one of value and exists"))
		}
		c.Single = &SingleConstraint{Key: key, Value: value, Exists: exists && !hasValue}
	} else if x, p := get("orConstraints", "or_constraints"); x != nil {
		c.Or = list(x, p)
	} else if x, p := get("andConstraints", "and_constraints"); x != nil {
		c.And = list(x, p)
	} else if x, p := get("notConstraints", "not_constraints"); x != nil {
		c.Not = parseConstraints(x, p, errs)
	} else {
		*errs = append(*errs, field.Required(path, "one of constraint, orConstraints, andConstraints and notConstraints"))
	}
	return c
}

// Match says whether a client with these dynamic parameters matches c.
func (c *Constraints) Match(params map[string]string) bool {
	switch {
	case c.Single != nil:
		v, ok := params[c.Single.Key]
		return ok && (c.Single.Exists || v == c.Single.Value)
	case c.Or != nil:
		for _, o := range c.Or {
			if o.Match(params) {
				return true
			}
		}
		return false
	case c.And != nil:
		for _, a := range c.And {
			if !a.Match(params) {
				return false
			}
		}
		return true
	case c.Not != nil:
		return !c.Not.Match(params)
	}
	return false
}

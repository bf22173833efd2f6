// Package selector owns label and field selectors: parsing them with the grammar
// and error messages of k8s.io/apimachinery, printing them canonically and
// matching them against an object's labels and selectable fields.
package selector

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"kubeplay/core/validation"
)

// Operator is a label requirement's operator.
type Operator string

// The label selector operators.
const (
	Exists       Operator = "exists"
	DoesNotExist Operator = "!"
	Equals       Operator = "="
	DoubleEquals Operator = "=="
	NotEquals    Operator = "!="
	In           Operator = "in"
	NotIn        Operator = "notin"
	GreaterThan  Operator = "gt"
	LessThan     Operator = "lt"
)

// Requirement is one term of a label selector.
type Requirement struct {
	Key    string
	Op     Operator
	Values []string // sorted, unique
}

// Labels is a parsed label selector: the AND of its requirements, sorted by key.
// The zero value selects everything.
type Labels []Requirement

// Empty says whether the selector selects everything.
func (s Labels) Empty() bool { return len(s) == 0 }

// Matches says whether a set of labels satisfies every requirement.
func (s Labels) Matches(labels map[string]string) bool {
	for i := range s {
		if !s[i].Matches(labels) {
			return false
		}
	}
	return true
}

// Matches says whether labels satisfy r, as apimachinery's Requirement.Matches.
func (r *Requirement) Matches(labels map[string]string) bool {
	v, has := labels[r.Key]
	switch r.Op {
	case In, Equals, DoubleEquals:
		return has && r.hasValue(v)
	case NotIn, NotEquals:
		return !has || !r.hasValue(v)
	case Exists:
		return has
	case DoesNotExist:
		return !has
	case GreaterThan, LessThan:
		if !has {
			return false
		}
		lv, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false
		}
		rv, _ := strconv.ParseInt(r.Values[0], 10, 64)
		return (r.Op == GreaterThan && lv > rv) || (r.Op == LessThan && lv < rv)
	}
	return false
}

func (r *Requirement) hasValue(v string) bool {
	for _, x := range r.Values {
		if x == v {
			return true
		}
	}
	return false
}

// String prints the selector canonically (requirements sorted by key), as
// apimachinery does.
func (s Labels) String() string {
	parts := make([]string, len(s))
	for i, r := range s {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// String prints one requirement.
func (r Requirement) String() string {
	switch r.Op {
	case Exists:
		return r.Key
	case DoesNotExist:
		return "!" + r.Key
	case In, NotIn:
		return r.Key + " " + string(r.Op) + " (" + strings.Join(r.Values, ",") + ")"
	case GreaterThan:
		return r.Key + ">" + r.Values[0]
	case LessThan:
		return r.Key + "<" + r.Values[0]
	}
	return r.Key + string(r.Op) + r.Values[0]
}

// ParseLabels parses a label selector as labels.Parse does, with its error
// messages.
func ParseLabels(s string) (Labels, error) {
	items, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &labelParser{items: items}
	reqs, err := p.parse()
	if err != nil {
		return nil, err
	}
	// Not stable, like apimachinery's sort.Sort(ByKey(...)): the same algorithm, so
	// requirements with equal keys print in the same order as kube's.
	sort.Slice(reqs, func(i, j int) bool { return reqs[i].Key < reqs[j].Key })
	return reqs, nil
}

type token int

const (
	tokError token = iota
	tokEnd
	tokClosePar
	tokComma
	tokNot
	tokDoubleEquals
	tokEquals
	tokGreater
	tokIdent
	tokIn
	tokLess
	tokNotEquals
	tokNotIn
	tokOpenPar
)

var literalTokens = map[string]token{
	")": tokClosePar, ",": tokComma, "!": tokNot, "==": tokDoubleEquals, "=": tokEquals,
	">": tokGreater, "in": tokIn, "<": tokLess, "!=": tokNotEquals, "notin": tokNotIn, "(": tokOpenPar,
}

type item struct {
	tok token
	lit string
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isSymbol(c byte) bool {
	switch c {
	case '=', '!', '(', ')', ',', '>', '<':
		return true
	}
	return false
}

// lex splits s into tokens; a run of symbols takes the longest known operator.
// As in apimachinery's lexer, a NUL byte where a token would start ends the input,
// and a NUL byte ending an identifier or operator is consumed with it.
func lex(s string) ([]item, error) {
	var out []item
	i := 0
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) || s[i] == 0 {
			return append(out, item{tokEnd, ""}), nil
		}
		start := i
		if isSymbol(s[i]) {
			var last item
			for i < len(s) && isSymbol(s[i]) {
				if t, ok := literalTokens[s[start:i+1]]; ok {
					last = item{t, s[start : i+1]}
				} else if last.tok != tokError {
					break
				}
				i++
			}
			if last.tok == tokError {
				// apimachinery records the error as a token; the parser then
				// reports it where it expected something else.
				out = append(out, item{tokError, fmt.Sprintf("error expected: keyword found '%s'", s[start:i])})
				continue
			}
			i = start + len(last.lit)
			if i < len(s) && s[i] == 0 {
				i++
			}
			out = append(out, last)
			continue
		}
		for i < len(s) && s[i] != 0 && !isSymbol(s[i]) && !isSpace(s[i]) {
			i++
		}
		lit := s[start:i]
		if i < len(s) && s[i] == 0 {
			i++
		}
		if t, ok := literalTokens[lit]; ok {
			out = append(out, item{t, lit})
		} else {
			out = append(out, item{tokIdent, lit})
		}
	}
}

type labelParser struct {
	items []item
	pos   int
}

// peek and next read tokens; inValues treats the keywords in and notin as identifiers.
func (p *labelParser) peek(inValues bool) item {
	it := p.items[p.pos]
	if inValues && (it.tok == tokIn || it.tok == tokNotIn) {
		it.tok = tokIdent
	}
	return it
}

func (p *labelParser) next(inValues bool) item {
	it := p.peek(inValues)
	if p.pos < len(p.items)-1 {
		p.pos++
	}
	return it
}

func (p *labelParser) parse() (Labels, error) {
	var reqs Labels
	for {
		it := p.peek(true)
		switch it.tok {
		case tokIdent, tokNot:
			r, err := p.requirement()
			if err != nil {
				return nil, fmt.Errorf("unable to parse requirement: %v", err)
			}
			reqs = append(reqs, *r)
			sep := p.next(true)
			switch sep.tok {
			case tokEnd:
				return reqs, nil
			case tokComma:
				if t := p.peek(true); t.tok != tokIdent && t.tok != tokNot {
					return nil, fmt.Errorf("found '%s', expected: identifier after ','", t.lit)
				}
			default:
				return nil, fmt.Errorf("found '%s', expected: ',' or 'end of string'", sep.lit)
			}
		case tokEnd:
			return reqs, nil
		default:
			return nil, fmt.Errorf("found '%s', expected: !, identifier, or 'end of string'", it.lit)
		}
	}
}

func (p *labelParser) requirement() (*Requirement, error) {
	var op Operator
	it := p.next(true)
	if it.tok == tokNot {
		op = DoesNotExist
		it = p.next(true)
	}
	if it.tok != tokIdent {
		return nil, fmt.Errorf("found '%s', expected: identifier", it.lit)
	}
	key := it.lit
	if errs := validation.QualifiedName(key); len(errs) > 0 {
		return nil, fmt.Errorf("<nil>: Invalid value: %q: %s", key, strings.Join(errs, "; "))
	}
	// "!key" is complete whatever follows; what follows is the caller's to judge.
	if t := p.peek(true).tok; t == tokEnd || t == tokComma || op == DoesNotExist {
		if op != DoesNotExist {
			op = Exists
		}
		return &Requirement{Key: key, Op: op}, nil
	}
	opItem := p.next(false)
	switch opItem.tok {
	case tokIn:
		op = In
	case tokNotIn:
		op = NotIn
	case tokEquals:
		op = Equals
	case tokDoubleEquals:
		op = DoubleEquals
	case tokNotEquals:
		op = NotEquals
	case tokGreater:
		op = GreaterThan
	case tokLess:
		op = LessThan
	default:
		return nil, fmt.Errorf("found '%s', expected: in, notin, =, ==, !=, gt, lt", opItem.lit)
	}
	var values []string
	var err error
	if op == In || op == NotIn {
		values, err = p.valueSet()
	} else {
		values, err = p.exactValue()
	}
	if err != nil {
		return nil, err
	}
	return newRequirement(key, op, values)
}

// valueSet parses "(a,b,...)"; empty members are the empty string.
func (p *labelParser) valueSet() ([]string, error) {
	if it := p.next(true); it.tok != tokOpenPar {
		return nil, fmt.Errorf("found '%s' expected: '('", it.lit)
	}
	first := p.peek(true)
	switch first.tok {
	case tokClosePar:
		p.next(true)
		return []string{""}, nil
	case tokIdent, tokComma:
	default:
		return nil, fmt.Errorf("found '%s', expected: ',', ')' or identifier", first.lit)
	}
	var vals []string
	for {
		it := p.next(true)
		switch it.tok {
		case tokIdent:
			vals = append(vals, it.lit)
			switch after := p.peek(true); after.tok {
			case tokComma:
				continue
			case tokClosePar:
				p.next(true)
				return vals, nil
			default:
				return nil, fmt.Errorf("found '%s', expected: ',' or ')'", after.lit)
			}
		case tokComma:
			if len(vals) == 0 {
				vals = append(vals, "")
			}
			switch p.peek(true).tok {
			case tokClosePar:
				p.next(true)
				return append(vals, ""), nil
			case tokComma:
				p.next(true)
				vals = append(vals, "")
			}
		default:
			return nil, fmt.Errorf("found '%s', expected: ',', or identifier", it.lit)
		}
	}
}

func (p *labelParser) exactValue() ([]string, error) {
	if t := p.peek(true).tok; t == tokEnd || t == tokComma {
		return []string{""}, nil
	}
	it := p.next(true)
	if it.tok == tokIdent {
		return []string{it.lit}, nil
	}
	return nil, fmt.Errorf("found '%s', expected: identifier", it.lit)
}

// newRequirement checks values as apimachinery's NewRequirement does.
func newRequirement(key string, op Operator, values []string) (*Requirement, error) {
	sort.Strings(values)
	values = dedupe(values)
	var errs []string
	if op == GreaterThan || op == LessThan {
		for i, v := range values {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				errs = append(errs, fmt.Sprintf("values[%d]: Invalid value: %q: for 'Gt', 'Lt' operators, the value must be an integer", i, v))
			}
		}
	}
	for i, v := range values {
		if msgs := validation.LabelValue(v); len(msgs) > 0 {
			errs = append(errs, fmt.Sprintf("values[%d][%s]: Invalid value: %q: %s", i, key, v, strings.Join(msgs, "; ")))
		}
	}
	switch len(errs) {
	case 0:
		return &Requirement{Key: key, Op: op, Values: values}, nil
	case 1:
		return nil, fmt.Errorf("%s", errs[0])
	}
	return nil, fmt.Errorf("[%s]", strings.Join(errs, ", "))
}

func dedupe(sorted []string) []string {
	out := sorted[:0]
	for i, v := range sorted {
		if i == 0 || v != sorted[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// FormatLabelSelector prints a metav1.LabelSelector, in its JSON form, as
// LabelSelectorAsSelector(sel).String() does: requirements sorted by key
// (matchLabels before expressions on the same key), values of in/notin
// sorted. A missing or empty selector prints as "". ok is false where kube's
// conversion fails: an unknown operator, a bad key or value, values where
// none belong.
func FormatLabelSelector(sel map[string]any) (s string, ok bool) {
	type req struct{ key, text string }
	var reqs []req
	labels, _ := sel["matchLabels"].(map[string]any)
	for k, x := range labels {
		val, _ := x.(string)
		if !validLabelKey(k) || len(validation.LabelValue(val)) > 0 {
			return "", false
		}
		reqs = append(reqs, req{k, k + "=" + val})
	}
	sort.Slice(reqs, func(i, j int) bool { return reqs[i].key < reqs[j].key })
	exprs, _ := sel["matchExpressions"].([]any)
	for _, x := range exprs {
		e, _ := x.(map[string]any)
		key, _ := e["key"].(string)
		op, _ := e["operator"].(string)
		var values []string
		list, _ := e["values"].([]any)
		for _, v := range list {
			val, _ := v.(string)
			if len(validation.LabelValue(val)) > 0 {
				return "", false
			}
			values = append(values, val)
		}
		if !validLabelKey(key) {
			return "", false
		}
		var text string
		switch op {
		case "In", "NotIn":
			if len(values) == 0 {
				return "", false
			}
			sort.Strings(values)
			text = key + " " + strings.ToLower(op) + " (" + strings.Join(values, ",") + ")"
		case "Exists", "DoesNotExist":
			if len(values) != 0 {
				return "", false
			}
			text = key
			if op == "DoesNotExist" {
				text = "!" + key
			}
		default:
			return "", false
		}
		reqs = append(reqs, req{key, text})
	}
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].key < reqs[j].key })
	parts := make([]string, len(reqs))
	for i, r := range reqs {
		parts[i] = r.text
	}
	return strings.Join(parts, ","), true
}

func validLabelKey(k string) bool { return len(validation.QualifiedName(k)) == 0 }

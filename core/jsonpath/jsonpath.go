// Package jsonpath is client-go's JSONPath template language
// (k8s.io/client-go/util/jsonpath), the one dialect both kube-apiserver's
// custom resource columns (additionalPrinterColumns) and kubectl's -o
// jsonpath, custom-columns and --sort-by evaluate: parsed once into a
// Template, evaluated over values as encoding/json decodes them
// (map[string]any, []any, string, bool, nil, and numbers as float64, as
// int64 after kube's unstructured decoding, or as json.Number), with
// client-go's results, printing and error texts.
//
// It is written here rather than imported: client-go's evaluator walks
// values by reflection and costs a wasm module ~330 KB gzip.
package jsonpath

// This file owns evaluation and printing.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Template is a parsed template. It holds no evaluation state: one Template
// serves concurrent evaluations.
type Template struct {
	root *node
}

// Options are client-go's JSONPath switches.
type Options struct {
	// AllowMissingKeys: a missing field ends its branch instead of failing
	// with "KEY is not found".
	AllowMissingKeys bool
	// OutputJSON prints each action's results as one indented JSON array
	// (kubectl's -o jsonpath-as-json).
	OutputJSON bool
}

// evaluation is one evaluation's state: the range loops it is in.
type evaluation struct {
	allowMissingKeys              bool
	beginRange, inRange, endRange int
	lastEnd                       *node
}

// Execute prints the template's results for data, as client-go's Execute.
func (t *Template) Execute(w *bytes.Buffer, data any, opt Options) error {
	results, err := t.FindResults(data, opt.AllowMissingKeys)
	if err != nil {
		return err
	}
	for _, r := range results {
		if err := PrintResults(w, r, opt.OutputJSON); err != nil {
			return err
		}
	}
	return nil
}

// FindResults evaluates the template against data: one list of values per
// action or text, as client-go's FindResults; a {range} adds its body's
// lists once per value.
func (t *Template) FindResults(data any, allowMissingKeys bool) ([][]any, error) {
	e := &evaluation{allowMissingKeys: allowMissingKeys}
	if data == nil {
		data = noValue{}
	}
	return e.findResults(data, t.root.nodes)
}

// noValue is nothing at all, where client-go holds an invalid reflect.Value:
// the data of an evaluation on nil, and of a range's body when the range
// has no values. It prints as "<no value>".
type noValue struct{}

// String is how client-go's errors print the invalid value.
func (noValue) String() string { return "<invalid reflect.Value>" }

func (e *evaluation) findResults(data any, nodes []*node) ([][]any, error) {
	cur := []any{data}
	var full [][]any
	for i := 0; i < len(nodes); i++ {
		results, err := e.walk(cur, nodes[i])
		if err != nil {
			return nil, err
		}
		if e.endRange > 0 && e.endRange <= e.inRange {
			e.endRange--
			e.lastEnd = nodes[i]
			break
		}
		if e.beginRange > 0 {
			e.beginRange--
			e.inRange++
			if len(results) > 0 {
				for _, v := range results {
					next, err := e.findResults(v, nodes[i+1:])
					if err != nil {
						return nil, err
					}
					full = append(full, next...)
				}
			} else if _, err := e.findResults(noValue{}, nodes[i+1:]); err != nil {
				return nil, err
			}
			e.inRange--
			for k := i + 1; k < len(nodes); k++ {
				if nodes[k] == e.lastEnd {
					i = k
					break
				}
			}
			continue
		}
		full = append(full, results)
	}
	return full, nil
}

// PrintResults prints one list of results as client-go's PrintResults:
// objects and arrays as JSON, null as "null", scalars as fmt prints them,
// separated by spaces; with outputJSON, the list as one indented JSON array.
func PrintResults(w *bytes.Buffer, results []any, outputJSON bool) error {
	if outputJSON {
		results = []any{append([]any{}, results...)}
	}
	for i, r := range results {
		r = Normalize(r)
		switch r.(type) {
		case map[string]any, []any:
			var data []byte
			var err error
			if outputJSON {
				data, err = json.MarshalIndent(r, "", "    ")
				data = append(data, '\n')
			} else {
				data, err = json.Marshal(r)
			}
			if err != nil {
				return err
			}
			w.Write(data)
		case nil:
			w.WriteString("null")
		case noValue:
			w.WriteString("<no value>")
		default:
			fmt.Fprint(w, r)
		}
		if i != len(results)-1 {
			w.WriteByte(' ')
		}
	}
	return nil
}

// Normalize gives numbers the types kube's unstructured decoding gives
// them: json.Number becomes int64 when whole, float64 otherwise,
// recursively. A value without any comes back as it is.
func Normalize(v any) any {
	n, _ := normalize(v)
	return n
}

// normalize is Normalize and whether it changed anything: maps and slices
// are copied only when something inside changes.
func normalize(v any) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, true
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		return f, true
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			if n, changed := normalize(e); changed {
				if out == nil {
					out = maps.Clone(x)
				}
				out[k] = n
			}
		}
		if out != nil {
			return out, true
		}
	case []any:
		var out []any
		for i, e := range x {
			if n, changed := normalize(e); changed {
				if out == nil {
					out = slices.Clone(x)
				}
				out[i] = n
			}
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}

func (e *evaluation) walk(in []any, n *node) ([]any, error) {
	switch n.kind {
	case listNode:
		cur := in
		for _, c := range n.nodes {
			var err error
			if cur, err = e.walk(cur, c); err != nil {
				return cur, err
			}
		}
		return cur, nil
	case textNode:
		return []any{n.text}, nil
	case intNode:
		return repeat(in, n.i), nil
	case floatNode:
		return repeat(in, n.f), nil
	case boolNode:
		return repeat(in, n.b), nil
	case fieldNode:
		return e.evalField(in, n)
	case arrayNode:
		return evalArray(in, n)
	case filterNode:
		return e.evalFilter(in, n)
	case wildcardNode:
		var out []any
		for _, v := range in {
			out = append(out, children(v)...)
		}
		return out, nil
	case recursiveNode:
		return recursiveValues(in), nil
	case unionNode:
		var out []any
		for _, l := range n.union {
			r, err := e.walk(in, l)
			if err != nil {
				return in, err
			}
			out = append(out, r...)
		}
		return out, nil
	case identifierNode:
		switch n.text {
		case "range":
			e.beginRange++
			return in, nil
		case "end":
			if e.inRange > 0 {
				e.endRange++
				return nil, nil
			}
			return nil, errors.New("not in range, nothing to end")
		}
		return in, fmt.Errorf("unrecognized identifier %v", n.text)
	}
	return in, fmt.Errorf("unexpected Node %v", n.kind)
}

func repeat(in []any, v any) []any {
	out := make([]any, len(in))
	for i := range out {
		out[i] = v
	}
	return out
}

func (e *evaluation) evalField(in []any, n *node) ([]any, error) {
	var out []any
	if len(in) == 0 {
		return out, nil
	}
	for _, v := range in {
		if m, ok := v.(map[string]any); ok {
			if x, ok := m[n.text]; ok {
				out = append(out, x)
			}
		}
	}
	if len(out) == 0 && !e.allowMissingKeys {
		return out, fmt.Errorf("%s is not found", n.text)
	}
	return out, nil
}

func evalArray(in []any, n *node) ([]any, error) {
	var out []any
	for _, v := range in {
		if v == nil {
			continue
		}
		s, ok := v.([]any)
		if !ok {
			return in, fmt.Errorf("%s is not array or slice", typeName(Normalize(v)))
		}
		p := n.params
		if !p[0].known {
			p[0].value = 0
		}
		if p[0].value < 0 {
			p[0].value += len(s)
		}
		if !p[1].known {
			p[1].value = len(s)
		}
		if p[1].value < 0 || p[1].value == 0 && p[1].derived {
			p[1].value += len(s)
		}
		if p[1].value == p[0].value {
			return out, nil
		}
		switch {
		case p[0].value >= len(s) || p[0].value < 0:
			return in, fmt.Errorf("array index out of bounds: index %d, length %d", p[0].value, len(s))
		case p[1].value > len(s) || p[1].value < 0:
			return in, fmt.Errorf("array index out of bounds: index %d, length %d", p[1].value-1, len(s))
		case p[0].value > p[1].value:
			return in, fmt.Errorf("starting index %d is greater than ending index %d", p[0].value, p[1].value)
		}
		s = s[p[0].value:p[1].value]
		step := 1
		if p[2].known {
			if p[2].value <= 0 {
				return in, errors.New("step must be > 0")
			}
			step = p[2].value
		}
		for i := 0; i < len(s); i += step {
			out = append(out, s[i])
		}
	}
	return out, nil
}

// typeName is the Go type of a value as client-go's reflection names it
// ("map[string]interface {}").
func typeName(v any) string { return fmt.Sprintf("%T", v) }

// children are a map's values (by key: client-go's order is Go's random
// map order), a list's items, or a string's bytes, as reflection indexes
// a string.
func children(v any) []any {
	switch v := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		out := make([]any, len(keys))
		for i, k := range keys {
			out[i] = v[k]
		}
		return out
	case []any:
		return v
	case string:
		out := make([]any, len(v))
		for i := 0; i < len(v); i++ {
			out[i] = v[i]
		}
		return out
	}
	return nil
}

// recursiveValues are each value with children, followed by its
// descendants with children, depth first.
func recursiveValues(in []any) []any {
	var out []any
	for _, v := range in {
		if c := children(v); len(c) > 0 {
			out = append(out, v)
			out = append(out, recursiveValues(c)...)
		}
	}
	return out
}

func (e *evaluation) evalFilter(in []any, n *node) ([]any, error) {
	var out []any
	for _, v := range in {
		s, ok := v.([]any)
		if !ok {
			return in, fmt.Errorf("%v is not array or slice and cannot be filtered", Normalize(v))
		}
		for _, item := range s {
			lefts, err := e.walk([]any{item}, n.left)
			if n.text == "exists" {
				if len(lefts) > 0 {
					out = append(out, item)
				}
				continue
			}
			if err != nil {
				return in, err
			}
			if len(lefts) == 0 {
				continue
			} else if len(lefts) > 1 {
				return in, errors.New("can only compare one element at a time")
			}
			rights, err := e.walk([]any{item}, n.right)
			if err != nil {
				return in, err
			}
			if len(rights) == 0 {
				continue
			} else if len(rights) > 1 {
				return in, errors.New("can only compare one element at a time")
			}
			pass, err := compare(n.text, lefts[0], rights[0])
			if err != nil {
				return out, err
			}
			if pass {
				out = append(out, item)
			}
		}
	}
	return out, nil
}

var (
	errBadComparisonType = errors.New("invalid type for comparison")
	errBadComparison     = errors.New("incompatible types for comparison")
)

// compare is text/template's comparison of two basic values, as
// client-go's forked copy does it.
func compare(op string, a, b any) (bool, error) {
	switch op {
	case "==", "!=", "<", ">", "<=", ">=":
	default:
		return false, fmt.Errorf("unrecognized filter operator %s", op)
	}
	ka, va := basic(a)
	kb, vb := basic(b)
	if ka == "" || kb == "" {
		return false, errBadComparisonType
	}
	if ka != kb {
		return false, errBadComparison
	}
	var c int
	switch ka {
	case "bool":
		if op != "==" && op != "!=" {
			return false, errBadComparisonType
		}
		if va.(bool) != vb.(bool) {
			c = 1
		}
	case "int":
		c = cmp.Compare(va.(int64), vb.(int64))
	case "float":
		c = cmp.Compare(va.(float64), vb.(float64))
	case "string":
		c = strings.Compare(va.(string), vb.(string))
	}
	switch op {
	case "==":
		return c == 0, nil
	case "!=":
		return c != 0, nil
	case "<":
		return c < 0, nil
	case ">":
		return c > 0, nil
	case "<=":
		return c <= 0, nil
	}
	return c >= 0, nil
}

// basic is a value's kind for comparison and its value of that kind; a
// string's byte (from .*) is an integer, as reflection's uint8 compares
// with ints.
func basic(v any) (string, any) {
	switch v := Normalize(v).(type) {
	case bool:
		return "bool", v
	case string:
		return "string", v
	case int64:
		return "int", v
	case int: // a template's integer literal
		return "int", int64(v)
	case uint8:
		return "int", int64(v)
	case float64:
		return "float", v
	}
	return "", nil
}

package table

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"kubeplay/core/object"
)

// CustomColumn is one of a CRD version's additionalPrinterColumns.
type CustomColumn struct {
	Name        string
	Type        string // integer, number, string, boolean or date
	Format      string
	Description string // empty: kube describes the column by its JSONPath
	Priority    int
	JSONPath    string // e.g. .spec.replicas, .status.conditions[?(@.type=="Ready")].status
}

// ForCustom returns the printer kube-apiserver uses for a custom resource
// version (k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor):
// a Name column, then one column per additionalPrinterColumn; a version without
// any gets the Age column of the creation timestamp.
//
// A path outside the supported JSONPath subset (fields, ['key'], [n], [-n],
// [a:b:c], [*], .*, filters [?(@.f == literal)] with ==, !=, <, <=, >, >= and
// existence [?(@.f)]) fails with kube's "unrecognized column definition" error;
// the printer returned with it has the columns before the bad one, as kube falls
// back to.
func ForCustom(cols []CustomColumn) (*Printer, error) {
	if len(cols) == 0 {
		cols = []CustomColumn{{Name: "Age", Type: "date", Description: descCreationTimestamp, JSONPath: ".metadata.creationTimestamp"}}
	}
	columns := []Column{nameColumn}
	var paths []jsonPath
	var err error
	for _, c := range cols {
		p, perr := parseJSONPath(c.JSONPath)
		if perr != nil {
			err = fmt.Errorf("unrecognized column definition %q", c.JSONPath)
			break
		}
		desc := c.Description
		if desc == "" {
			desc = "Custom resource definition column (in JSONPath format): " + c.JSONPath
		}
		columns = append(columns, Column{Name: c.Name, Type: c.Type, Format: c.Format, Description: desc, Priority: c.Priority})
		paths = append(paths, p)
	}
	return &Printer{
		columns: columns,
		cells: func(obj object.Object, now time.Time) []any {
			cells := make([]any, 1, 1+len(paths))
			cells[0] = name(obj)
			for i, p := range paths {
				cells = append(cells, customCell(columns[i+1].Type, p, obj, now))
			}
			return cells
		},
	}, err
}

// customCell is the cell of one column: the first value the path finds, shaped
// by the column type; nil when the path finds nothing or fails.
func customCell(typ string, p jsonPath, obj object.Object, now time.Time) any {
	found, err := p.eval([]any{obj})
	if err != nil || len(found) == 0 {
		return nil
	}
	v := unstructured(found[0])
	switch typ {
	case "string":
		return printText(v)
	case "integer":
		switch n := v.(type) {
		case int64:
			return n
		case float64:
			return int64(n)
		}
	case "number":
		switch n := v.(type) {
		case int64:
			return float64(n)
		case float64:
			return n
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return b
		}
	case "date":
		if s, ok := v.(string); ok {
			if s == "" || s == "null" {
				return "<unknown>"
			}
			t, err := time.Parse(time.RFC3339, s)
			if err != nil {
				return "<invalid>"
			}
			return age(t, now)
		}
	}
	return nil
}

// printText is what the JSONPath printer writes for one value: JSON for
// objects and arrays, fmt's text for scalars, <no value> for null.
func printText(v any) any {
	switch x := v.(type) {
	case nil:
		return "<no value>"
	case map[string]any, []any:
		b, err := json.Marshal(x)
		if err != nil {
			return nil
		}
		return string(b)
	}
	return fmt.Sprint(v)
}

// unstructured gives numbers the types kube's unstructured decoding gives them:
// int64 for integers, float64 for the rest, recursively.
func unstructured(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = unstructured(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = unstructured(e)
		}
		return out
	}
	return v
}

// jsonPath is a parsed path of client-go's JSONPath template language, the
// subset CRD columns use.
type jsonPath []step

type step struct {
	kind  stepKind
	field string
	// index: start, end, stride with whether each was given; end derived from a
	// single index [n] means n+1.
	start, end, stride          int
	hasStart, hasEnd, hasStride bool
	derivedEnd                  bool
	left, right                 jsonPath // filter operands; right is nil for a literal
	literal                     any      // filter right-hand literal: string, int64, float64, bool
	op                          string   // filter operator, "exists" for [?(@.f)]; any other run of !<>= fails when evaluated, as in client-go
}

type stepKind int

const (
	fieldStep stepKind = iota
	wildcardStep
	indexStep
	filterStep
)

var (
	errUnsupported = errors.New("unsupported JSONPath")
	sliceRe        = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(-?\d*)(:-?\d*)?(:-?\d*)?$`) })
	filterRe       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([^!<>=]+)([!<>=]+)(.+?)$`) })
)

// parseJSONPath parses the inside of a {…} template action as client-go does.
func parseJSONPath(s string) (jsonPath, error) {
	var p jsonPath
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == '@' || c == '$':
			i++
		case strings.HasPrefix(s[i:], "[?("):
			end := filterEnd(s, i+3)
			if end < 0 {
				return nil, errUnsupported
			}
			st, err := parseFilter(s[i+3 : end])
			if err != nil {
				return nil, err
			}
			p = append(p, st)
			i = end + 2
		case strings.HasPrefix(s[i:], ".."):
			return nil, errUnsupported // recursive descent
		case c == '.':
			j := i + 1
			for j < len(s) && !isTerminator(s[j]) {
				if s[j] == '\\' {
					if j+1 == len(s) {
						return nil, errUnsupported // it would escape the closing brace
					}
					j++ // an escaped character does not end the field
				}
				j++
			}
			if raw := s[i+1 : j]; raw == "*" {
				p = append(p, step{kind: wildcardStep})
			} else {
				p = append(p, step{kind: fieldStep, field: strings.ReplaceAll(raw, `\`, "")})
			}
			i = j
		case c == '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return nil, errUnsupported
			}
			steps, err := parseBracket(s[i+1 : i+end])
			if err != nil {
				return nil, err
			}
			p = append(p, steps...)
			i += end + 1
		default:
			return nil, errUnsupported
		}
	}
	return p, nil
}

func isTerminator(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '.', ',', '[', ']', '$', '@', '{', '}':
		return true
	}
	return false
}

// filterEnd finds the ")" that closes a filter starting at from, with
// client-go's scan: the first quote opens a literal, a later unescaped quote of
// the same kind marks it closed for good, and a ")" counts while no literal is
// open. It must be followed by "]".
func filterEnd(s string, from int) int {
	begin, end := false, false
	var pair byte
	for i := from; i < len(s); i++ {
		switch c := s[i]; c {
		case '\n':
			return -1
		case '"', '\'':
			if !begin {
				begin, pair = true, c
			} else if c == pair && s[i-1] != '\\' {
				end = true
			}
		case ')':
			if begin == end {
				if i+1 < len(s) && s[i+1] == ']' {
					return i
				}
				return -1
			}
		}
	}
	return -1
}

func parseBracket(text string) (jsonPath, error) {
	if text == "*" {
		text = ":"
	}
	if strings.Contains(text, ",") {
		return nil, errUnsupported // unions
	}
	if len(text) >= 2 && text[0] == '\'' && text[len(text)-1] == '\'' && !strings.Contains(text[1:len(text)-1], "'") {
		// client-go reads ['key'] as the path .key, so a key with a dot in it
		// becomes two fields.
		return parseJSONPath("." + text[1:len(text)-1])
	}
	m := sliceRe().FindStringSubmatch(text)
	if m == nil {
		return nil, errUnsupported
	}
	num := func(s string) (int, bool, error) {
		if s == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(s)
		return n, true, err
	}
	st := step{kind: indexStep}
	var err1, err2, err3 error
	st.start, st.hasStart, err1 = num(m[1])
	if m[2] == "" {
		// [n] (and even []) selects one element: the end is derived.
		st.end, st.hasEnd, st.derivedEnd = st.start+1, true, true
	} else {
		st.end, st.hasEnd, err2 = num(m[2][1:])
	}
	if m[3] != "" {
		st.stride, st.hasStride, err3 = num(m[3][1:])
	}
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, err
	}
	return jsonPath{st}, nil
}

func parseFilter(text string) (step, error) {
	m := filterRe().FindStringSubmatch(text)
	if m == nil {
		left, err := parseJSONPath(text)
		return step{kind: filterStep, left: left, op: "exists"}, err
	}
	left, err := parseJSONPath(m[1])
	if err != nil {
		return step{}, err
	}
	st := step{kind: filterStep, left: left, op: m[2]}
	r := strings.Trim(m[3], " ") // client-go skips spaces, nothing else
	switch {
	case len(r) >= 2 && (r[0] == '"' || r[0] == '\'') && r[len(r)-1] == r[0]:
		body := r[1 : len(r)-1]
		if r[0] == '\'' {
			body = strings.ReplaceAll(body, `\'`, `'`)
			r = `"` + strings.ReplaceAll(body, `"`, `\"`) + `"`
		}
		s, err := strconv.Unquote(r)
		if err != nil {
			return step{}, errUnsupported
		}
		st.literal = s
	case r == "true" || r == "false":
		st.literal = r == "true"
	case r != "" && (r[0] == '@' || r[0] == '$' || r[0] == '.'):
		if st.right, err = parseJSONPath(r); err != nil {
			return step{}, err
		}
	default:
		if n, err := strconv.Atoi(r); err == nil {
			st.literal = int64(n)
		} else if f, err := strconv.ParseFloat(r, 64); err == nil && strings.Trim(r, "+-.0123456789") == "" {
			st.literal = f
		} else {
			return step{}, errUnsupported
		}
	}
	return st, nil
}

var errNotArray = errors.New("not array or slice")

// eval walks the path from each input as client-go's JSONPath with missing keys
// allowed: a missing field drops that branch, while indexing a non-array, an
// index out of bounds or an incomparable filter fails the whole path.
func (p jsonPath) eval(cur []any) ([]any, error) {
	for _, st := range p {
		var next []any
		for _, v := range cur {
			switch st.kind {
			case fieldStep:
				if m, ok := v.(map[string]any); ok {
					if x, ok := m[st.field]; ok {
						next = append(next, x)
					}
				}
			case wildcardStep:
				switch x := v.(type) {
				case map[string]any:
					// client-go visits a map in Go's random order; sorted
					// keys make the first value at least deterministic.
					keys := make([]string, 0, len(x))
					for k := range x {
						keys = append(keys, k)
					}
					sort.Strings(keys)
					for _, k := range keys {
						next = append(next, x[k])
					}
				case []any:
					next = append(next, x...)
				case string:
					for i := 0; i < len(x); i++ {
						next = append(next, x[i]) // the bytes, as reflection indexes a string
					}
				}
			case indexStep:
				if v == nil {
					continue
				}
				l, ok := v.([]any)
				if !ok {
					return nil, errNotArray
				}
				got, err := st.slice(l)
				if err != nil {
					return nil, err
				}
				next = append(next, got...)
			case filterStep:
				l, ok := v.([]any)
				if !ok {
					return nil, errNotArray
				}
				for _, e := range l {
					pass, err := st.match(e)
					if err != nil {
						return nil, err
					}
					if pass {
						next = append(next, e)
					}
				}
			}
		}
		// A nil value ends its branch wherever the next step looks into it.
		cur = next
	}
	return cur, nil
}

// slice applies [start:end:stride] with client-go's bounds rules.
func (st step) slice(l []any) ([]any, error) {
	n := len(l)
	start, end := 0, n
	if st.hasStart {
		start = st.start
	}
	if start < 0 {
		start += n
	}
	if st.hasEnd {
		end = st.end
	}
	if end < 0 || (end == 0 && st.derivedEnd) {
		end += n
	}
	if end == start {
		return nil, nil
	}
	if start >= n || start < 0 || end > n || end < 0 {
		return nil, errors.New("array index out of bounds")
	}
	if start > end {
		return nil, errors.New("starting index is greater than ending index")
	}
	stride := 1
	if st.hasStride {
		if st.stride <= 0 {
			return nil, errors.New("step must be > 0")
		}
		stride = st.stride
	}
	var out []any
	for i := start; i < end; i += stride {
		out = append(out, l[i])
	}
	return out, nil
}

var errComparison = errors.New("incompatible types for comparison")

// match evaluates a filter on one array element.
func (st step) match(e any) (bool, error) {
	lefts, err := st.left.eval([]any{e})
	if st.op == "exists" {
		return len(lefts) > 0, nil
	}
	if err != nil {
		return false, err
	}
	if len(lefts) == 0 {
		return false, nil
	}
	if len(lefts) > 1 {
		return false, errors.New("can only compare one element at a time")
	}
	right := st.literal
	if st.right != nil {
		rights, err := st.right.eval([]any{e})
		if err != nil {
			return false, err
		}
		if len(rights) == 0 {
			return false, nil
		}
		if len(rights) > 1 {
			return false, errors.New("can only compare one element at a time")
		}
		right = unstructured(rights[0])
	}
	return compare(unstructured(lefts[0]), right, st.op)
}

// compare is text/template's eq/ne/lt/le/gt/ge on basic kinds of the same kind.
func compare(a, b any, op string) (bool, error) {
	// Bytes of a string (from .*) compare with integers, as uint and int do.
	if x, ok := a.(uint8); ok {
		a = int64(x)
	}
	if y, ok := b.(uint8); ok {
		b = int64(y)
	}
	var c int
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		if !ok {
			return false, errComparison
		}
		c = strings.Compare(x, y)
	case int64:
		y, ok := b.(int64)
		if !ok {
			return false, errComparison
		}
		c = cmpOrdered(x, y)
	case float64:
		y, ok := b.(float64)
		if !ok {
			return false, errComparison
		}
		c = cmpOrdered(x, y)
	case bool:
		y, ok := b.(bool)
		if !ok {
			return false, errComparison
		}
		switch op {
		case "==":
			return x == y, nil
		case "!=":
			return x != y, nil
		}
		return false, errComparison
	default:
		return false, errComparison
	}
	switch op {
	case "==":
		return c == 0, nil
	case "!=":
		return c != 0, nil
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	case ">=":
		return c >= 0, nil
	}
	return false, errors.New("unrecognized filter operator " + op)
}

func cmpOrdered[T int64 | float64](x, y T) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

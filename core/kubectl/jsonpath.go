package kubectl

// This file owns kubectl's JSONPath dialect (client-go's util/jsonpath, as
// -o jsonpath, custom-columns and --sort-by use it), evaluated over objects
// decoded from JSON (map[string]any, []any, string, int64, float64,
// bool, nil). It is written here rather than imported: client-go's evaluator walks
// values by reflection and costs the module ~330 KB gzip.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// jpKind is the kind of a parsed JSONPath node.
type jpKind int

const (
	jpText jpKind = iota
	jpList
	jpField
	jpWildcard
	jpRecursive
	jpArray
	jpUnion
	jpFilter
	jpInt
	jpFloat
	jpBool
	jpIdentifier
)

// jpNode is one node of a parsed template.
type jpNode struct {
	kind   jpKind
	text   string    // jpText's text, jpField's key, jpIdentifier's name, jpFilter's operator
	nodes  []*jpNode // jpList's nodes
	union  []*jpNode // jpUnion's lists
	left   *jpNode   // jpFilter's operands (lists)
	right  *jpNode
	params [3]jpParam // jpArray's start:end:step
	i      int
	f      float64
	b      bool
}

// jpParam is one bound of an array slice.
type jpParam struct {
	value          int
	known, derived bool
}

// jsonPath is a parsed template and how it prints.
type jsonPath struct {
	root             *jpNode
	allowMissingKeys bool
	outputJSON       bool
	// range state while executing, as client-go keeps it
	beginRange, inRange, endRange int
	lastEnd                       *jpNode
}

const jpEOF = -1

var (
	jpSliceRe  = regexp.MustCompile(`^(-?[\d]*)(:-?[\d]*)?(:-?[\d]*)?$`)
	jpDictRe   = regexp.MustCompile(`^'([^']*)'$`)
	jpFilterRe = regexp.MustCompile(`^([^!<>=]+)([!<>=]+)(.+?)$`)
)

// jpParser reads a template as client-go's parser does, error texts included.
type jpParser struct {
	input             string
	pos, start, width int
	root              *jpNode
}

// parseJSONPath parses a template ("{.items[*].metadata.name}").
func parseJSONPath(text string) (*jsonPath, error) {
	p := &jpParser{input: text, root: &jpNode{kind: jpList}}
	if err := p.parseText(p.root); err != nil {
		return nil, err
	}
	return &jsonPath{root: p.root}, nil
}

// parseAction parses text as the inside of one {action}: its list.
func parseAction(text string) (*jpNode, error) {
	jp, err := parseJSONPath("{" + text + "}")
	if err != nil {
		return nil, err
	}
	return jp.root.nodes[0], nil
}

func (p *jpParser) consume() string {
	v := p.input[p.start:p.pos]
	p.start = p.pos
	return v
}

func (p *jpParser) next() rune {
	if p.pos >= len(p.input) {
		p.width = 0
		return jpEOF
	}
	r, w := utf8.DecodeRuneInString(p.input[p.pos:])
	p.width = w
	p.pos += w
	return r
}

func (p *jpParser) backup() { p.pos -= p.width }

func (p *jpParser) peek() rune {
	r := p.next()
	p.backup()
	return r
}

func (p *jpParser) parseText(cur *jpNode) error {
	for {
		if strings.HasPrefix(p.input[p.pos:], "{") {
			if p.pos > p.start {
				cur.nodes = append(cur.nodes, &jpNode{kind: jpText, text: p.consume()})
			}
			p.pos++
			p.consume()
			action := &jpNode{kind: jpList}
			cur.nodes = append(cur.nodes, action)
			return p.parseInside(action)
		}
		if p.next() == jpEOF {
			break
		}
	}
	if p.pos > p.start {
		cur.nodes = append(cur.nodes, &jpNode{kind: jpText, text: p.consume()})
	}
	return nil
}

func (p *jpParser) parseInside(cur *jpNode) error {
	rest := p.input[p.pos:]
	switch {
	case strings.HasPrefix(rest, "}"):
		p.pos++
		p.consume()
		return p.parseText(p.root)
	case strings.HasPrefix(rest, "[?("):
		return p.parseFilter(cur)
	case strings.HasPrefix(rest, ".."):
		if n := len(cur.nodes); n > 0 && cur.nodes[n-1].kind == jpRecursive {
			return errors.New("invalid multiple recursive descent")
		}
		p.pos += 2
		p.consume()
		cur.nodes = append(cur.nodes, &jpNode{kind: jpRecursive})
		if jpAlphaNumeric(p.peek()) {
			return p.parseField(cur)
		}
		return p.parseInside(cur)
	}
	switch r := p.next(); {
	case r == jpEOF || r == '\r' || r == '\n':
		return errors.New("unclosed action")
	case r == ' ', r == '@', r == '$':
		p.consume()
	case r == '[':
		return p.parseArray(cur)
	case r == '"' || r == '\'':
		return p.parseQuote(cur, r)
	case r == '.':
		return p.parseField(cur)
	case r == '+' || r == '-' || unicode.IsDigit(r):
		p.backup()
		return p.parseNumber(cur)
	case jpAlphaNumeric(r):
		p.backup()
		return p.parseIdentifier(cur)
	default:
		return fmt.Errorf("unrecognized character in action: %#U", r)
	}
	return p.parseInside(cur)
}

func (p *jpParser) parseIdentifier(cur *jpNode) error {
	for !jpTerminator(p.next()) {
	}
	p.backup()
	v := p.consume()
	if v == "true" || v == "false" {
		cur.nodes = append(cur.nodes, &jpNode{kind: jpBool, b: v == "true"})
	} else {
		cur.nodes = append(cur.nodes, &jpNode{kind: jpIdentifier, text: v})
	}
	return p.parseInside(cur)
}

func (p *jpParser) parseNumber(cur *jpNode) error {
	if r := p.peek(); r == '+' || r == '-' {
		p.next()
	}
	for {
		if r := p.next(); r != '.' && !unicode.IsDigit(r) {
			p.backup()
			break
		}
	}
	v := p.consume()
	if i, err := strconv.Atoi(v); err == nil {
		cur.nodes = append(cur.nodes, &jpNode{kind: jpInt, i: i})
		return p.parseInside(cur)
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		cur.nodes = append(cur.nodes, &jpNode{kind: jpFloat, f: f})
		return p.parseInside(cur)
	}
	return fmt.Errorf("cannot parse number %s", v)
}

func (p *jpParser) parseArray(cur *jpNode) error {
	for done := false; !done; {
		switch p.next() {
		case jpEOF, '\n':
			return errors.New("unterminated array")
		case ']':
			done = true
		}
	}
	text := p.consume()
	text = text[1 : len(text)-1]
	if text == "*" {
		text = ":"
	}
	if parts := strings.Split(text, ","); len(parts) > 1 {
		u := &jpNode{kind: jpUnion}
		for _, s := range parts {
			l, err := parseAction("[" + strings.Trim(s, " ") + "]")
			if err != nil {
				return err
			}
			u.union = append(u.union, l)
		}
		cur.nodes = append(cur.nodes, u)
		return p.parseInside(cur)
	}
	if m := jpDictRe.FindStringSubmatch(text); m != nil {
		l, err := parseAction("." + m[1])
		if err != nil {
			return err
		}
		cur.nodes = append(cur.nodes, l.nodes...)
		return p.parseInside(cur)
	}
	m := jpSliceRe.FindStringSubmatch(text)
	if m == nil {
		return fmt.Errorf("invalid array index %s", text)
	}
	n := &jpNode{kind: jpArray}
	for i, v := range m[1:] {
		switch {
		case v != "":
			if i > 0 {
				v = v[1:]
			}
			if i > 0 && v == "" {
				continue
			}
			x, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("array index %s is not a number", v)
			}
			n.params[i] = jpParam{value: x, known: true}
		case i == 1:
			n.params[1] = jpParam{value: n.params[0].value + 1, known: true, derived: true}
		}
	}
	cur.nodes = append(cur.nodes, n)
	return p.parseInside(cur)
}

func (p *jpParser) parseFilter(cur *jpNode) error {
	p.pos += 3
	p.consume()
	begin, end := false, false
	var pair rune
	for done := false; !done; {
		switch r := p.next(); r {
		case jpEOF, '\n':
			return errors.New("unterminated filter")
		case '"', '\'':
			if !begin {
				begin, pair = true, r
				continue
			}
			if p.input[p.pos-2] != '\\' && r == pair {
				end = true
			}
		case ')':
			if begin == end {
				done = true
			}
		}
	}
	if p.next() != ']' {
		return errors.New("unclosed array expect ]")
	}
	text := p.consume()
	text = text[:len(text)-2]
	f := &jpNode{kind: jpFilter}
	if m := jpFilterRe.FindStringSubmatch(text); m == nil {
		l, err := parseAction(text)
		if err != nil {
			return err
		}
		f.left, f.right, f.text = l, &jpNode{kind: jpList}, "exists"
	} else {
		l, err := parseAction(m[1])
		if err != nil {
			return err
		}
		r, err := parseAction(m[3])
		if err != nil {
			return err
		}
		f.left, f.right, f.text = l, r, m[2]
	}
	cur.nodes = append(cur.nodes, f)
	return p.parseInside(cur)
}

func (p *jpParser) parseQuote(cur *jpNode, end rune) error {
	for done := false; !done; {
		switch p.next() {
		case jpEOF, '\n':
			return errors.New("unterminated quoted string")
		case end:
			done = p.input[p.pos-2] != '\\'
		}
	}
	v := p.consume()
	s, err := jpUnquote(v)
	if err != nil {
		return fmt.Errorf("unquote string %s error %v", v, err)
	}
	cur.nodes = append(cur.nodes, &jpNode{kind: jpText, text: s})
	return p.parseInside(cur)
}

func (p *jpParser) parseField(cur *jpNode) error {
	p.consume()
	for {
		r := p.next()
		if r == '\\' {
			p.next()
		} else if jpTerminator(r) {
			p.backup()
			break
		}
	}
	v := p.consume()
	if v == "*" {
		cur.nodes = append(cur.nodes, &jpNode{kind: jpWildcard})
	} else {
		cur.nodes = append(cur.nodes, &jpNode{kind: jpField, text: strings.ReplaceAll(v, `\`, "")})
	}
	return p.parseInside(cur)
}

// jpUnquote is strconv.Unquote for a single- or double-quoted string whose
// escapes are Go's.
func jpUnquote(s string) (string, error) {
	n := len(s)
	if n < 2 || s[0] != s[n-1] || s[0] != '"' && s[0] != '\'' {
		return "", errors.New("invalid syntax")
	}
	quote := s[0]
	s = s[1 : n-1]
	if !strings.ContainsAny(s, `\`+string(quote)) {
		return s, nil
	}
	var b strings.Builder
	for len(s) > 0 {
		c, multibyte, rest, err := strconv.UnquoteChar(s, quote)
		if err != nil {
			return "", err
		}
		s = rest
		if c < utf8.RuneSelf || !multibyte {
			b.WriteByte(byte(c))
		} else {
			b.WriteRune(c)
		}
	}
	return b.String(), nil
}

func jpTerminator(r rune) bool {
	switch r {
	case ' ', '\t', '\r', '\n', jpEOF, '.', ',', '[', ']', '$', '@', '{', '}':
		return true
	}
	return false
}

func jpAlphaNumeric(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// execute prints the template's results for data, as client-go's Execute.
func (j *jsonPath) execute(w *bytes.Buffer, data any) error {
	j.beginRange, j.inRange, j.endRange, j.lastEnd = 0, 0, 0, nil
	results, err := j.findResults(data, j.root.nodes)
	if err != nil {
		return err
	}
	for _, r := range results {
		if err := j.printResults(w, r); err != nil {
			return err
		}
	}
	return nil
}

// findResults evaluates nodes against data; a {range} repeats the nodes
// after it, up to its {end}, for each of its values.
func (j *jsonPath) findResults(data any, nodes []*jpNode) ([][]any, error) {
	cur := []any{data}
	var full [][]any
	for i := 0; i < len(nodes); i++ {
		results, err := j.walk(cur, nodes[i])
		if err != nil {
			return nil, err
		}
		if j.endRange > 0 && j.endRange <= j.inRange {
			j.endRange--
			j.lastEnd = nodes[i]
			break
		}
		if j.beginRange > 0 {
			j.beginRange--
			j.inRange++
			if len(results) > 0 {
				for _, v := range results {
					next, err := j.findResults(v, nodes[i+1:])
					if err != nil {
						return nil, err
					}
					full = append(full, next...)
				}
			} else if _, err := j.findResults(nil, nodes[i+1:]); err != nil {
				return nil, err
			}
			j.inRange--
			for k := i + 1; k < len(nodes); k++ {
				if nodes[k] == j.lastEnd {
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

func (j *jsonPath) printResults(w *bytes.Buffer, results []any) error {
	if j.outputJSON {
		all := make([]any, len(results))
		copy(all, results)
		results = []any{all}
	}
	for i, r := range results {
		switch r.(type) {
		case map[string]any, []any:
			var data []byte
			var err error
			if j.outputJSON {
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
		default:
			fmt.Fprint(w, r)
		}
		if i != len(results)-1 {
			w.WriteByte(' ')
		}
	}
	return nil
}

func (j *jsonPath) walk(in []any, n *jpNode) ([]any, error) {
	switch n.kind {
	case jpList:
		cur := in
		for _, c := range n.nodes {
			var err error
			if cur, err = j.walk(cur, c); err != nil {
				return cur, err
			}
		}
		return cur, nil
	case jpText:
		return []any{n.text}, nil
	case jpInt:
		return jpRepeat(in, n.i), nil
	case jpFloat:
		return jpRepeat(in, n.f), nil
	case jpBool:
		return jpRepeat(in, n.b), nil
	case jpField:
		return j.evalField(in, n)
	case jpArray:
		return evalArray(in, n)
	case jpFilter:
		return j.evalFilter(in, n)
	case jpWildcard:
		var out []any
		for _, v := range in {
			out = append(out, jpChildren(v)...)
		}
		return out, nil
	case jpRecursive:
		return jpRecursiveValues(in), nil
	case jpUnion:
		var out []any
		for _, l := range n.union {
			r, err := j.walk(in, l)
			if err != nil {
				return in, err
			}
			out = append(out, r...)
		}
		return out, nil
	case jpIdentifier:
		switch n.text {
		case "range":
			j.beginRange++
			return in, nil
		case "end":
			if j.inRange > 0 {
				j.endRange++
				return nil, nil
			}
			return nil, errors.New("not in range, nothing to end")
		}
		return in, fmt.Errorf("unrecognized identifier %v", n.text)
	}
	return in, fmt.Errorf("unexpected Node %v", n.kind)
}

func jpRepeat(in []any, v any) []any {
	out := make([]any, len(in))
	for i := range out {
		out[i] = v
	}
	return out
}

func (j *jsonPath) evalField(in []any, n *jpNode) ([]any, error) {
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
	if len(out) == 0 && !j.allowMissingKeys {
		return out, fmt.Errorf("%s is not found", n.text)
	}
	return out, nil
}

func evalArray(in []any, n *jpNode) ([]any, error) {
	var out []any
	for _, v := range in {
		if v == nil {
			continue
		}
		s, ok := v.([]any)
		if !ok {
			return in, fmt.Errorf("%s is not array or slice", goTypeName(v))
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

// jpChildren are a map's values (by key) or a list's items.
func jpChildren(v any) []any {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make([]any, len(keys))
		for i, k := range keys {
			out[i] = v[k]
		}
		return out
	case []any:
		return v
	}
	return nil
}

// jpRecursiveValues are each value with children, followed by its
// descendants with children, depth first.
func jpRecursiveValues(in []any) []any {
	var out []any
	for _, v := range in {
		if c := jpChildren(v); len(c) > 0 {
			out = append(out, v)
			out = append(out, jpRecursiveValues(c)...)
		}
	}
	return out
}

func (j *jsonPath) evalFilter(in []any, n *jpNode) ([]any, error) {
	var out []any
	for _, v := range in {
		s, ok := v.([]any)
		if !ok {
			return in, fmt.Errorf("%v is not array or slice and cannot be filtered", v)
		}
		for _, item := range s {
			lefts, err := j.walk([]any{item}, n.left)
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
			rights, err := j.walk([]any{item}, n.right)
			if err != nil {
				return in, err
			}
			if len(rights) == 0 {
				continue
			} else if len(rights) > 1 {
				return in, errors.New("can only compare one element at a time")
			}
			pass, err := jpCompare(n.text, lefts[0], rights[0])
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

// jpCompare is text/template's comparison of two basic values, as
// client-go's forked copy does it.
func jpCompare(op string, a, b any) (bool, error) {
	ka, va := jpBasic(a)
	kb, vb := jpBasic(b)
	if ka == "" || kb == "" {
		return false, errors.New("invalid type for comparison")
	}
	if ka != kb {
		return false, errors.New("incompatible types for comparison")
	}
	var c int
	switch ka {
	case "bool":
		if op != "==" && op != "!=" {
			return false, errors.New("invalid type for comparison")
		}
		if va.(bool) != vb.(bool) {
			c = 1
		}
	case "int":
		c = cmpOrdered(va.(int64), vb.(int64))
	case "float":
		c = cmpOrdered(va.(float64), vb.(float64))
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
	case ">=":
		return c >= 0, nil
	}
	return false, fmt.Errorf("unrecognized filter operator %s", op)
}

func cmpOrdered[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// jpBasic is a value's kind for comparison and its value of that kind.
func jpBasic(v any) (string, any) {
	switch v := v.(type) {
	case bool:
		return "bool", v
	case string:
		return "string", v
	case int:
		return "int", int64(v)
	case float64:
		return "float", v
	case int64:
		return "int", v
	}
	return "", nil
}

// goTypeName is the Go type of v as kubectl holds it ("map[string]interface {}").
func goTypeName(v any) string { return fmt.Sprintf("%T", v) }

package kubectl

// This file owns -o go-template: the part of Go's text/template that
// kubectl users write (fields, variables, pipelines, if/else, range, with,
// the comparison and logic functions, index, len, print, printf, and
// kubectl's base64decode and exists), evaluated over the object as kubectl
// gives it to the template (decoded from JSON, whole numbers int64). It is not
// text/template itself: that package keeps every method of every type alive
// and costs the module over a megabyte.

import (
	"cmp"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// tmplNode is one node of a parsed template.
type tmplNode struct {
	kind     string // text, action, if, range, with
	text     string
	pipe     *tmplPipe
	list     []*tmplNode
	elseList []*tmplNode
	pos      int
}

// tmplPipe is a pipeline, with the variables it declares.
type tmplPipe struct {
	decl   []string
	assign bool // = rather than :=
	cmds   [][]*tmplArg
	pos    int
	source string
}

// tmplArg is one operand of a command.
type tmplArg struct {
	kind   string // field, var, dot, string, number, bool, nil, ident, pipe
	text   string // as written
	pos    int    // where text/template places it in errors
	fields []string
	name   string
	value  any
	pipe   *tmplPipe
}

// goTemplate is a parsed template.
type goTemplate struct {
	src  string
	root []*tmplNode
	// missingKeyError: a missing map key is an error
	// (--allow-missing-template-keys=false), not "<no value>".
	missingKeyError bool
}

type tmplParser struct {
	src string
	pos int
	// vars are the variables in scope ("$" always).
	vars []string
}

// parseGoTemplate parses src as text/template would, in the subset this
// file evaluates; errors read as text/template's ("template: output:1: ...").
func parseGoTemplate(src string) (*goTemplate, error) {
	p := &tmplParser{src: src, vars: []string{"$"}}
	list, end, err := p.parseList()
	if err != nil {
		return nil, err
	}
	if end != "" {
		return nil, p.errorf("unexpected {{%s}}", end)
	}
	return &goTemplate{src: src, root: list}, nil
}

func (p *tmplParser) errorf(format string, args ...any) error {
	line := 1 + strings.Count(p.src[:min(p.pos, len(p.src))], "\n")
	return fmt.Errorf("template: output:%d: %s", line, fmt.Sprintf(format, args...))
}

// parseList reads nodes up to {{end}} or {{else ...}}, which it returns.
func (p *tmplParser) parseList() ([]*tmplNode, string, error) {
	mark := len(p.vars)
	defer func() { p.vars = p.vars[:mark] }()
	var list []*tmplNode
	for p.pos < len(p.src) {
		i := strings.Index(p.src[p.pos:], "{{")
		if i < 0 {
			list = append(list, &tmplNode{kind: "text", text: p.src[p.pos:]})
			p.pos = len(p.src)
			break
		}
		text := p.src[p.pos : p.pos+i]
		p.pos += i + 2
		if strings.HasPrefix(p.src[p.pos:], "- ") {
			text = strings.TrimRightFunc(text, unicode.IsSpace)
			p.pos++
		}
		if text != "" {
			list = append(list, &tmplNode{kind: "text", text: text})
		}
		start := p.pos
		end := p.actionEnd()
		if end < 0 {
			return nil, "", p.errorf("unclosed action")
		}
		inner := strings.TrimSpace(p.src[start:end])
		p.pos = end + 2
		if strings.HasSuffix(p.src[start:end], " -") {
			inner = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(p.src[start:end]), "-"))
			for p.pos < len(p.src) && unicode.IsSpace(rune(p.src[p.pos])) {
				p.pos++
			}
		}
		if strings.HasPrefix(inner, "/*") {
			continue
		}
		innerAt := start + strings.Index(p.src[start:end], inner)
		word, rest, _ := strings.Cut(inner, " ")
		restAt := innerAt + len(inner) - len(strings.TrimLeft(rest, " "))
		rest = strings.TrimSpace(rest)
		switch word {
		case "end":
			return list, "end", nil
		case "else":
			return list, "else " + rest, nil
		case "if", "range", "with":
			n, err := p.parseBlock(word, rest, restAt)
			if err != nil {
				return nil, "", err
			}
			list = append(list, n)
		default:
			pipe, err := p.parsePipe(inner, innerAt)
			if err != nil {
				return nil, "", err
			}
			p.vars = append(p.vars, pipe.decl...)
			list = append(list, &tmplNode{kind: "action", pipe: pipe, pos: start})
		}
	}
	return list, "", nil
}

// actionEnd is where the action begun at p.pos ends ("}}"), outside quotes.
func (p *tmplParser) actionEnd() int {
	for i := p.pos; i < len(p.src)-1; i++ {
		switch p.src[i] {
		case '"', '`':
			q := p.src[i]
			for i++; i < len(p.src) && p.src[i] != q; i++ {
				if q == '"' && p.src[i] == '\\' {
					i++
				}
			}
		case '}':
			if p.src[i+1] == '}' {
				return i
			}
		case '\n':
			if !strings.HasPrefix(strings.TrimSpace(p.src[p.pos:i]), "/*") {
				return -1
			}
		}
	}
	return -1
}

func (p *tmplParser) parseBlock(kind, rest string, pos int) (*tmplNode, error) {
	if rest == "" {
		return nil, p.errorf("missing value for %s", kind)
	}
	pipe, err := p.parsePipe(rest, pos)
	if err != nil {
		return nil, err
	}
	n := &tmplNode{kind: kind, pipe: pipe, pos: pos}
	mark := len(p.vars)
	p.vars = append(p.vars, pipe.decl...)
	list, end, err := p.parseList()
	p.vars = p.vars[:mark]
	if err != nil {
		return nil, err
	}
	n.list = list
	switch {
	case end == "":
		return nil, p.errorf("unexpected EOF")
	case end == "else ":
		if n.elseList, end, err = p.parseList(); err != nil {
			return nil, err
		}
		if end != "end" {
			return nil, p.errorf("expected end; found {{%s}}", strings.TrimSpace(end))
		}
	case strings.HasPrefix(end, "else "):
		// {{else if ...}} and {{else with ...}}: a nested block that
		// ends at this block's {{end}}.
		word, rest, _ := strings.Cut(strings.TrimPrefix(end, "else "), " ")
		if word != kind || kind == "range" {
			return nil, p.errorf("unexpected {{%s}}", end)
		}
		nested, err := p.parseBlock(word, strings.TrimSpace(rest), pos+len(word)+1)
		if err != nil {
			return nil, err
		}
		n.elseList = []*tmplNode{nested}
	}
	return n, nil
}

// parsePipe parses "[$x := ] cmd | cmd ..." written at pos.
func (p *tmplParser) parsePipe(src string, pos int) (*tmplPipe, error) {
	toks, err := tmplTokens(src, pos)
	if err != nil {
		return nil, p.errorf("%v", err)
	}
	return p.parseTokens(toks, src, pos)
}

func (p *tmplParser) parseTokens(toks []tmplToken, src string, pos int) (*tmplPipe, error) {
	pipe := &tmplPipe{pos: pos, source: src}
	// Declarations: $x := or $i, $e :=
	for i, t := range toks {
		if t.s == ":=" || t.s == "=" {
			for _, v := range toks[:i] {
				if v.s != "," {
					pipe.decl = append(pipe.decl, v.s)
				}
			}
			pipe.assign = t.s == "="
			toks = toks[i+1:]
			break
		}
		if !strings.HasPrefix(t.s, "$") && t.s != "," {
			break
		}
	}
	var cmd []*tmplArg
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.s {
		case "|":
			if len(cmd) == 0 {
				return nil, p.errorf("missing command")
			}
			pipe.cmds, cmd = append(pipe.cmds, cmd), nil
			continue
		case "(":
			depth, j := 1, i+1
			for ; j < len(toks) && depth > 0; j++ {
				switch toks[j].s {
				case "(":
					depth++
				case ")":
					depth--
				}
			}
			if depth > 0 {
				return nil, p.errorf("unclosed left paren")
			}
			sub, err := p.parseTokens(toks[i+1:j-1], src, t.off)
			if err != nil {
				return nil, err
			}
			arg := &tmplArg{kind: "pipe", pipe: sub, pos: t.off, text: "(" + src + ")"}
			if j < len(toks) && strings.HasPrefix(toks[j].s, ".") && toks[j].s != "." {
				arg.fields = strings.Split(toks[j].s[1:], ".")
				arg.pos = toks[j].off
				j++
			}
			cmd = append(cmd, arg)
			i = j - 1
			continue
		case ")":
			return nil, p.errorf("unexpected right paren")
		}
		arg, err := tmplOperand(t.s)
		if err != nil {
			return nil, p.errorf("%v", err)
		}
		arg.text, arg.pos = t.s, t.off
		if arg.kind == "var" && !slices.Contains(p.vars, arg.name) {
			return nil, p.errorf("undefined variable %q", arg.name)
		}
		// A chain of fields is placed at its second link, as
		// text/template's parser places it.
		if i := strings.Index(t.s[1:], "."); (arg.kind == "field" || arg.kind == "var") && i >= 0 {
			arg.pos += i + 1
		}
		cmd = append(cmd, arg)
	}
	if len(cmd) == 0 {
		return nil, p.errorf("missing value for command")
	}
	pipe.cmds = append(pipe.cmds, cmd)
	return pipe, nil
}

// tmplToken is a token of an action and where it is in the template.
type tmplToken struct {
	s   string
	off int
}

// tmplTokens splits an action written at base into its tokens.
func tmplTokens(s string, base int) ([]tmplToken, error) {
	var out []tmplToken
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '"' || c == '`':
			j := i + 1
			for ; j < len(s) && s[j] != c; j++ {
				if c == '"' && s[j] == '\\' {
					j++
				}
			}
			if j >= len(s) {
				return nil, errors.New("unterminated quoted string")
			}
			out = append(out, tmplToken{s[i : j+1], base + i})
			i = j + 1
		case c == '|' || c == '(' || c == ')' || c == ',':
			out = append(out, tmplToken{string(c), base + i})
			i++
		case c == ':' && i+1 < len(s) && s[i+1] == '=':
			out = append(out, tmplToken{":=", base + i})
			i += 2
		case c == '=':
			out = append(out, tmplToken{"=", base + i})
			i++
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\r\n|(),=\"`", rune(s[j])) && !(s[j] == ':' && j+1 < len(s) && s[j+1] == '=') {
				j++
			}
			out = append(out, tmplToken{s[i:j], base + i})
			i = j
		}
	}
	return out, nil
}

func tmplOperand(t string) (*tmplArg, error) {
	switch {
	case t == ".":
		return &tmplArg{kind: "dot"}, nil
	case strings.HasPrefix(t, "."):
		return &tmplArg{kind: "field", fields: strings.Split(t[1:], ".")}, nil
	case strings.HasPrefix(t, "$"):
		name, fields, _ := strings.Cut(t, ".")
		a := &tmplArg{kind: "var", name: name}
		if fields != "" {
			a.fields = strings.Split(fields, ".")
		}
		return a, nil
	case t[0] == '"':
		s, err := strconv.Unquote(t)
		if err != nil {
			return nil, err
		}
		return &tmplArg{kind: "string", value: s}, nil
	case t[0] == '`':
		return &tmplArg{kind: "string", value: t[1 : len(t)-1]}, nil
	case t == "true" || t == "false":
		return &tmplArg{kind: "bool", value: t == "true"}, nil
	case t == "nil":
		return &tmplArg{kind: "nil"}, nil
	case t[0] == '-' || t[0] == '+' || t[0] >= '0' && t[0] <= '9':
		if i, err := strconv.ParseInt(t, 0, 64); err == nil {
			return &tmplArg{kind: "number", value: int(i)}, nil
		}
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return nil, fmt.Errorf("bad number syntax: %q", t)
		}
		return &tmplArg{kind: "number", value: f}, nil
	}
	if _, ok := tmplFuncs[t]; !ok {
		return nil, fmt.Errorf("function %q not defined", t)
	}
	return &tmplArg{kind: "ident", name: t}, nil
}

// missingValue is a field or key that is not there (text/template's
// invalid value, printed "<no value>").
type missingValue struct{}

// tmplState is one execution.
type tmplState struct {
	t    *goTemplate
	out  *strings.Builder
	vars []tmplVar
}

type tmplVar struct {
	name  string
	value any
}

// execute runs the template over data.
func (t *goTemplate) execute(out *strings.Builder, data any) error {
	s := &tmplState{t: t, out: out, vars: []tmplVar{{"$", data}}}
	return s.walkList(data, t.root)
}

func (s *tmplState) errorf(pos int, at, format string, args ...any) error {
	text := s.t.src[:min(pos, len(s.t.src))]
	col := pos
	if i := strings.LastIndex(text, "\n"); i >= 0 {
		col = pos - i - 1
	}
	return fmt.Errorf("template: output:%d:%d: executing \"output\" at <%s>: %s", 1+strings.Count(text, "\n"), col, at, fmt.Sprintf(format, args...))
}

func (s *tmplState) walkList(dot any, list []*tmplNode) error {
	for _, n := range list {
		if err := s.walk(dot, n); err != nil {
			return err
		}
	}
	return nil
}

func (s *tmplState) walk(dot any, n *tmplNode) error {
	switch n.kind {
	case "text":
		s.out.WriteString(n.text)
		return nil
	case "action":
		v, err := s.evalPipe(dot, n.pipe)
		if err != nil {
			return err
		}
		if len(n.pipe.decl) == 0 {
			s.out.WriteString(tmplPrint(v))
		}
		return nil
	}
	mark := len(s.vars)
	defer func() { s.vars = s.vars[:mark] }()
	v, err := s.evalPipe(dot, n.pipe)
	if err != nil {
		return err
	}
	switch n.kind {
	case "if":
		if tmplTruth(v) {
			return s.walkList(dot, n.list)
		}
		return s.walkList(dot, n.elseList)
	case "with":
		if tmplTruth(v) {
			return s.walkList(v, n.list)
		}
		return s.walkList(dot, n.elseList)
	}
	// range
	each := func(k, e any) error {
		switch len(n.pipe.decl) {
		case 1:
			s.vars[len(s.vars)-1].value = e
		case 2:
			s.vars[len(s.vars)-2].value, s.vars[len(s.vars)-1].value = k, e
		}
		return s.walkList(e, n.list)
	}
	switch v := v.(type) {
	case []any:
		if len(v) == 0 {
			return s.walkList(dot, n.elseList)
		}
		for i, e := range v {
			if err := each(i, e); err != nil {
				return err
			}
		}
	case map[string]any:
		if len(v) == 0 {
			return s.walkList(dot, n.elseList)
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := each(k, v[k]); err != nil {
				return err
			}
		}
	case nil, missingValue:
		return s.walkList(dot, n.elseList)
	default:
		return s.errorf(n.pipe.pos, n.pipe.source, "range can't iterate over %v", v)
	}
	return nil
}

func (s *tmplState) evalPipe(dot any, p *tmplPipe) (any, error) {
	var v any = missingValue{}
	for i, cmd := range p.cmds {
		var final any = missingValue{}
		if i > 0 {
			final = v
		}
		var err error
		if v, err = s.evalCmd(dot, cmd, final, i > 0, p); err != nil {
			return nil, err
		}
	}
	if len(p.decl) > 0 {
		if p.assign {
			for i := len(s.vars) - 1; i >= 0; i-- {
				if s.vars[i].name == p.decl[0] {
					s.vars[i].value = v
					break
				}
			}
		} else {
			for _, d := range p.decl {
				s.vars = append(s.vars, tmplVar{d, v})
			}
		}
	}
	return v, nil
}

func (s *tmplState) evalCmd(dot any, cmd []*tmplArg, final any, piped bool, p *tmplPipe) (any, error) {
	first := cmd[0]
	if first.kind == "ident" {
		var args []any
		for _, a := range cmd[1:] {
			v, err := s.evalArg(dot, a, p)
			if err != nil {
				return nil, err
			}
			args = append(args, v)
		}
		if piped {
			args = append(args, final)
		}
		v, err := tmplFuncs[first.name](args)
		if err != nil {
			texts := make([]string, len(cmd))
			for i, a := range cmd {
				texts[i] = a.text
			}
			return nil, s.errorf(first.pos, strings.Join(texts, " "), "error calling %s: %v", first.name, err)
		}
		return v, nil
	}
	if len(cmd) > 1 || piped {
		return nil, s.errorf(first.pos, first.text, "can't give argument to non-function %s", first.text)
	}
	return s.evalArg(dot, first, p)
}

func (s *tmplState) evalArg(dot any, a *tmplArg, p *tmplPipe) (any, error) {
	var base any
	switch a.kind {
	case "dot":
		return dot, nil
	case "field":
		base = dot
	case "var":
		found := false
		for i := len(s.vars) - 1; i >= 0; i-- {
			if s.vars[i].name == a.name {
				base, found = s.vars[i].value, true
				break
			}
		}
		if !found {
			return nil, s.errorf(a.pos, a.text, "undefined variable: %s", a.name)
		}
	case "pipe":
		v, err := s.evalPipe(dot, a.pipe)
		if err != nil {
			return nil, err
		}
		base = v
	case "nil":
		return nil, nil
	case "ident":
		return tmplFuncs[a.name](nil)
	default:
		return a.value, nil
	}
	for _, f := range a.fields {
		switch b := base.(type) {
		case map[string]any:
			v, ok := b[f]
			if !ok && s.t.missingKeyError {
				return nil, s.errorf(a.pos, a.text, "map has no entry for key %q", f)
			}
			if !ok {
				base = missingValue{}
				continue
			}
			base = v
		case nil:
			return nil, s.errorf(a.pos, a.text, "nil pointer evaluating interface {}.%s", f)
		case missingValue:
			if s.t.missingKeyError {
				return nil, s.errorf(a.pos, a.text, "nil data; no entry for key %q", f)
			}
		default:
			// Values in maps and lists are interface {} to text/template.
			return nil, s.errorf(a.pos, a.text, "can't evaluate field %s in type interface {}", f)
		}
	}
	return base, nil
}

// tmplPrint is how text/template prints a value.
func tmplPrint(v any) string {
	switch v.(type) {
	case missingValue:
		return "<no value>"
	case nil:
		return "<nil>"
	}
	return fmt.Sprint(v)
}

// tmplTruth is text/template's truth: non-zero, non-empty, present.
func tmplTruth(v any) bool {
	switch v := v.(type) {
	case nil, missingValue:
		return false
	case bool:
		return v
	case string:
		return v != ""
	case float64:
		return v != 0
	case int64:
		return v != 0
	case int:
		return v != 0
	case []any:
		return len(v) > 0
	case map[string]any:
		return len(v) > 0
	}
	return true
}

// tmplFuncs are text/template's functions kubectl users call, and
// kubectl's own two.
var tmplFuncs = map[string]func(args []any) (any, error){
	"not": func(a []any) (any, error) {
		if len(a) != 1 {
			return nil, fmt.Errorf("wrong number of args for not: want 1 got %d", len(a))
		}
		return !tmplTruth(a[0]), nil
	},
	"and": func(a []any) (any, error) {
		if len(a) == 0 {
			return nil, errors.New("wrong number of args for and: want at least 1 got 0")
		}
		for _, v := range a {
			if !tmplTruth(v) {
				return v, nil
			}
		}
		return a[len(a)-1], nil
	},
	"or": func(a []any) (any, error) {
		if len(a) == 0 {
			return nil, errors.New("wrong number of args for or: want at least 1 got 0")
		}
		for _, v := range a {
			if tmplTruth(v) {
				return v, nil
			}
		}
		return a[len(a)-1], nil
	},
	"len": func(a []any) (any, error) {
		if len(a) != 1 {
			return nil, fmt.Errorf("wrong number of args for len: want 1 got %d", len(a))
		}
		switch v := a[0].(type) {
		case string:
			return len(v), nil
		case []any:
			return len(v), nil
		case map[string]any:
			return len(v), nil
		}
		return nil, fmt.Errorf("len of type %T", a[0])
	},
	"index": func(a []any) (any, error) {
		if len(a) == 0 {
			return nil, errors.New("wrong number of args for index: want at least 1 got 0")
		}
		v := a[0]
		for _, k := range a[1:] {
			switch c := v.(type) {
			case map[string]any:
				key, ok := k.(string)
				if !ok {
					return nil, fmt.Errorf("value has type %T; should be string", k)
				}
				x, ok := c[key]
				if !ok {
					v = missingValue{}
					continue
				}
				v = x
			case []any:
				i, ok := tmplInt(k)
				if !ok {
					return nil, fmt.Errorf("cannot index slice/array with type %T", k)
				}
				if i < 0 || i >= len(c) {
					return nil, fmt.Errorf("index out of range: %d", i)
				}
				v = c[i]
			case nil, missingValue:
				return nil, errors.New("index of untyped nil")
			default:
				return nil, fmt.Errorf("can't index item of type %T", v)
			}
		}
		return v, nil
	},
	"print":   func(a []any) (any, error) { return fmt.Sprint(tmplArgs(a)...), nil },
	"println": func(a []any) (any, error) { return fmt.Sprintln(tmplArgs(a)...), nil },
	"printf": func(a []any) (any, error) {
		if len(a) == 0 {
			return nil, errors.New("wrong number of args for printf: want at least 1 got 0")
		}
		f, ok := a[0].(string)
		if !ok {
			return nil, fmt.Errorf("wrong type for value; expected string; got %T", a[0])
		}
		return fmt.Sprintf(f, tmplArgs(a[1:])...), nil
	},
	"eq": func(a []any) (any, error) {
		if len(a) < 2 {
			return nil, errors.New("missing argument for comparison")
		}
		for _, b := range a[1:] {
			c, err := tmplCompare(a[0], b)
			if err != nil {
				return nil, err
			}
			if c == 0 {
				return true, nil
			}
		}
		return false, nil
	},
	"ne": tmplCmp(func(c int) bool { return c != 0 }, true),
	"lt": tmplCmp(func(c int) bool { return c < 0 }, false),
	"le": tmplCmp(func(c int) bool { return c <= 0 }, false),
	"gt": tmplCmp(func(c int) bool { return c > 0 }, false),
	"ge": tmplCmp(func(c int) bool { return c >= 0 }, false),
	"base64decode": func(a []any) (any, error) {
		if len(a) != 1 {
			return nil, fmt.Errorf("wrong number of args for base64decode: want 1 got %d", len(a))
		}
		s, ok := a[0].(string)
		if !ok {
			return nil, fmt.Errorf("wrong type for value; expected string; got %T", a[0])
		}
		data, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("base64 decode failed: %v", err)
		}
		return string(data), nil
	},
	"exists": func(a []any) (any, error) {
		if len(a) == 0 {
			return false, nil
		}
		v := a[0]
		for _, k := range a[1:] {
			m, ok := v.(map[string]any)
			key, _ := k.(string)
			if !ok {
				return false, nil
			}
			if v, ok = m[key]; !ok {
				return false, nil
			}
		}
		return true, nil
	},
}

// tmplArgs are values as fmt's functions get them from a template.
func tmplArgs(a []any) []any {
	out := make([]any, len(a))
	for i, v := range a {
		if _, ok := v.(missingValue); ok {
			v = nil
		}
		out[i] = v
	}
	return out
}

func tmplInt(v any) (int, bool) {
	switch v := v.(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case float64:
		return int(v), v == float64(int(v))
	}
	return 0, false
}

// tmplCmp is one of lt, le, gt, ge, ne.
func tmplCmp(ok func(int) bool, equality bool) func([]any) (any, error) {
	return func(a []any) (any, error) {
		if len(a) != 2 {
			return nil, fmt.Errorf("wrong number of args: want 2 got %d", len(a))
		}
		if _, isBool := a[0].(bool); isBool && !equality {
			return nil, errors.New("invalid type for comparison")
		}
		c, err := tmplCompare(a[0], a[1])
		if err != nil {
			return nil, err
		}
		return ok(c), nil
	}
}

// tmplCompare orders two basic values of one kind, as text/template's
// comparisons do.
func tmplCompare(a, b any) (int, error) {
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y), nil
		}
	case float64:
		if y, ok := b.(float64); ok {
			return cmp.Compare(x, y), nil
		}
	case int, int64:
		if y, ok := tmplInt64(b); ok {
			xi, _ := tmplInt64(x)
			return cmp.Compare(xi, y), nil
		}
	case bool:
		if y, ok := b.(bool); ok {
			if x == y {
				return 0, nil
			}
			return 1, nil
		}
	case nil, missingValue:
		return 0, errors.New("invalid type for comparison")
	default:
		return 0, errors.New("invalid type for comparison")
	}
	return 0, errors.New("incompatible types for comparison")
}

// tmplInt64 is an integer of either kind a template holds: its literals
// (int) and the object's numbers (int64).
func tmplInt64(v any) (int64, bool) {
	switch v := v.(type) {
	case int:
		return int64(v), true
	case int64:
		return v, true
	}
	return 0, false
}

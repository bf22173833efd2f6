package jsonpath

// This file owns the parser: templates read as client-go's parser reads
// them, its error texts included.

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// kind is the kind of a parsed node.
type kind int

const (
	textNode kind = iota
	listNode
	fieldNode
	wildcardNode
	recursiveNode
	arrayNode
	unionNode
	filterNode
	intNode
	floatNode
	boolNode
	identifierNode
)

// node is one node of a parsed template.
type node struct {
	kind   kind
	text   string  // textNode's text, fieldNode's key, identifierNode's name, filterNode's operator
	nodes  []*node // listNode's nodes
	union  []*node // unionNode's lists
	left   *node   // filterNode's operands (lists)
	right  *node
	params [3]param // arrayNode's start:end:step
	i      int
	f      float64
	b      bool
}

// param is one bound of an array slice.
type param struct {
	value          int
	known, derived bool
}

const eof = -1

var (
	sliceRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(-?[\d]*)(:-?[\d]*)?(:-?[\d]*)?$`) })
	dictRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^'([^']*)'$`) })
	filterRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([^!<>=]+)([!<>=]+)(.+?)$`) })
)

// parser reads a template as client-go's parser does.
type parser struct {
	input             string
	pos, start, width int
	root              *node
}

// Parse parses a template: text with {actions} ("{.items[*].metadata.name}",
// "{range .items[*]}{.metadata.name}{\"\\n\"}{end}").
func Parse(text string) (*Template, error) {
	p := &parser{input: text, root: &node{kind: listNode}}
	if err := p.parseText(p.root); err != nil {
		return nil, err
	}
	return &Template{root: p.root}, nil
}

// parseAction parses text as the inside of one {action}: its list.
func parseAction(text string) (*node, error) {
	t, err := Parse("{" + text + "}")
	if err != nil {
		return nil, err
	}
	return t.root.nodes[0], nil
}

func (p *parser) consume() string {
	v := p.input[p.start:p.pos]
	p.start = p.pos
	return v
}

func (p *parser) next() rune {
	if p.pos >= len(p.input) {
		p.width = 0
		return eof
	}
	r, w := utf8.DecodeRuneInString(p.input[p.pos:])
	p.width = w
	p.pos += w
	return r
}

func (p *parser) backup() { p.pos -= p.width }

func (p *parser) peek() rune {
	r := p.next()
	p.backup()
	return r
}

func (p *parser) add(cur *node, n *node) { cur.nodes = append(cur.nodes, n) }

func (p *parser) parseText(cur *node) error {
	for {
		if strings.HasPrefix(p.input[p.pos:], "{") {
			if p.pos > p.start {
				p.add(cur, &node{kind: textNode, text: p.consume()})
			}
			p.pos++
			p.consume()
			action := &node{kind: listNode}
			p.add(cur, action)
			return p.parseInside(action)
		}
		if p.next() == eof {
			break
		}
	}
	if p.pos > p.start {
		p.add(cur, &node{kind: textNode, text: p.consume()})
	}
	return nil
}

func (p *parser) parseInside(cur *node) error {
	rest := p.input[p.pos:]
	switch {
	case strings.HasPrefix(rest, "}"):
		p.pos++
		p.consume()
		return p.parseText(p.root)
	case strings.HasPrefix(rest, "[?("):
		return p.parseFilter(cur)
	case strings.HasPrefix(rest, ".."):
		if n := len(cur.nodes); n > 0 && cur.nodes[n-1].kind == recursiveNode {
			return errors.New("invalid multiple recursive descent")
		}
		p.pos += 2
		p.consume()
		p.add(cur, &node{kind: recursiveNode})
		if alphaNumeric(p.peek()) {
			return p.parseField(cur)
		}
		return p.parseInside(cur)
	}
	switch r := p.next(); {
	case r == eof || r == '\r' || r == '\n':
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
	case alphaNumeric(r):
		p.backup()
		return p.parseIdentifier(cur)
	default:
		return fmt.Errorf("unrecognized character in action: %#U", r)
	}
	return p.parseInside(cur)
}

func (p *parser) parseIdentifier(cur *node) error {
	for !terminator(p.next()) {
	}
	p.backup()
	v := p.consume()
	if v == "true" || v == "false" {
		p.add(cur, &node{kind: boolNode, b: v == "true"})
	} else {
		p.add(cur, &node{kind: identifierNode, text: v})
	}
	return p.parseInside(cur)
}

func (p *parser) parseNumber(cur *node) error {
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
		p.add(cur, &node{kind: intNode, i: i})
		return p.parseInside(cur)
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		p.add(cur, &node{kind: floatNode, f: f})
		return p.parseInside(cur)
	}
	return fmt.Errorf("cannot parse number %s", v)
}

func (p *parser) parseArray(cur *node) error {
	for done := false; !done; {
		switch p.next() {
		case eof, '\n':
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
		u := &node{kind: unionNode}
		for _, s := range parts {
			l, err := parseAction("[" + strings.Trim(s, " ") + "]")
			if err != nil {
				return err
			}
			u.union = append(u.union, l)
		}
		p.add(cur, u)
		return p.parseInside(cur)
	}
	if m := dictRe().FindStringSubmatch(text); m != nil {
		l, err := parseAction("." + m[1])
		if err != nil {
			return err
		}
		cur.nodes = append(cur.nodes, l.nodes...)
		return p.parseInside(cur)
	}
	m := sliceRe().FindStringSubmatch(text)
	if m == nil {
		return fmt.Errorf("invalid array index %s", text)
	}
	n := &node{kind: arrayNode}
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
			n.params[i] = param{value: x, known: true}
		case i == 1:
			n.params[1] = param{value: n.params[0].value + 1, known: true, derived: true}
		}
	}
	p.add(cur, n)
	return p.parseInside(cur)
}

func (p *parser) parseFilter(cur *node) error {
	p.pos += 3
	p.consume()
	begin, end := false, false
	var pair rune
	for done := false; !done; {
		switch r := p.next(); r {
		case eof, '\n':
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
	f := &node{kind: filterNode}
	if m := filterRe().FindStringSubmatch(text); m == nil {
		l, err := parseAction(text)
		if err != nil {
			return err
		}
		f.left, f.right, f.text = l, &node{kind: listNode}, "exists"
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
	p.add(cur, f)
	return p.parseInside(cur)
}

func (p *parser) parseQuote(cur *node, end rune) error {
	for done := false; !done; {
		switch p.next() {
		case eof, '\n':
			return errors.New("unterminated quoted string")
		case end:
			done = p.input[p.pos-2] != '\\'
		}
	}
	v := p.consume()
	s, err := unquote(v)
	if err != nil {
		return fmt.Errorf("unquote string %s error %v", v, err)
	}
	p.add(cur, &node{kind: textNode, text: s})
	return p.parseInside(cur)
}

func (p *parser) parseField(cur *node) error {
	p.consume()
	for {
		r := p.next()
		if r == '\\' {
			p.next()
		} else if terminator(r) {
			p.backup()
			break
		}
	}
	v := p.consume()
	if v == "*" {
		p.add(cur, &node{kind: wildcardNode})
	} else {
		p.add(cur, &node{kind: fieldNode, text: strings.ReplaceAll(v, `\`, "")})
	}
	return p.parseInside(cur)
}

// unquote is strconv.Unquote for a single- or double-quoted string whose
// escapes are Go's.
func unquote(s string) (string, error) {
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

func terminator(r rune) bool {
	switch r {
	case ' ', '\t', '\r', '\n', eof, '.', ',', '[', ']', '$', '@', '{', '}':
		return true
	}
	return false
}

func alphaNumeric(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

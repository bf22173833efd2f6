package object

import (
	"encoding/json"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeFast parses one JSON object into the values encoding/json produces with
// UseNumber (map[string]any, []any, string, json.Number, bool, nil). It reports
// only whether it succeeded: on any doubt it fails, and Decode falls back to
// encoding/json for the value and its exact error message. Its results are fuzzed
// against encoding/json.
func decodeFast(data []byte) (Object, bool) {
	s := NewScanner(data)
	if s.Peek() != '{' {
		return nil, false
	}
	v, ok := s.value(0)
	if !ok || !s.AtEnd() {
		return nil, false
	}
	obj, _ := v.(map[string]any)
	return obj, true
}

// DecodeValue parses one JSON value of any kind as Decode parses an object.
func DecodeValue(data []byte) (any, error) {
	s := NewScanner(data)
	if v, ok := s.value(0); ok && s.AtEnd() {
		return v, nil
	}
	var v any
	if err := decodeStd(data, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// A Scanner reads a JSON document one token at a time, unescaping strings and
// keeping numbers as their literals, as encoding/json reads them. Its methods
// report only whether they succeeded: on a syntax error (or any doubt) they
// fail, and the caller asks encoding/json for the error's wording. It counts
// the objects and arrays open (opened by Consume, closed by Empty or Next),
// so that Skip holds the whole document to encoding/json's nesting limit.
type Scanner struct {
	data  []byte
	i     int
	depth int // the objects and arrays open
}

// NewScanner scans data from its start.
func NewScanner(data []byte) *Scanner { return &Scanner{data: data} }

// maxDepth stays below encoding/json's nesting limit, which falls back.
const maxDepth = 1000

// maxNesting is encoding/json's limit on nested objects and arrays: one level
// more is a syntax error ("exceeded max depth").
const maxNesting = 10000

// Pos is the offset of the next byte to read.
func (s *Scanner) Pos() int { return s.i }

// Span is the document's bytes from start to the current position.
func (s *Scanner) Span(start int) []byte { return s.data[start:s.i] }

// Peek skips white space and returns the next byte without consuming it, or
// 0 at the end.
func (s *Scanner) Peek() byte {
	s.space()
	if s.i >= len(s.data) {
		return 0
	}
	return s.data[s.i]
}

// Consume skips white space and consumes c if it comes next; a '{' or '['
// opens an object or array.
func (s *Scanner) Consume(c byte) bool {
	if s.Peek() != c {
		return false
	}
	s.i++
	if c == '{' || c == '[' {
		s.depth++
	}
	return true
}

// AtEnd reports whether only white space remains.
func (s *Scanner) AtEnd() bool { return s.Peek() == 0 && s.i == len(s.data) }

// Next reads what follows an element of an object or array: a comma (more
// elements follow) or the closer (the container is done, ok). Anything else
// is a syntax error (not more, not ok).
func (s *Scanner) Next(closer byte) (more, ok bool) {
	switch s.Peek() {
	case ',':
		s.i++
		return true, true
	case closer:
		s.i++
		s.depth--
		return false, true
	}
	return false, false
}

// Empty consumes the closer of a container just opened if it comes next:
// the container has no elements.
func (s *Scanner) Empty(closer byte) bool {
	if !s.Consume(closer) {
		return false
	}
	s.depth--
	return true
}

// Key reads an object's key and the colon after it.
func (s *Scanner) Key() (string, bool) {
	if s.Peek() != '"' {
		return "", false
	}
	k, ok := s.String()
	return k, ok && s.Consume(':')
}

func (s *Scanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *Scanner) value(depth int) (any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	switch c := s.Peek(); {
	case c == '{':
		s.i++
		s.depth++
		m := map[string]any{}
		if s.Empty('}') {
			return m, true
		}
		for {
			k, ok := s.Key()
			if !ok {
				return nil, false
			}
			v, ok := s.value(depth + 1)
			if !ok {
				return nil, false
			}
			m[k] = v
			if more, ok := s.Next('}'); !more {
				return m, ok
			}
		}
	case c == '[':
		s.i++
		s.depth++
		list := []any{}
		if s.Empty(']') {
			return list, true
		}
		for {
			v, ok := s.value(depth + 1)
			if !ok {
				return nil, false
			}
			list = append(list, v)
			if more, ok := s.Next(']'); !more {
				return list, ok
			}
		}
	case c == '"':
		return s.String()
	case c == 't':
		return true, s.Literal("true")
	case c == 'f':
		return false, s.Literal("false")
	case c == 'n':
		return nil, s.Literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		n, ok := s.Number()
		return json.Number(n), ok
	}
	return nil, false
}

// Skip reads one value of any kind without keeping it, up to encoding/json's
// nesting limit (counting the containers the value is in).
func (s *Scanner) Skip() bool {
	var buf [32]byte
	open := buf[:0] // the closers of the containers the value is inside
	for {
		switch c := s.Peek(); {
		case c == '{' || c == '[':
			if s.depth == maxNesting {
				return false
			}
			s.i++
			s.depth++
			closer := byte(']')
			if c == '{' {
				closer = '}'
			}
			if !s.Empty(closer) {
				if c == '{' {
					if _, ok := s.Key(); !ok {
						return false
					}
				}
				open = append(open, closer)
				continue // to the container's first element
			}
		case c == '"':
			if !s.skipString() {
				return false
			}
		case c == 't':
			if !s.Literal("true") {
				return false
			}
		case c == 'f':
			if !s.Literal("false") {
				return false
			}
		case c == 'n':
			if !s.Literal("null") {
				return false
			}
		case c == '-' || (c >= '0' && c <= '9'):
			if _, ok := s.Number(); !ok {
				return false
			}
		default:
			return false
		}
		// A value is done: close the containers it ends, then go on to the
		// next element of the innermost one still open.
		for {
			if len(open) == 0 {
				return true
			}
			closer := open[len(open)-1]
			more, ok := s.Next(closer)
			if !ok {
				return false
			}
			if !more {
				open = open[:len(open)-1]
				continue
			}
			if closer == '}' {
				if _, ok := s.Key(); !ok {
					return false
				}
			}
			break
		}
	}
}

// Literal reads true, false or null.
func (s *Scanner) Literal(word string) bool {
	if len(s.data)-s.i < len(word) || string(s.data[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// Number reads a number by JSON's grammar and returns its literal.
func (s *Scanner) Number() (string, bool) {
	start := s.i
	if s.data[s.i] == '-' {
		s.i++
	}
	digits := func() int {
		n := 0
		for s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.i < len(s.data) && s.data[s.i] == '0' {
		s.i++
	} else if digits() == 0 {
		return "", false
	}
	if s.i < len(s.data) && s.data[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return "", false
		}
	}
	if s.i < len(s.data) && (s.data[s.i] == 'e' || s.data[s.i] == 'E') {
		s.i++
		if s.i < len(s.data) && (s.data[s.i] == '+' || s.data[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return "", false
		}
	}
	return string(s.data[start:s.i]), true
}

// skipString reads a string without unescaping it.
func (s *Scanner) skipString() bool {
	for s.i++; s.i < len(s.data); s.i++ {
		switch c := s.data[s.i]; {
		case c == '"':
			s.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			s.i++
			if s.i >= len(s.data) {
				return false
			}
			switch s.data[s.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if _, ok := s.hex4(s.i + 1); !ok {
					return false
				}
				s.i += 4
			default:
				return false
			}
		}
	}
	return false
}

// String reads a string (the next byte is its quote), unescaping it as
// encoding/json does.
func (s *Scanner) String() (string, bool) {
	s.i++
	start := s.i
	for s.i < len(s.data) {
		c := s.data[s.i]
		if c == '"' {
			str := string(s.data[start:s.i])
			s.i++
			return str, true
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		s.i++
	}
	// The slow path: escapes or non-ASCII.
	var b []byte
	b = append(b, s.data[start:s.i]...)
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '"':
			s.i++
			return string(b), true
		case c < 0x20:
			return "", false
		case c == '\\':
			s.i++
			if s.i >= len(s.data) {
				return "", false
			}
			switch e := s.data[s.i]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := s.hex4(s.i + 1)
				if !ok {
					return "", false
				}
				s.i += 4
				if utf16.IsSurrogate(r) {
					r2, ok := rune(-1), false
					if s.i+2 < len(s.data) && s.data[s.i+1] == '\\' && s.data[s.i+2] == 'u' {
						r2, ok = s.hex4(s.i + 3)
					}
					if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
						s.i += 6
						r = dec
					} else {
						r = utf8.RuneError
					}
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", false
			}
			s.i++
		case c < utf8.RuneSelf:
			b = append(b, c)
			s.i++
		default:
			r, size := utf8.DecodeRune(s.data[s.i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, s.data[s.i:s.i+size]...)
			}
			s.i += size
		}
	}
	return "", false
}

func (s *Scanner) hex4(at int) (rune, bool) {
	if at+4 > len(s.data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(s.data[at:at+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(n), true
}

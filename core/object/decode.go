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
	d := fastDecoder{data: data}
	d.space()
	if d.i >= len(d.data) || d.data[d.i] != '{' {
		return nil, false
	}
	v, ok := d.value(0)
	if !ok {
		return nil, false
	}
	d.space()
	if d.i != len(d.data) {
		return nil, false
	}
	obj, _ := v.(map[string]any)
	return obj, true
}

type fastDecoder struct {
	data []byte
	i    int
}

// maxDepth stays below encoding/json's nesting limit, which falls back.
const maxDepth = 1000

// next reads what follows an element of an object or array: a comma (more
// elements follow) or the closer (the container is done, ok). Anything else
// is a syntax error (not more, not ok).
func (d *fastDecoder) next(closer byte) (more, ok bool) {
	d.space()
	if d.i >= len(d.data) {
		return false, false
	}
	switch d.data[d.i] {
	case ',':
		d.i++
		return true, true
	case closer:
		d.i++
		return false, true
	}
	return false, false
}

func (d *fastDecoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *fastDecoder) value(depth int) (any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	d.space()
	if d.i >= len(d.data) {
		return nil, false
	}
	switch c := d.data[d.i]; {
	case c == '{':
		d.i++
		m := map[string]any{}
		d.space()
		if d.i < len(d.data) && d.data[d.i] == '}' {
			d.i++
			return m, true
		}
		for {
			d.space()
			if d.i >= len(d.data) || d.data[d.i] != '"' {
				return nil, false
			}
			k, ok := d.str()
			if !ok {
				return nil, false
			}
			d.space()
			if d.i >= len(d.data) || d.data[d.i] != ':' {
				return nil, false
			}
			d.i++
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			m[k] = v
			if more, ok := d.next('}'); !more {
				return m, ok
			}
		}
	case c == '[':
		d.i++
		list := []any{}
		d.space()
		if d.i < len(d.data) && d.data[d.i] == ']' {
			d.i++
			return list, true
		}
		for {
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			list = append(list, v)
			if more, ok := d.next(']'); !more {
				return list, ok
			}
		}
	case c == '"':
		return d.str()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	}
	return nil, false
}

func (d *fastDecoder) literal(word string) bool {
	if len(d.data)-d.i < len(word) || string(d.data[d.i:d.i+len(word)]) != word {
		return false
	}
	d.i += len(word)
	return true
}

// number scans JSON's number grammar.
func (d *fastDecoder) number() (any, bool) {
	start := d.i
	if d.data[d.i] == '-' {
		d.i++
	}
	digits := func() int {
		n := 0
		for d.i < len(d.data) && d.data[d.i] >= '0' && d.data[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.i < len(d.data) && d.data[d.i] == '0' {
		d.i++
	} else if digits() == 0 {
		return nil, false
	}
	if d.i < len(d.data) && d.data[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return nil, false
		}
	}
	if d.i < len(d.data) && (d.data[d.i] == 'e' || d.data[d.i] == 'E') {
		d.i++
		if d.i < len(d.data) && (d.data[d.i] == '+' || d.data[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	return json.Number(d.data[start:d.i]), true
}

// str reads a string at d.i (a '"'), unescaping as encoding/json does.
func (d *fastDecoder) str() (string, bool) {
	d.i++
	start := d.i
	for d.i < len(d.data) {
		c := d.data[d.i]
		if c == '"' {
			s := string(d.data[start:d.i])
			d.i++
			return s, true
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		d.i++
	}
	// The slow path: escapes or non-ASCII.
	var b []byte
	b = append(b, d.data[start:d.i]...)
	for d.i < len(d.data) {
		c := d.data[d.i]
		switch {
		case c == '"':
			d.i++
			return string(b), true
		case c < 0x20:
			return "", false
		case c == '\\':
			d.i++
			if d.i >= len(d.data) {
				return "", false
			}
			switch e := d.data[d.i]; e {
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
				r, ok := d.hex4(d.i + 1)
				if !ok {
					return "", false
				}
				d.i += 4
				if utf16.IsSurrogate(r) {
					r2, ok := rune(-1), false
					if d.i+2 < len(d.data) && d.data[d.i+1] == '\\' && d.data[d.i+2] == 'u' {
						r2, ok = d.hex4(d.i + 3)
					}
					if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
						d.i += 6
						r = dec
					} else {
						r = utf8.RuneError
					}
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", false
			}
			d.i++
		case c < utf8.RuneSelf:
			b = append(b, c)
			d.i++
		default:
			r, size := utf8.DecodeRune(d.data[d.i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, d.data[d.i:d.i+size]...)
			}
			d.i += size
		}
	}
	return "", false
}

func (d *fastDecoder) hex4(at int) (rune, bool) {
	if at+4 > len(d.data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(d.data[at:at+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(n), true
}

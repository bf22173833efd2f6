package selector

import (
	"fmt"
	"sort"
	"strings"
)

// Term is one term of a field selector: Field = Value or Field != Value.
type Term struct {
	Field string
	Equal bool
	Value string
}

// Fields is a parsed field selector: the AND of its terms, sorted. The zero value
// selects everything.
type Fields []Term

// Empty says whether the selector selects everything.
func (s Fields) Empty() bool { return len(s) == 0 }

// Matches says whether an object's selectable fields satisfy every term. A field
// the object lacks reads as the empty string.
func (s Fields) Matches(fields map[string]string) bool {
	for _, t := range s {
		if (fields[t.Field] == t.Value) != t.Equal {
			return false
		}
	}
	return true
}

// RequiresExactMatch is the value the selector requires field to equal, if
// one of its terms does (kube's fields.Selector.RequiresExactMatch).
func (s Fields) RequiresExactMatch(field string) (string, bool) {
	for _, t := range s {
		if t.Field == field && t.Equal {
			return t.Value, true
		}
	}
	return "", false
}

// String prints the selector canonically with values escaped.
func (s Fields) String() string {
	parts := make([]string, len(s))
	for i, t := range s {
		op := "!="
		if t.Equal {
			op = "="
		}
		parts[i] = t.Field + op + escapeValue(t.Value)
	}
	return strings.Join(parts, ",")
}

var valueEscaper = strings.NewReplacer(`\`, `\\`, `,`, `\,`, `=`, `\=`)

func escapeValue(v string) string { return valueEscaper.Replace(v) }

// ParseFields parses a field selector as fields.ParseSelector does: terms split
// on unescaped commas, each "field=value", "field==value" or "field!=value",
// values with \\, \, and \= escapes.
func ParseFields(selector string) (Fields, error) {
	var out Fields
	// Like fields.ParseSelector, sort the raw terms first: that order decides which
	// bad term is reported and the order String prints them in.
	parts := splitTerms(selector)
	sort.Strings(parts)
	for _, part := range parts {
		if part == "" {
			continue
		}
		field, op, rhs, ok := splitTerm(part)
		if !ok {
			return nil, fmt.Errorf("invalid selector: '%s'; can't understand '%s'", selector, part)
		}
		value, err := unescapeValue(rhs)
		if err != nil {
			return nil, err
		}
		out = append(out, Term{Field: field, Equal: op != "!=", Value: value})
	}
	return out, nil
}

// String prints one term.
func (t Term) String() string { return Fields{t}.String() }

func splitTerms(s string) []string {
	var terms []string
	start, escaped := 0, false
	for i := 0; i < len(s); i++ {
		switch {
		case escaped:
			escaped = false
		case s[i] == '\\':
			escaped = true
		case s[i] == ',':
			terms = append(terms, s[start:i])
			start = i + 1
		}
	}
	return append(terms, s[start:])
}

// splitTerm splits at the first operator; "!=" and "==" win over "=".
func splitTerm(term string) (field, op, rhs string, ok bool) {
	for i := 0; i < len(term); i++ {
		for _, op := range []string{"!=", "==", "="} {
			if strings.HasPrefix(term[i:], op) {
				return term[:i], op, term[i+len(op):], true
			}
		}
	}
	return "", "", "", false
}

func unescapeValue(s string) (string, error) {
	if !strings.ContainsAny(s, `\,=`) {
		return s, nil
	}
	var b strings.Builder
	escaped := false
	for _, c := range s {
		if escaped {
			switch c {
			case '\\', ',', '=':
				b.WriteRune(c)
			default:
				return "", fmt.Errorf("invalid field selector: invalid escape sequence: %s", string([]rune{'\\', c}))
			}
			escaped = false
			continue
		}
		switch c {
		case '\\':
			escaped = true
		case ',', '=':
			return "", fmt.Errorf("invalid field selector: unescaped character in value: %v", c)
		default:
			b.WriteRune(c)
		}
	}
	if escaped {
		return "", fmt.Errorf("invalid field selector: invalid escape sequence: %s", `\`)
	}
	return b.String(), nil
}

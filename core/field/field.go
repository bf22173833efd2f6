// Package field owns how a request's problems are named: paths to fields
// ("spec.containers[0].image", "metadata.labels[app]") and the field errors of
// validation, worded as k8s.io/apimachinery/pkg/util/validation/field words them,
// so every package that judges an object (the registry's strategies, schemas,
// patches, apply) reports it as kube-apiserver does.
//
// Paths and errors are built out of line (go:noinline): the built-in kinds'
// validation builds them at hundreds of places, and inlined there they would
// cost the wasm binary tens of kilobytes.
package field

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Path is the path to a field, written as kube writes it. As kube's, it is a
// list of steps from the root, each holding only its parent and itself (a
// field's name, a list's index or a map's key): walking an object or a schema
// n levels deep costs n small steps, not n paths of growing length, and the
// path is written out only when an error names it (String).
type Path struct {
	parent *Path
	name   string // a field's name or a map's key
	index  int    // a list's index, or what name is (fieldStep, keyStep)
}

// What a step that is not a list's index names.
const (
	fieldStep = -1 - iota // a field of the parent
	keyStep               // the value at a key of the parent (a map)
)

// NewPath starts a path at a top-level field (and its children).
//
//go:noinline
func NewPath(name string, more ...string) *Path {
	p := &Path{name: name, index: fieldStep}
	for _, m := range more {
		p = p.Child(m)
	}
	return p
}

// Child is the path to a field of p.
//
//go:noinline
func (p *Path) Child(name string) *Path { return &Path{parent: p, name: name, index: fieldStep} }

// Index is the path to element i of the list at p.
//
//go:noinline
func (p *Path) Index(i int) *Path {
	if i < 0 {
		return p.Key(strconv.Itoa(i)) // written as kube writes it; a list has none
	}
	return &Path{parent: p, index: i}
}

// Key is the path to the value at key of the map at p.
//
//go:noinline
func (p *Path) Key(key string) *Path { return &Path{parent: p, name: key, index: keyStep} }

// String is the path as messages show it: fields joined by dots (a field of
// an empty path is its name alone), indexes and keys in brackets.
//
//go:noinline
func (p *Path) String() string {
	var buf [16]*Path
	steps := buf[:0] // from p to the root
	n := 0
	for s := p; s != nil; s = s.parent {
		steps = append(steps, s)
		n += len(s.name) + 2
		if s.index >= 0 {
			n += 20
		}
	}
	var b strings.Builder
	b.Grow(n)
	for i := len(steps) - 1; i >= 0; i-- {
		switch s := steps[i]; s.index {
		case fieldStep:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.name)
		case keyStep:
			b.WriteByte('[')
			b.WriteString(s.name)
			b.WriteByte(']')
		default:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
		}
	}
	return b.String()
}

// ErrorType is the kind of a field error, as Status causes name it.
type ErrorType string

// The error types of kube's field package.
const (
	ErrorTypeNotFound     ErrorType = "FieldValueNotFound"
	ErrorTypeRequired     ErrorType = "FieldValueRequired"
	ErrorTypeDuplicate    ErrorType = "FieldValueDuplicate"
	ErrorTypeInvalid      ErrorType = "FieldValueInvalid"
	ErrorTypeTypeInvalid  ErrorType = "FieldValueTypeInvalid"
	ErrorTypeNotSupported ErrorType = "FieldValueNotSupported"
	ErrorTypeForbidden    ErrorType = "FieldValueForbidden"
	ErrorTypeTooLong      ErrorType = "FieldValueTooLong"
	ErrorTypeTooMany      ErrorType = "FieldValueTooMany"
	ErrorTypeInternal     ErrorType = "InternalError"
)

// words are how each type begins a message.
var words = map[ErrorType]string{
	ErrorTypeNotFound:     "Not found",
	ErrorTypeRequired:     "Required value",
	ErrorTypeDuplicate:    "Duplicate value",
	ErrorTypeInvalid:      "Invalid value",
	ErrorTypeTypeInvalid:  "Invalid value",
	ErrorTypeNotSupported: "Unsupported value",
	ErrorTypeForbidden:    "Forbidden",
	ErrorTypeTooLong:      "Too long",
	ErrorTypeTooMany:      "Too many",
	ErrorTypeInternal:     "Internal error",
}

// Error is one field's problem.
type Error struct {
	Type     ErrorType
	Field    string
	BadValue any
	Detail   string
	// showValue: the message quotes BadValue (Invalid, NotSupported, Duplicate,
	// NotFound do; Required, Forbidden, TooLong without a value do not).
	showValue bool
}

// Error is the whole message: the field, then the body.
func (e *Error) Error() string { return e.Field + ": " + e.ErrorBody() }

// ErrorBody is the message without the field, as a Status cause carries it.
func (e *Error) ErrorBody() string {
	s := words[e.Type]
	if s == "" {
		s = string(e.Type)
	}
	if e.showValue {
		s += ": " + formatValue(e.BadValue)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// formatValue shows a bad value as kube's field errors do: strings quoted,
// lists and maps of strings in Go's syntax, a fmt.Stringer as its String
// (values kube shows as Go values of its own types); others as JSON.
func formatValue(v any) string {
	switch t := v.(type) {
	case GoSyntax:
		return string(t)
	case string:
		return strconv.Quote(t)
	case []string, map[string]string:
		return fmt.Sprintf("%#v", t)
	case fmt.Stringer:
		return t.String()
	case nil:
		return `"null"` // kube's field errors show nil as the string "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// GoSyntax is a bad value kube shows as Go prints a struct of its internal types
// (%#v), already written that way.
type GoSyntax string

// Invalid: the value is not valid, for the reason detail.
//
//go:noinline
func Invalid(p *Path, value any, detail string) *Error {
	return &Error{Type: ErrorTypeInvalid, Field: p.String(), BadValue: value, Detail: detail, showValue: true}
}

// TypeInvalid: the value is not of the field's type.
//
//go:noinline
func TypeInvalid(p *Path, value any, detail string) *Error {
	return &Error{Type: ErrorTypeTypeInvalid, Field: p.String(), BadValue: value, Detail: detail, showValue: true}
}

// TooMany: the list has actual items, over max.
//
//go:noinline
func TooMany(p *Path, actual, max int) *Error {
	return &Error{Type: ErrorTypeTooMany, Field: p.String(), BadValue: actual, Detail: fmt.Sprintf("must have at most %d items", max), showValue: true}
}

// Required: the field must be set.
//
//go:noinline
func Required(p *Path, detail string) *Error {
	return &Error{Type: ErrorTypeRequired, Field: p.String(), Detail: detail}
}

// Forbidden: the field may not be set (or changed) here.
//
//go:noinline
func Forbidden(p *Path, detail string) *Error {
	return &Error{Type: ErrorTypeForbidden, Field: p.String(), Detail: detail}
}

// Duplicate: the value appears twice where it must be unique.
//
//go:noinline
func Duplicate(p *Path, value any) *Error {
	return &Error{Type: ErrorTypeDuplicate, Field: p.String(), BadValue: value, showValue: true}
}

// NotFound: the value names something that does not exist.
//
//go:noinline
func NotFound(p *Path, value any) *Error {
	return &Error{Type: ErrorTypeNotFound, Field: p.String(), BadValue: value, showValue: true}
}

// NotSupported: the value is not one of valid.
//
//go:noinline
func NotSupported(p *Path, value any, valid []string) *Error {
	detail := ""
	if len(valid) > 0 {
		quoted := make([]string, len(valid))
		for i, v := range valid {
			quoted[i] = strconv.Quote(v)
		}
		detail = "supported values: " + strings.Join(quoted, ", ")
	}
	return &Error{Type: ErrorTypeNotSupported, Field: p.String(), BadValue: value, Detail: detail, showValue: true}
}

// TooLong: the value is over max bytes (kube leaves the value out of the message).
//
//go:noinline
func TooLong(p *Path, max int) *Error {
	return &Error{Type: ErrorTypeTooLong, Field: p.String(), Detail: fmt.Sprintf("may not be more than %d bytes", max)}
}

// ErrorList is the problems of one object.
type ErrorList []*Error

// InternalError: the server failed to judge the value, for the reason detail.
//
//go:noinline
func InternalError(p *Path, detail string) *Error {
	return &Error{Type: ErrorTypeInternal, Field: p.String(), Detail: detail}
}

// wireError is an Error as JSON carries it between a host's modules: its
// value already written as its message shows it.
type wireError struct {
	Type   ErrorType `json:"type"`
	Field  string    `json:"field"`
	Value  *string   `json:"value,omitempty"`
	Detail string    `json:"detail,omitempty"`
}

// MarshalJSON writes the error as its message needs it.
func (e *Error) MarshalJSON() ([]byte, error) {
	w := wireError{Type: e.Type, Field: e.Field, Detail: e.Detail}
	if e.showValue {
		v := formatValue(e.BadValue)
		w.Value = &v
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads an error MarshalJSON wrote.
func (e *Error) UnmarshalJSON(b []byte) error {
	var w wireError
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = Error{Type: w.Type, Field: w.Field, Detail: w.Detail}
	if w.Value != nil {
		e.BadValue, e.showValue = GoSyntax(*w.Value), true
	}
	return nil
}

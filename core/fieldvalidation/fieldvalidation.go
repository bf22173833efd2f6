// Package fieldvalidation owns kube-apiserver's field validation of write
// bodies (K8S-WRITE-4): the fieldValidation directive of a create, update or
// patch (Ignore, Warn, Strict; Warn when absent) and what becomes of the
// unknown and duplicate fields that strict decoding finds in a body (the
// decoders report them: core/types' StrictJSON, StrictCBOR and
// DuplicateJSONFields, core/encoding's YAMLStrictError). Ignore drops them,
// Warn turns each into a Warning header (each line of a YAML error its own),
// Strict turns them all into one error that the API server answers as kube
// does: a 400 for a create or update body, a 422 Invalid for a patch.
package fieldvalidation

import (
	"context"
	"fmt"
	"strings"

	"kubeplay/core/apierrors"
	"kubeplay/core/encoding"
	"kubeplay/core/field"
	"kubeplay/core/warning"
)

// Directive is a fieldValidation value.
type Directive string

// The directives. Warn is the default.
const (
	Ignore Directive = "Ignore"
	Warn   Directive = "Warn"
	Strict Directive = "Strict"
)

// supported are the values kube accepts, as its error lists them.
var supported = []string{"", string(Ignore), string(Strict), string(Warn)}

// Parse reads a write's fieldValidation parameter: "" is Warn; any value but
// the three is kube's field error.
func Parse(value string) (Directive, *field.Error) {
	switch d := Directive(value); d {
	case "":
		return Warn, nil
	case Ignore, Warn, Strict:
		return d, nil
	}
	return Warn, field.NotSupported(field.NewPath("fieldValidation"), value, supported)
}

// Checks says whether the directive looks for unknown and duplicate fields.
func (d Directive) Checks() bool { return d != Ignore }

// Error is kube's strict decoding error: the unknown and duplicate fields of a
// body, in the order found.
type Error []error

func (e Error) Error() string {
	var b strings.Builder
	b.WriteString("strict decoding error: ")
	for i, err := range e {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(err.Error())
	}
	return b.String()
}

// Apply does what the directive says with the strict decoding errors of a
// body: with Strict (and errors) it returns them as an Error; with Warn it adds
// a warning for each to the response of ctx's request.
func (d Directive) Apply(ctx context.Context, errs []error) error {
	switch {
	case len(errs) == 0 || d == Ignore:
		return nil
	case d == Strict:
		return Error(errs)
	}
	for _, err := range errs {
		for _, w := range warnings(err.Error()) {
			warning.Add(ctx, w)
		}
	}
	return nil
}

// ApplyConfiguration does what the directive says, as kube's apply does once
// the configuration is merged, with the keys a YAML configuration (isYAML)
// gives twice in a mapping: with Strict, a 400 quoting sigs.k8s.io/yaml's
// strict read; with Warn, a warning for each.
func (d Directive) ApplyConfiguration(ctx context.Context, isYAML bool, body []byte) error {
	if !isYAML || !d.Checks() {
		return nil
	}
	err := encoding.YAMLStrictError(body)
	if err == nil {
		return nil
	}
	err = fmt.Errorf("error converting YAML to JSON: %w", err)
	if d == Strict {
		return apierrors.NewBadRequest("error strict decoding YAML: " + err.Error())
	}
	return d.Apply(ctx, []error{err})
}

// YAML's strict errors list one key per line after one of these prefixes.
const (
	yamlPrefix     = "yaml: unmarshal errors:\n"
	yamlLongPrefix = "error converting YAML to JSON: yaml: unmarshal errors:\n"
)

// warnings are the warnings of one strict error: a YAML error's lines, or the error.
func warnings(text string) []string {
	rest, ok := strings.CutPrefix(text, yamlPrefix)
	if !ok {
		if rest, ok = strings.CutPrefix(text, yamlLongPrefix); !ok {
			return []string{text}
		}
	}
	lines := strings.Split(rest, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return lines
}

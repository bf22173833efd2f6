// Package validation owns the name and label rules of Kubernetes, worded as
// k8s.io/apimachinery/pkg/util/validation words them, so that every message a
// client sees for a bad name, label key or label value matches kube-apiserver's.
// Each check returns the list of messages for the value; an empty list means valid.
package validation

import (
	"regexp"
	"strconv"
	"strings"
)

const (
	dns1123LabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	dns1035LabelFmt     = "[a-z]([-a-z0-9]*[a-z0-9])?"
	qualifiedNameFmt    = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelValueFmt       = "(" + qualifiedNameFmt + ")?"

	// DNS1123SubdomainMaxLength is the longest RFC 1123 subdomain.
	DNS1123SubdomainMaxLength = 253
	// DNS1123LabelMaxLength is the longest RFC 1123 or RFC 1035 label.
	DNS1123LabelMaxLength  = 63
	qualifiedNameMaxLength = 63
	labelValueMaxLength    = 63
)

var (
	dns1123LabelRe     = regexp.MustCompile("^" + dns1123LabelFmt + "$")
	dns1123SubdomainRe = regexp.MustCompile("^" + dns1123SubdomainFmt + "$")
	dns1035LabelRe     = regexp.MustCompile("^" + dns1035LabelFmt + "$")
	qualifiedNameRe    = regexp.MustCompile("^" + qualifiedNameFmt + "$")
	labelValueRe       = regexp.MustCompile("^" + labelValueFmt + "$")
)

// regexError is apimachinery's RegexError wording.
func regexError(msg, format string, examples ...string) string {
	msg += " (e.g. "
	for i, e := range examples {
		if i > 0 {
			msg += " or "
		}
		msg += "'" + e + "', "
	}
	return msg + "regex used for validation is '" + format + "')"
}

func maxLen(n int) string {
	return "must be no more than " + strconv.Itoa(n) + " characters"
}

// DNS1123Subdomain checks an RFC 1123 subdomain (most object names).
func DNS1123Subdomain(v string) []string {
	var errs []string
	if len(v) > DNS1123SubdomainMaxLength {
		errs = append(errs, maxLen(DNS1123SubdomainMaxLength))
	}
	if !dns1123SubdomainRe.MatchString(v) {
		errs = append(errs, regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", dns1123SubdomainFmt, "example.com"))
	}
	return errs
}

// DNS1123Label checks an RFC 1123 label (namespace names).
func DNS1123Label(v string) []string {
	var errs []string
	if len(v) > DNS1123LabelMaxLength {
		errs = append(errs, maxLen(DNS1123LabelMaxLength))
	}
	if !dns1123LabelRe.MatchString(v) {
		errs = append(errs, regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", dns1123LabelFmt, "my-name", "123-abc"))
	}
	return errs
}

// DNS1035Label checks an RFC 1035 label (service names).
func DNS1035Label(v string) []string {
	var errs []string
	if len(v) > DNS1123LabelMaxLength {
		errs = append(errs, maxLen(DNS1123LabelMaxLength))
	}
	if !dns1035LabelRe.MatchString(v) {
		errs = append(errs, regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", dns1035LabelFmt, "my-name", "abc-123"))
	}
	return errs
}

// QualifiedName checks a label key or annotation key: an optional DNS subdomain
// prefix and '/', then a name of at most 63 characters.
func QualifiedName(v string) []string {
	var errs []string
	parts := strings.Split(v, "/")
	var name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		var prefix string
		prefix, name = parts[0], parts[1]
		if len(prefix) == 0 {
			errs = append(errs, "prefix part must be non-empty")
		} else {
			for _, msg := range DNS1123Subdomain(prefix) {
				errs = append(errs, "prefix part "+msg)
			}
		}
	default:
		return append(errs, "a qualified name "+regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", qualifiedNameFmt, "MyName", "my.name", "123-abc")+
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
	}
	switch {
	case len(name) == 0:
		errs = append(errs, "name part must be non-empty")
	case len(name) > qualifiedNameMaxLength:
		errs = append(errs, "name part "+maxLen(qualifiedNameMaxLength))
	}
	if !qualifiedNameRe.MatchString(name) { // an empty name gets both messages, as in kube
		errs = append(errs, "name part "+regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", qualifiedNameFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

// LabelValue checks a label value: empty, or at most 63 characters of the
// qualified-name alphabet.
func LabelValue(v string) []string {
	var errs []string
	if len(v) > labelValueMaxLength {
		errs = append(errs, maxLen(labelValueMaxLength))
	}
	if !labelValueRe.MatchString(v) {
		errs = append(errs, regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

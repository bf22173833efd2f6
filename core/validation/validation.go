// Package validation owns the name and label rules of Kubernetes, worded as
// k8s.io/apimachinery/pkg/util/validation words them, so that every message a
// client sees for a bad name, label key or label value matches kube-apiserver's.
// Each such check returns the list of messages for the value; an empty list
// means valid.
//
// It also owns the built-in kinds' own rules that a learner meets first, as
// k8s.io/kubernetes's pkg/apis/core/validation and pkg/apis/apps/validation
// judge them (Pod, Deployment, ReplicaSet, Service, ConfigMap and Secret, on
// create and update): they read an object decoded and defaulted (core/defaults)
// and return its field errors in kube's order, with kube's words, down to the
// Go syntax kube shows some values in. Each file says which rules it checks.
// Where kube ranges over a Go map, in random order, the keys are taken in
// order.
package validation

import (
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

// The matchers below accept exactly the languages of the *Fmt expressions above
// (anchored at both ends), which the messages quote. They scan instead of using
// regexp: compiling five expressions at package init and backtracking through
// them cost a service worker's cold start more than everything else here.

func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func isAlnum(c byte) bool { return isLowerAlnum(c) || c >= 'A' && c <= 'Z' }

// matchDNS1123Label matches dns1123LabelFmt.
func matchDNS1123Label(v string) bool {
	if v == "" || !isLowerAlnum(v[0]) || !isLowerAlnum(v[len(v)-1]) {
		return false
	}
	for i := 1; i < len(v)-1; i++ {
		if !isLowerAlnum(v[i]) && v[i] != '-' {
			return false
		}
	}
	return true
}

// matchDNS1123Subdomain matches dns1123SubdomainFmt: labels joined by dots.
func matchDNS1123Subdomain(v string) bool {
	for {
		label, rest, more := strings.Cut(v, ".")
		if !matchDNS1123Label(label) {
			return false
		}
		if !more {
			return true
		}
		v = rest
	}
}

// matchDNS1035Label matches dns1035LabelFmt: a DNS-1123 label starting with a letter.
func matchDNS1035Label(v string) bool {
	return v != "" && v[0] >= 'a' && v[0] <= 'z' && matchDNS1123Label(v)
}

// matchQualifiedName matches qualifiedNameFmt.
func matchQualifiedName(v string) bool {
	if v == "" || !isAlnum(v[0]) || !isAlnum(v[len(v)-1]) {
		return false
	}
	for i := 1; i < len(v)-1; i++ {
		if c := v[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// matchLabelValue matches labelValueFmt: empty or a qualified name.
func matchLabelValue(v string) bool { return v == "" || matchQualifiedName(v) }

// regexError is apimachinery's RegexError wording.
func regexError(msg, format string, examples ...string) string {
	if len(examples) == 0 {
		return msg + " (regex used for validation is '" + format + "')"
	}
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
	if !matchDNS1123Subdomain(v) {
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
	if matchDNS1123Label(v) {
		return errs
	}
	if matchDNS1123Subdomain(v) {
		// A valid subdomain that is no label: the length is checked, so it is the dots.
		return append(errs, "must not contain dots")
	}
	return append(errs, regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", dns1123LabelFmt, "my-name", "123-abc"))
}

// DNS1035Label checks an RFC 1035 label (service names).
func DNS1035Label(v string) []string {
	var errs []string
	if len(v) > DNS1123LabelMaxLength {
		errs = append(errs, maxLen(DNS1123LabelMaxLength))
	}
	if !matchDNS1035Label(v) {
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
	if !matchQualifiedName(name) { // an empty name gets both messages, as in kube
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
	if !matchLabelValue(v) {
		errs = append(errs, regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

// PathSegmentName checks a name that need only be a URL path segment: not
// "." or "..", without '/' or '%'.
func PathSegmentName(v string) []string {
	if v == "." || v == ".." {
		return []string{"may not be '" + v + "'"}
	}
	return PathSegmentPrefix(v)
}

// PathSegmentPrefix checks a prefix of such a name: without '/' or '%'.
func PathSegmentPrefix(v string) []string {
	var errs []string
	for _, c := range []string{"/", "%"} {
		if strings.Contains(v, c) {
			errs = append(errs, "may not contain '"+c+"'")
		}
	}
	return errs
}

package cel

import (
	"strconv"
	"strings"
)

// The name rules kube's format library checks (apimachinery's
// IsDNS1123Label, IsDNS1123Subdomain, IsDNS1035Label, IsQualifiedName and
// IsValidLabelValue), in kube's words. core/validation has the same rules
// for the core; the CEL module keeps its own copy, held to those by a test,
// because linking core/validation would carry its certificate parsing
// (crypto/x509) into the module's download.

const (
	labelFmt         = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	subdomainFmt     = labelFmt + "(\\." + labelFmt + ")*"
	dns1035Fmt       = "[a-z]([-a-z0-9]*[a-z0-9])?"
	qualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelValueFmt    = "(" + qualifiedNameFmt + ")?"
)

func lowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func alnum(c byte) bool { return lowerAlnum(c) || c >= 'A' && c <= 'Z' }

// matches says whether v is first, then middle characters, then last (or a
// single first that is also last).
func matches(v string, end, middle func(byte) bool) bool {
	if v == "" || !end(v[0]) || !end(v[len(v)-1]) {
		return false
	}
	for i := 1; i < len(v)-1; i++ {
		if !middle(v[i]) {
			return false
		}
	}
	return true
}

func isLabel(v string) bool {
	return matches(v, lowerAlnum, func(c byte) bool { return lowerAlnum(c) || c == '-' })
}

func isSubdomain(v string) bool {
	for _, label := range strings.Split(v, ".") {
		if !isLabel(label) {
			return false
		}
	}
	return true
}

func isQualified(v string) bool {
	return matches(v, alnum, func(c byte) bool { return alnum(c) || c == '-' || c == '_' || c == '.' })
}

func regexMessage(msg, format string, examples ...string) string {
	msg += " (e.g. "
	for i, e := range examples {
		if i > 0 {
			msg += " or "
		}
		msg += "'" + e + "', "
	}
	return msg + "regex used for validation is '" + format + "')"
}

func tooLong(n int) string { return "must be no more than " + strconv.Itoa(n) + " characters" }

func dns1123Subdomain(v string) []string {
	var errs []string
	if len(v) > 253 {
		errs = append(errs, tooLong(253))
	}
	if !isSubdomain(v) {
		errs = append(errs, regexMessage("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", subdomainFmt, "example.com"))
	}
	return errs
}

func dns1123Label(v string) []string {
	var errs []string
	if len(v) > 63 {
		errs = append(errs, tooLong(63))
	}
	switch {
	case isLabel(v):
	case isSubdomain(v):
		errs = append(errs, "must not contain dots")
	default:
		errs = append(errs, regexMessage("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", labelFmt, "my-name", "123-abc"))
	}
	return errs
}

func dns1035Label(v string) []string {
	var errs []string
	if len(v) > 63 {
		errs = append(errs, tooLong(63))
	}
	if v == "" || v[0] < 'a' || v[0] > 'z' || !isLabel(v) {
		errs = append(errs, regexMessage("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", dns1035Fmt, "my-name", "abc-123"))
	}
	return errs
}

func qualifiedName(v string) []string {
	var errs []string
	const nameMessage = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	parts := strings.Split(v, "/")
	name := parts[0]
	switch len(parts) {
	case 1:
	case 2:
		name = parts[1]
		if parts[0] == "" {
			errs = append(errs, "prefix part must be non-empty")
		} else {
			for _, m := range dns1123Subdomain(parts[0]) {
				errs = append(errs, "prefix part "+m)
			}
		}
	default:
		return append(errs, "a qualified name "+regexMessage(nameMessage, qualifiedNameFmt, "MyName", "my.name", "123-abc")+
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
	}
	switch {
	case name == "":
		errs = append(errs, "name part must be non-empty")
	case len(name) > 63:
		errs = append(errs, "name part "+tooLong(63))
	}
	if !isQualified(name) {
		errs = append(errs, "name part "+regexMessage(nameMessage, qualifiedNameFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

func labelValue(v string) []string {
	var errs []string
	if len(v) > 63 {
		errs = append(errs, tooLong(63))
	}
	if v != "" && !isQualified(v) {
		errs = append(errs, regexMessage("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

package protobuf

import (
	"strconv"
	"strings"
)

// checkQuantity accepts the strings resource.ParseQuantity accepts by their form:
// a signed decimal number and a suffix (binary SI, decimal SI, or an exponent), with
// ParseQuantity's error messages. It does not canonicalize: the API server stores
// quantities canonically (core/quantity) before they are encoded.
func checkQuantity(s string) error {
	if s == "" {
		return &fieldError{msg: errQuantityFormat}
	}
	i := 0
	if s[0] == '+' || s[0] == '-' {
		i++
	}
	digits := func() {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	digits()
	if i < len(s) && s[i] == '.' {
		i++
		digits()
	}
	suffixStart := i
	for i < len(s) && strings.IndexByte("eEinumkKMGTP", s[i]) >= 0 {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits()
	if i != len(s) {
		return &fieldError{msg: errQuantityFormat}
	}
	switch suffix := s[suffixStart:]; suffix {
	case "n", "u", "m", "", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei":
	default:
		if len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E') {
			if _, err := strconv.ParseInt(suffix[1:], 10, 64); err == nil {
				return nil
			}
		}
		return &fieldError{msg: "unable to parse quantity's suffix"}
	}
	return nil
}

const errQuantityFormat = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

package quantity

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

// checkAgainstApimachinery compares Canonical with resource.ParseQuantity and
// Quantity.String.
func checkAgainstApimachinery(t *testing.T, s string) {
	t.Helper()
	q, kerr := resource.ParseQuantity(s)
	got, err := Canonical(s)
	if (kerr == nil) != (err == nil) {
		t.Fatalf("%q: ours %q %v, apimachinery %v", s, got, err, kerr)
	}
	if kerr != nil {
		if err.Error() != kerr.Error() {
			t.Fatalf("%q: error %q, apimachinery %q", s, err, kerr)
		}
		return
	}
	if want := q.String(); got != want {
		t.Fatalf("%q: ours %q, apimachinery %q", s, got, want)
	}
}

var seeds = []string{
	"0", "1", "100m", "1000m", "0.5", ".5", "1.", ".", "+1", "-1", "-0.5", "1k", "1000", "1500", "1.5k", "12e6", "1e3", "1E3", "1e-3",
	"1Ki", "1024", "1024Mi", "1.5Gi", "0.5Gi", "1536Ki", "8Ki", "1023", "1025Ki", "100Mi", "1n", "0.1n", "1.0000000001", "10u", "123456789012345678",
	"1234567890123456789", "99999999999999999999", "9223372036854775807Ki", "1Ei", "8Ei", "1E", "1000E", "1e21", "-1e-10", "001", "0001.000", "5e", "1x",
	"1.2.3", "", "-", "+", "1Mi1", "e3", "1e99", "1e-99", "1.5e3", "0.000001", "1m", "-1Ki", "-1024Ki", "7Gi", "64Mi", "2000Mi", "256M",
}

func TestQuantityMatchesApimachinery(t *testing.T) {
	for _, s := range seeds {
		checkAgainstApimachinery(t, s)
	}
}

func FuzzCanonicalMatchesApimachinery(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 40 || hugeExponent(s) {
			return // apimachinery's arbitrary precision takes forever on these
		}
		checkAgainstApimachinery(t, s)
	})
}

// hugeExponent: an exponent suffix of more than three digits.
func hugeExponent(s string) bool {
	digits := 0
	for i := len(s) - 1; i >= 0 && s[i] >= '0' && s[i] <= '9'; i-- {
		digits++
	}
	return digits > 3 && strings.ContainsAny(s, "eE")
}

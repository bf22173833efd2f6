package quantity

import (
	"fmt"
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

// checkRoundUpMilli compares RoundUpMilli of the canonical form with
// Quantity.RoundUp(-3), what kube's defaulting does to resource lists, and
// RoundUp to whole units with Quantity.RoundUp(0).
func checkRoundUpMilli(t *testing.T, s string) {
	t.Helper()
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return
	}
	c, err := Canonical(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	whole := q.DeepCopy()
	q.RoundUp(-3)
	if got, want := RoundUpMilli(c), q.String(); got != want {
		t.Fatalf("%q (%q): ours %q, apimachinery %q", s, c, got, want)
	}
	// As quota charges a claim's storage: in whole units.
	whole.RoundUp(0)
	if got, want := RoundUp(c, 0), whole.String(); got != want {
		t.Fatalf("%q (%q) to whole units: ours %q, apimachinery %q", s, c, got, want)
	}
}

var roundUpSeeds = []string{"100u", "1500u", "-1500u", "1u", "0.0005", "250u", "1e-4", "-1e-7", "3.5001", "0.0001Ki", "1.0001k", "999999n", "1000u", "1010u", "12.3456789"}

func TestRoundUpMilliMatchesApimachinery(t *testing.T) {
	for _, s := range append(append([]string{}, seeds...), roundUpSeeds...) {
		checkRoundUpMilli(t, s)
	}
}

func FuzzRoundUpMilliMatchesApimachinery(f *testing.F) {
	for _, s := range append(append([]string{}, seeds...), roundUpSeeds...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 40 || hugeExponent(s) {
			return
		}
		checkRoundUpMilli(t, s)
	})
}

// TestCompareMatchesApimachinery: Compare orders canonical quantities as
// Quantity.Cmp does.
func TestCompareMatchesApimachinery(t *testing.T) {
	for _, a := range seeds {
		for _, b := range []string{"0", "1", "2", "500m", "1Gi", "1024Mi", "-1", "1e3", "999m"} {
			qa, err := resource.ParseQuantity(a)
			if err != nil {
				continue
			}
			ca, _ := Canonical(a)
			if back := resource.MustParse(ca); back.Cmp(qa) != 0 {
				continue // kube writes some overflowing values ("1000E") as another
			}
			qb := resource.MustParse(b)
			if got, want := Compare(ca, b), qa.Cmp(qb); got != want {
				t.Errorf("Compare(%q (%q), %q) = %d, apimachinery %d", ca, a, b, got, want)
			}
		}
	}
}

// checkSum compares Add and Sub of two canonical quantities with
// Quantity.Add and Quantity.Sub, what kube's quota sums usage with.
func checkSum(t *testing.T, a, b string) {
	t.Helper()
	qa, aerr := resource.ParseQuantity(a)
	qb, berr := resource.ParseQuantity(b)
	if aerr != nil || berr != nil {
		return
	}
	ca, _ := Canonical(a)
	cb, _ := Canonical(b)
	if back := resource.MustParse(ca); back.Cmp(qa) != 0 {
		return // kube writes some overflowing values ("1000E") as another
	}
	if back := resource.MustParse(cb); back.Cmp(qb) != 0 {
		return
	}
	// As quota reads them: parsed from their canonical form.
	qa, qb = resource.MustParse(ca), resource.MustParse(cb)
	added, subtracted := qa.DeepCopy(), qa.DeepCopy()
	added.Add(qb)
	subtracted.Sub(qb)
	if got, want := Add(ca, cb), added.String(); got != want {
		t.Errorf("Add(%q, %q) = %q, apimachinery %q", ca, cb, got, want)
	}
	if got, want := Sub(ca, cb), subtracted.String(); got != want {
		t.Errorf("Sub(%q, %q) = %q, apimachinery %q", ca, cb, got, want)
	}
}

var sumSeeds = []string{"0", "1", "2", "500m", "1Gi", "512Mi", "100Mi", "-1", "1e3", "999m", "1k", "1.5", "3Ki", "1n"}

// TestAddSubMatchApimachinery: Add and Sub give the value and the format
// (binary, decimal, exponent) that Quantity.Add and Quantity.Sub give.
func TestAddSubMatchApimachinery(t *testing.T) {
	for _, a := range append(append([]string{}, seeds...), sumSeeds...) {
		for _, b := range sumSeeds {
			checkSum(t, a, b)
			checkSum(t, b, a)
		}
	}
}

func FuzzAddSubMatchApimachinery(f *testing.F) {
	for i, a := range sumSeeds {
		f.Add(a, sumSeeds[(i+3)%len(sumSeeds)])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 40 || len(b) > 40 || hugeExponent(a) || hugeExponent(b) {
			return
		}
		checkSum(t, a, b)
	})
}

// TestGoSyntaxMatchesApimachinery: GoSyntax prints a canonical quantity as
// %#v prints what ParseQuantity and defaulting (RoundUp to milli units) make
// of it, where kube holds it as an int64 amount.
func TestGoSyntaxMatchesApimachinery(t *testing.T) {
	for _, s := range append(append([]string{}, seeds...), sumSeeds...) {
		c, err := Canonical(s)
		if err != nil {
			continue
		}
		c = RoundUpMilli(c)
		q := resource.MustParse(c)
		q.RoundUp(-3)
		want := fmt.Sprintf("%#v", q)
		if strings.Contains(want, "(*inf.Dec)(0x") {
			continue // an address
		}
		if got := GoSyntax(c); got != want {
			t.Errorf("GoSyntax(%q) = %s, apimachinery %s", c, got, want)
		}
	}
}

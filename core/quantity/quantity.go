// Package quantity owns Kubernetes resource quantities ("500m", "1Gi", "1e3"):
// reading them as k8s.io/apimachinery's resource.ParseQuantity does, with its
// errors, and writing the canonical form kube-apiserver stores and serves
// ("0.5" becomes "500m", "1024Mi" becomes "1Gi", "1000" becomes "1k").
package quantity

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// The errors of resource.ParseQuantity.
var (
	ErrFormatWrong = errors.New("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	ErrNumeric     = errors.New("unable to parse numeric part of quantity")
	ErrSuffix      = errors.New("unable to parse quantity's suffix")
)

type format uint8

const (
	decimalExponent format = iota // 1e3
	binarySI                      // 1Ki
	decimalSI                     // 1k
)

// decimalSuffixes maps a power of ten to its SI suffix, and back.
var decimalSuffixes = map[string]int{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}

// binarySuffixes maps a power of two to its binary suffix, and back.
var binarySuffixes = map[string]int{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}

// Canonical returns s as kube-apiserver writes the quantity back: the canonical
// form, or s itself where resource.ParseQuantity keeps the string it was given
// (small integers already in canonical shape, such as "100m", "1Gi" or "1e3").
func Canonical(s string) (string, error) {
	if s == "" {
		return "", ErrFormatWrong
	}
	if s == "0" {
		return s, nil
	}
	positive, value, num, denom, suffix, err := split(s)
	if err != nil {
		return "", err
	}
	base, exponent, f, ok := interpret(suffix)
	if !ok {
		return "", ErrSuffix
	}

	if result, scale, keep, ok, err := exact(positive, num, denom, exponent, f); err != nil {
		return "", err
	} else if ok {
		if keep {
			return s, nil
		}
		return canonical(big.NewInt(result), scale, f), nil
	}

	// The arbitrary-precision path: the value, in units of 10^scale.
	mantissa, scale, ok := parseDecimal(value)
	if !ok {
		return "", ErrNumeric
	}
	if base == 10 {
		scale += exponent
	} else {
		mantissa.Lsh(mantissa, uint(exponent))
	}
	negative := mantissa.Sign() < 0
	mantissa.Abs(mantissa)
	if mantissa.Sign() != 0 && scale < -9 {
		// Round up to whole nano units. A value with fewer digits than the
		// places dropped is less than one nano: it becomes one.
		if drop := -9 - scale; drop > len(mantissa.String()) {
			mantissa = big.NewInt(1)
		} else {
			div := pow10(drop)
			q, m := new(big.Int).QuoRem(mantissa, div, new(big.Int))
			if m.Sign() != 0 {
				q.Add(q, big.NewInt(1))
			}
			mantissa = q
		}
		scale = -9
	}
	if f == binarySI && compare(mantissa, scale, big.NewInt(1<<63-1), 0) > 0 {
		mantissa, scale = big.NewInt(1<<63-1), 0
	}
	if f == binarySI && mantissa.Sign() > 0 && compare(mantissa, scale, big.NewInt(1), 0) < 0 {
		f = decimalSI
	}
	if negative {
		mantissa.Neg(mantissa)
	}
	return canonical(mantissa, scale, f), nil
}

// exact is ParseQuantity's exact-integer path: the value it keeps in units
// of 10^scale (its int64Amount), and whether it keeps the string it was
// given (keep); ok is false when the value needs arbitrary precision.
func exact(positive bool, num, denom string, exponent int, f format) (value int64, scale int, keep, ok bool, err error) {
	precision, multiplier := -1, int64(1)
	switch f {
	case decimalExponent, decimalSI:
		scale = exponent
		precision = 18 - (len(num) + len(denom))
	case binarySI:
		if exponent >= 0 && denom == "" {
			multiplier <<= uint(exponent)
			precision = 15 - len(num) - int(float32(exponent)*3/10) - 1
		}
	}
	if precision < 0 {
		return 0, 0, false, false, nil
	}
	scale -= len(denom)
	if scale < -9 {
		return 0, 0, false, false, nil
	}
	shifted := num + denom
	v, perr := strconv.ParseInt(shifted, 10, 64)
	if perr != nil {
		return 0, 0, false, false, ErrNumeric
	}
	result, ok := multiply(v, multiplier)
	if !ok {
		return 0, 0, false, false, nil
	}
	if f == binarySI {
		keep = exponent%10 == 0 && v&0x07 != 0
	} else {
		keep = scale%3 == 0 && !strings.HasSuffix(shifted, "000") && shifted[0] != '0'
	}
	if !positive {
		result = -result
	}
	return result, scale, keep, true, nil
}

// formatNames are the formats as kube's Go values name them.
var formatNames = [...]string{decimalExponent: "DecimalExponent", binarySI: "BinarySI", decimalSI: "DecimalSI"}

// GoSyntax is a quantity in canonical form as kube's validation messages
// print a resource.Quantity value (%#v of what ParseQuantity makes of it):
// "resource.Quantity{i:resource.int64Amount{value:1500, scale:-3}, ...}".
// Where kube keeps an arbitrary-precision value it prints its address;
// this prints a made-up one.
func GoSyntax(s string) string {
	positive, _, num, denom, suffix, err := split(s)
	_, exponent, f, ok := interpret(suffix)
	if err != nil || !ok {
		return "resource.Quantity{}"
	}
	value, scale, keep, ok, _ := exact(positive, num, denom, exponent, f)
	kept := ""
	if keep || s == "0" { // ParseQuantity keeps "0" as given too
		kept = s
	}
	if !ok {
		return fmt.Sprintf(`resource.Quantity{i:resource.int64Amount{value:0, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(0xc000010000)}, s:"", Format:%q}`, formatNames[f])
	}
	return fmt.Sprintf(`resource.Quantity{i:resource.int64Amount{value:%d, scale:%d}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:%q, Format:%q}`, value, scale, kept, formatNames[f])
}

// split reads sign, number, fraction and suffix as ParseQuantity does. value is
// the numeric text (sign, digits and fraction) before the suffix.
func split(s string) (positive bool, value, num, denom, suffix string, err error) {
	positive = true
	pos, end := 0, len(s)
	if pos < end {
		switch s[0] {
		case '-':
			positive = false
			pos++
		case '+':
			pos++
		}
	}
	for ; pos < end && s[pos] == '0'; pos++ {
	}
	if pos >= end {
		return positive, "0", "0", "", "", nil
	}
	start := pos
	for ; pos < end && isDigit(s[pos]); pos++ {
	}
	num = s[start:pos]
	if pos >= end {
		return positive, s, num, "", "", nil
	}
	if num == "" {
		num = "0"
	}
	if s[pos] == '.' {
		pos++
		start = pos
		for ; pos < end && isDigit(s[pos]); pos++ {
		}
		denom = s[start:pos]
		if pos >= end {
			return positive, s, num, denom, "", nil
		}
	}
	value = s[:pos]
	suffixStart := pos
	for ; pos < end && strings.IndexByte("eEinumkKMGTP", s[pos]) >= 0; pos++ {
	}
	if pos < end && (s[pos] == '-' || s[pos] == '+') {
		pos++
	}
	for ; pos < end && isDigit(s[pos]); pos++ {
	}
	if pos < end {
		return false, "", "", "", "", ErrFormatWrong
	}
	return positive, value, num, denom, s[suffixStart:], nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// interpret reads a suffix: its base, exponent and format.
func interpret(suffix string) (base, exponent int, f format, ok bool) {
	if e, ok := decimalSuffixes[suffix]; ok {
		return 10, e, decimalSI, true
	}
	if e, ok := binarySuffixes[suffix]; ok {
		return 2, e, binarySI, true
	}
	if len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E') {
		e, err := strconv.ParseInt(suffix[1:], 10, 64)
		if err != nil {
			return 0, 0, decimalExponent, false
		}
		return 10, int(int32(e)), decimalExponent, true
	}
	return 0, 0, decimalExponent, false
}

// multiply is a*b unless it overflows.
func multiply(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	return c, c/b == a
}

// parseDecimal reads "[+-]digits[.digits]" as mantissa × 10^scale.
func parseDecimal(s string) (*big.Int, int, bool) {
	intPart, frac, _ := strings.Cut(s, ".")
	m, ok := new(big.Int).SetString(intPart+frac, 10)
	if !ok {
		return nil, 0, false
	}
	return m, -len(frac), true
}

// compare compares a×10^as with b×10^bs.
func compare(a *big.Int, as int, b *big.Int, bs int) int {
	x, y := new(big.Int).Set(a), new(big.Int).Set(b)
	if as > bs {
		x.Mul(x, pow10(as-bs))
	} else if bs > as {
		y.Mul(y, pow10(bs-as))
	}
	return x.Cmp(y)
}

// canonical writes mantissa × 10^scale in format f as resource.Quantity's
// String does for a parsed value.
func canonical(mantissa *big.Int, scale int, f format) string {
	if mantissa.Sign() == 0 {
		return "0"
	}
	if f == binarySI {
		if compare(mantissa, scale, big.NewInt(-1024), 0) > 0 && compare(mantissa, scale, big.NewInt(1024), 0) < 0 {
			f = decimalSI
		} else if whole, exact := atScale0(mantissa, scale); !exact {
			f = decimalSI
		} else {
			n, times := removeFactors(whole, big.NewInt(1024))
			for s, e := range binarySuffixes {
				if e == times*10 {
					return n.String() + s
				}
			}
			return n.String()
		}
	}
	n, times := removeFactors(new(big.Int).Set(mantissa), big.NewInt(10))
	exponent := scale + times
	for exponent%3 != 0 {
		n.Mul(n, big.NewInt(10))
		exponent--
	}
	if f == decimalExponent {
		if exponent == 0 {
			return n.String()
		}
		return n.String() + "e" + strconv.Itoa(exponent)
	}
	for s, e := range decimalSuffixes {
		if e == exponent {
			return n.String() + s
		}
	}
	return n.String() // kube writes no suffix it has no name for
}

// atScale0 is mantissa × 10^scale as an integer, and whether that is exact.
func atScale0(mantissa *big.Int, scale int) (*big.Int, bool) {
	if scale >= 0 {
		return new(big.Int).Mul(mantissa, pow10(scale)), true
	}
	q, m := new(big.Int).QuoRem(mantissa, pow10(-scale), new(big.Int))
	return q, m.Sign() == 0
}

// removeFactors divides out factor as often as it goes evenly.
func removeFactors(n, factor *big.Int) (*big.Int, int) {
	times := 0
	q, m := new(big.Int), new(big.Int)
	for n.Sign() != 0 {
		q.QuoRem(n, factor, m)
		if m.Sign() != 0 {
			break
		}
		times++
		n, q = q, n
	}
	return n, times
}

// parse reads a quantity as mantissa × 10^scale, and its format.
func parse(s string) (mantissa *big.Int, scale int, f format, ok bool) {
	_, text, _, _, suffix, err := split(s)
	if err != nil {
		return nil, 0, f, false
	}
	base, exponent, f, ok := interpret(suffix)
	if !ok {
		return nil, 0, f, false
	}
	if mantissa, scale, ok = parseDecimal(text); !ok {
		return nil, 0, f, false
	}
	if base == 10 {
		return mantissa, scale + exponent, f, true
	}
	return mantissa.Lsh(mantissa, uint(exponent)), scale, f, true
}

// Compare compares two quantities by value (-1, 0 or +1); one that does not
// parse counts as zero.
func Compare(a, b string) int {
	am, as, _, aok := parse(a)
	bm, bs, _, bok := parse(b)
	if !aok {
		am, as = new(big.Int), 0
	}
	if !bok {
		bm, bs = new(big.Int), 0
	}
	return compare(am, as, bm, bs)
}

// RoundUpMilli is what kube's defaulting makes of a quantity in a resource
// list (Quantity.RoundUp to milli units): s, a quantity in canonical form,
// when it has nothing below a thousandth; otherwise the canonical form of its
// value rounded away from zero to whole thousandths ("100u" becomes "1m",
// "-1500u" becomes "-2m").
func RoundUpMilli(s string) string { return RoundUp(s, -3) }

// RoundUp is Quantity.RoundUp(scale) of s, a quantity in canonical form: s
// when it has nothing below 10^scale, else its value rounded away from zero
// to whole units of 10^scale ("1500m" rounded to 0 is "2").
func RoundUp(s string, scale int) string {
	mantissa, at, f, ok := parse(s)
	if !ok || at >= scale {
		return s
	}
	div := pow10(scale - at)
	q, m := new(big.Int).QuoRem(new(big.Int).Abs(mantissa), div, new(big.Int))
	if m.Sign() == 0 {
		return s
	}
	q.Add(q, big.NewInt(1))
	if mantissa.Sign() < 0 {
		q.Neg(q)
	}
	return canonical(q, scale, f)
}

// MilliValue is a quantity in thousandths of its unit, rounded up, as kube's
// Quantity.MilliValue ("100m" is 100, "1Gi" is 1073741824000); 0 when it does
// not parse or does not fit an int64. The scheduler adds requests up with it.
func MilliValue(s string) int64 {
	mantissa, scale, _, ok := parse(s)
	if !ok {
		return 0
	}
	v := new(big.Int).Set(mantissa)
	if scale += 3; scale >= 0 {
		v.Mul(v, pow10(scale))
	} else {
		div := pow10(-scale)
		var m big.Int
		v.QuoRem(v, div, &m)
		if m.Sign() > 0 {
			v.Add(v, big.NewInt(1))
		}
	}
	if !v.IsInt64() {
		return 0
	}
	return v.Int64()
}

// Add is a + b as kube's Quantity.Add leaves it, written as its String
// writes it: in a's format, or in b's when a is zero (a zero quantity takes
// the format of what is added to it). A quantity that does not parse counts
// as zero.
func Add(a, b string) string { return sum(a, b, false) }

// Sub is a - b as kube's Quantity.Sub leaves it: in a's format, or in b's
// when a is zero.
func Sub(a, b string) string { return sum(a, b, true) }

func sum(a, b string, subtract bool) string {
	am, as, af, aok := parse(a)
	bm, bs, bf, bok := parse(b)
	if !aok {
		am, as, af = new(big.Int), 0, decimalSI
	}
	if !bok {
		bm, bs, bf = new(big.Int), 0, decimalSI
	}
	if am.Sign() == 0 {
		af = bf
	}
	x, y := new(big.Int).Set(am), new(big.Int).Set(bm)
	scale := min(as, bs)
	x.Mul(x, pow10(as-scale))
	y.Mul(y, pow10(bs-scale))
	if subtract {
		x.Sub(x, y)
	} else {
		x.Add(x, y)
	}
	return canonical(x, scale, af)
}

// Int64 is the quantity's value as an int64, as kube's Quantity.AsInt64:
// false when it has a fraction, does not fit or does not parse.
func Int64(s string) (int64, bool) {
	mantissa, scale, _, ok := parse(s)
	if !ok {
		return 0, false
	}
	v, ok := atScale0(mantissa, scale)
	if !ok || !v.IsInt64() {
		return 0, false
	}
	return v.Int64(), true
}

// Float64 is the quantity's value as a float64, approximately, as kube's
// Quantity.AsApproximateFloat64 (0 when it does not parse).
func Float64(s string) float64 {
	mantissa, scale, _, ok := parse(s)
	if !ok {
		return 0
	}
	base, _ := strconv.ParseFloat(mantissa.String(), 64) // the float nearest the integer
	if scale == 0 {
		return base
	}
	return base * math.Pow10(scale)
}

// Sign is the quantity's sign: -1, 0 or +1 (0 when it does not parse).
func Sign(s string) int {
	mantissa, _, _, ok := parse(s)
	if !ok {
		return 0
	}
	return mantissa.Sign()
}

// pow10 is 10^n, n ≥ 0 (big.Int's Exp would link its modular arithmetic into
// every module that reads quantities).
func pow10(n int) *big.Int {
	p, b := big.NewInt(1), big.NewInt(10)
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			p.Mul(p, b)
		}
		if n > 1 {
			b.Mul(b, b)
		}
	}
	return p
}

package kubectl

import (
	"strconv"
	"strings"
)

// This file owns the arithmetic describe and top do on resource.Quantity
// strings (sums of requests, shares of allocatable, canonical forms) in
// thousandths as int64: enough for any CPU or memory amount a sandbox
// holds (up to 8 PiB), without math/big, whose weight the module's size
// budget cannot spare (core/quantity is exact, and costs ~75 KB gzip).

// qty is a quantity in thousandths of its unit, with its format: 'D'
// (decimal SI: m, k, M...), 'B' (binary SI: Ki, Mi...) or 'E' (1e3).
type qty struct {
	milli  int64
	format byte
}

// decimalSuffixes are the decimal SI suffixes by power of 1000, from m.
var decimalSuffixes = []string{"m", "", "k", "M", "G", "T", "P", "E"}

// binarySuffixes are the binary SI suffixes by power of 1024.
var binarySuffixes = []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}

// parseQty reads a quantity, rounding below a thousandth up.
func parseQty(s string) (qty, bool) {
	num := strings.TrimLeft(s, "+-0123456789.")
	suffix := num
	num = s[:len(s)-len(suffix)]
	neg := strings.HasPrefix(num, "-")
	num = strings.TrimLeft(num, "+-")
	whole, frac, _ := strings.Cut(num, ".")
	if whole == "" && frac == "" {
		return qty{}, false
	}
	// scale: the value is digits × 10^pow10 × 1024^pow1024 thousandths.
	pow10, pow1024, format := 3, 0, byte('D')
	switch {
	case suffix == "":
	case suffix == "n":
		pow10 = -6
	case suffix == "u":
		pow10 = -3
	case strings.HasSuffix(suffix, "i"):
		i := indexOf(binarySuffixes, suffix)
		if i < 0 {
			return qty{}, false
		}
		pow1024, format = i, 'B'
	case suffix[0] == 'e' || suffix[0] == 'E':
		e, err := strconv.Atoi(suffix[1:])
		if err != nil {
			return qty{}, false
		}
		pow10, format = 3+e, 'E'
	default:
		i := indexOf(decimalSuffixes, suffix)
		if i < 0 {
			return qty{}, false
		}
		pow10 = 3 * i
	}
	digits := strings.TrimLeft(whole+frac, "0")
	pow10 -= len(frac)
	var v int64
	if digits != "" {
		n, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			return qty{}, false
		}
		v = n
	}
	for ; pow1024 > 0; pow1024-- {
		v *= 1024
	}
	for ; pow10 > 0; pow10-- {
		v *= 10
	}
	for up := false; pow10 < 0; pow10++ {
		if v%10 != 0 {
			up = true
		}
		v /= 10
		if pow10 == -1 && up {
			v++
		}
	}
	if neg {
		v = -v
	}
	return qty{v, format}, true
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// String is the quantity's canonical form, as Quantity.String prints it.
func (q qty) String() string {
	if q.milli == 0 {
		return "0"
	}
	if q.format == 'B' && (q.milli <= -1024000 || q.milli >= 1024000) && q.milli%1000 == 0 {
		v, i := q.milli/1000, 0
		for v%1024 == 0 && i < len(binarySuffixes)-1 {
			v, i = v/1024, i+1
		}
		return strconv.FormatInt(v, 10) + binarySuffixes[i]
	}
	v, i := q.milli, 0
	for v%1000 == 0 && i < len(decimalSuffixes)-1 {
		v, i = v/1000, i+1
	}
	if q.format == 'E' {
		if e := 3 * (i - 1); e != 0 {
			return strconv.FormatInt(v, 10) + "e" + strconv.Itoa(e)
		}
		return strconv.FormatInt(v, 10)
	}
	return strconv.FormatInt(v, 10) + decimalSuffixes[i]
}

// qtyOf is s parsed; zero when empty or unreadable.
func qtyOf(s string) qty {
	q, _ := parseQty(s)
	return q
}

// quantityString is a quantity as Quantity.String prints it: canonical.
func quantityString(s string) string {
	if q, ok := parseQty(s); ok {
		return q.String()
	}
	return s
}

// quantityAdd is a + b in a's format (b's when a is zero), canonical.
func quantityAdd(a, b string) string {
	x, y := qtyOf(a), qtyOf(b)
	if x.milli == 0 {
		x.format = y.format
	}
	return qty{x.milli + y.milli, x.format}.String()
}

// quantityMilli is a quantity's MilliValue; 0 when empty.
func quantityMilli(s string) int64 { return qtyOf(s).milli }

// quantityValue is a quantity's Value: whole units, rounded up; 0 when
// empty.
func quantityValue(s string) int64 {
	m := qtyOf(s).milli
	if m > 0 {
		return (m + 999) / 1000
	}
	return m / 1000
}

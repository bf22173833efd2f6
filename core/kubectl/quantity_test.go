package kubectl

import (
	"fmt"
	"math/rand"
	"testing"

	"kubeplay/core/quantity"
)

// TestLEARN_1_QuantityArithmetic: describe's and top's quantity arithmetic
// in thousandths agrees with core/quantity (kube's exact resource.Quantity)
// on canonical forms, sums, milli and whole values of CPU and memory
// amounts in every format.
func TestLEARN_1_QuantityArithmetic(t *testing.T) {
	inputs := []string{"0", "1", "100m", "250m", "1500m", "2", "4", "0.5", "1.5", "64Mi", "128Mi", "1Gi", "1536Mi", "8Gi", "100Gi",
		"1000", "1024", "1500", "2k", "1M", "500M", "1G", "100Ti", "12e3", "1e6", "3Ki", "1023", "1025", "0.1", "110", "3607", "7.5Gi"}
	for _, s := range inputs {
		want, err := quantity.Canonical(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := quantityString(s); got != want {
			t.Errorf("canonical %s: %s, want %s", s, got, want)
		}
		if got, want := quantityMilli(s), quantity.MilliValue(s); got != want {
			t.Errorf("milli %s: %d, want %d", s, got, want)
		}
		want1, _ := quantity.Int64(quantity.RoundUp(s, 0))
		if got := quantityValue(s); got != want1 {
			t.Errorf("value %s: %d, want %d", s, got, want1)
		}
	}
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < 2000; n++ {
		a, b := inputs[rng.Intn(len(inputs))], inputs[rng.Intn(len(inputs))]
		if n%3 == 0 {
			a = fmt.Sprintf("%dm", rng.Intn(5000))
		}
		if n%5 == 0 {
			b = fmt.Sprintf("%dMi", rng.Intn(4096))
		}
		if got, want := quantityAdd(a, b), quantity.Add(a, b); got != want {
			t.Errorf("%s + %s: %s, want %s", a, b, got, want)
		}
	}
}

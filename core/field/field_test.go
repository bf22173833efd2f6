package field_test

import (
	"runtime"
	"testing"

	kfield "k8s.io/apimachinery/pkg/util/validation/field"

	"kubeplay/core/field"
)

// TestK8S_WRITE_5_PathWrittenAsKube: paths are written as kube's field.Path
// writes them (fields joined by dots, list indexes and map keys in brackets,
// however they are built), and a path started empty (a walk from an object's
// root) writes its first field alone.
func TestK8S_WRITE_5_PathWrittenAsKube(t *testing.T) {
	for _, c := range []struct {
		ours   *field.Path
		kube   *kfield.Path
		wanted string
	}{
		{field.NewPath("spec"), kfield.NewPath("spec"), "spec"},
		{field.NewPath("metadata", "labels").Key("app"), kfield.NewPath("metadata", "labels").Key("app"), "metadata.labels[app]"},
		{field.NewPath("spec").Child("containers").Index(0).Child("image"), kfield.NewPath("spec").Child("containers").Index(0).Child("image"), "spec.containers[0].image"},
		{field.NewPath("spec").Index(12345).Index(7).Key("").Key("a.b[c]").Child("x"), kfield.NewPath("spec").Index(12345).Index(7).Key("").Key("a.b[c]").Child("x"), "spec[12345][7][][a.b[c]].x"},
		{field.NewPath("a", "b", "c").Child(""), kfield.NewPath("a", "b", "c"), "a.b.c."},
	} {
		if got := c.ours.String(); got != c.wanted {
			t.Errorf("got %q, want %q", got, c.wanted)
		}
		if c.wanted[len(c.wanted)-1] != '.' && c.kube.String() != c.wanted {
			t.Errorf("kube writes %q, the table %q", c.kube.String(), c.wanted)
		}
	}
	var root *field.Path
	for _, c := range []struct {
		p      *field.Path
		wanted string
	}{
		{root, ""},
		{root.Child("spec").Child("a"), "spec.a"},
		{field.NewPath("").Child("spec"), "spec"},
		{field.NewPath("", "", "spec"), "spec"},
		{root.Index(3).Child("a"), "[3].a"},
		{root.Key("k"), "[k]"},
		{root.Index(-1), "[-1]"},
	} {
		if got := c.p.String(); got != c.wanted {
			t.Errorf("got %q, want %q", got, c.wanted)
		}
	}
}

// TestROB_1_DeepPathCostsLinear: a path n steps deep costs n small steps to
// build, however deep: building one twice as deep allocates twice as many
// bytes (rebuilding the path's text at every step, as kubeplay once did,
// cost four times as many).
func TestROB_1_DeepPathCostsLinear(t *testing.T) {
	cost := func(depth int) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		p := field.NewPath("spec")
		for i := 0; i < depth; i++ {
			p = p.Child("properties").Key("a").Index(i)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	if n, n2 := cost(2000), cost(4000); float64(n2) > 2.2*float64(n) {
		t.Fatalf("a path 2000 steps deep allocates %d bytes, 4000 steps %d: more than twice as many", n, n2)
	}
	if got := field.NewPath("spec").Child("a").Index(3).Key("k").String(); got != "spec.a[3][k]" {
		t.Fatal(got)
	}
}

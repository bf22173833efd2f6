package cel

import (
	"slices"
	"strings"
	"testing"

	"kubeplay/core/validation"
)

// FuzzCEL_NamesAsCore: the format library's name rules answer as
// core/validation's (which its own tests hold to kube's), word for word.
func FuzzCEL_NamesAsCore(f *testing.F) {
	for _, s := range []string{"", "a", "A", "-a", "a-", "a.b", "a..b", "my-name", "1abc", "example.com/MyName", "/x", "a/b/c", "x_y.z",
		strings.Repeat("a", 64), strings.Repeat("a.", 127) + "a", "example.com/" + strings.Repeat("b", 64), "Web", "a_b", "-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range []struct {
			name       string
			mine, core func(string) []string
		}{{"DNS1123Label", dns1123Label, validation.DNS1123Label}, {"DNS1123Subdomain", dns1123Subdomain, validation.DNS1123Subdomain},
			{"DNS1035Label", dns1035Label, validation.DNS1035Label}, {"QualifiedName", qualifiedName, validation.QualifiedName},
			{"LabelValue", labelValue, validation.LabelValue}} {
			if got, want := c.mine(s), c.core(s); !slices.Equal(got, want) {
				t.Errorf("%s(%q) = %q, core/validation %q", c.name, s, got, want)
			}
		}
	})
}

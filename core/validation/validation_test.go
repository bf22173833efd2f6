package validation

import (
	"slices"
	"testing"

	apivalidation "k8s.io/apimachinery/pkg/util/validation"
)

// Every check gives exactly apimachinery's messages for the same value.
func checkAgainstApimachinery(t *testing.T, v string) {
	t.Helper()
	pairs := []struct {
		name       string
		ours, kube func(string) []string
	}{
		{"DNS1123Subdomain", DNS1123Subdomain, apivalidation.IsDNS1123Subdomain},
		{"DNS1123Label", DNS1123Label, apivalidation.IsDNS1123Label},
		{"DNS1035Label", DNS1035Label, apivalidation.IsDNS1035Label},
		{"QualifiedName", QualifiedName, apivalidation.IsQualifiedName},
		{"LabelValue", LabelValue, apivalidation.IsValidLabelValue},
	}
	for _, p := range pairs {
		if got, want := p.ours(v), p.kube(v); !slices.Equal(got, want) {
			t.Errorf("%s(%q) = %q, apimachinery says %q", p.name, v, got, want)
		}
	}
}

func TestK8S_NAME_1_MessagesMatchApimachinery(t *testing.T) {
	for _, v := range []string{
		"", "a", "A", "-", ".", "a-b", "a--b", "-a", "a-", "a.b", "a..b", ".a", "a.", "1a", "a1",
		"my-name", "123-abc", "example.com", "MyName", "my.name", "my_name", "_a", "a_", "a/b",
		"example.com/MyName", "/a", "a/", "a/b/c", "ä", "a\n", "\na", "a b",
		string(make([]byte, 64)), "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	} {
		checkAgainstApimachinery(t, v)
	}
}

func FuzzMatchesApimachinery(f *testing.F) {
	for _, v := range []string{"a", "my-name", "example.com/MyName", "a..b", "-a", "MyValue"} {
		f.Add(v)
	}
	f.Fuzz(checkAgainstApimachinery)
}

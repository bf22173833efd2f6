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
		{"PortName", PortName, apivalidation.IsValidPortName},
		{"configKey", configKey, apivalidation.IsConfigMapKey},
		{"percent", percent, apivalidation.IsValidPercent},
	}
	if v != "" { // kube checks only names it has
		pairs = append(pairs, struct {
			name       string
			ours, kube func(string) []string
		}{"envVarName", envVarName, apivalidation.IsRelaxedEnvVarName})
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
		"http", "1234", "a-very-long-port-name", "HTTP_x", "25%", "100%", "%", "1.5%", "-5%", "..a", "a=b", "\x7f", "é",
	} {
		checkAgainstApimachinery(t, v)
	}
}

// TestPortNumberMatchesApimachinery: port numbers 1–65535, worded as
// IsValidPortNum words the others.
func TestPortNumberMatchesApimachinery(t *testing.T) {
	for _, n := range []int64{-1, 0, 1, 80, 65535, 65536, 70000} {
		if got, want := PortNumber(n), apivalidation.IsValidPortNum(int(n)); !slices.Equal(got, want) {
			t.Errorf("PortNumber(%d) = %q, apimachinery says %q", n, got, want)
		}
	}
}

func FuzzMatchesApimachinery(f *testing.F) {
	for _, v := range []string{"a", "my-name", "example.com/MyName", "a..b", "-a", "MyValue"} {
		f.Add(v)
	}
	f.Fuzz(checkAgainstApimachinery)
}

package kinds_test

import (
	"testing"

	"kubeplay/core/kinds"
	"kubeplay/core/types"
)

// TestK8S_URI_4_KindsDescribedOnce: every built-in resource is listed once,
// and every stored typed kind has its Go type in the generated tables (a
// new kind needs tools/protogen's root, then go generate).
func TestK8S_URI_4_KindsDescribedOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, res := range kinds.All() {
		key := res.Group + "/" + res.Version + "/" + res.Plural
		if seen[key] {
			t.Errorf("%s listed twice", key)
		}
		seen[key] = true
		if res.View == nil && !res.Virtual && !res.Untyped && types.GoType(res.APIVersion(), res.Kind) == "" {
			t.Errorf("%s: no Go type in core/types", key)
		}
	}
}

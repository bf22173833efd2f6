package sandbox

import (
	"testing"

	"kubeplay/core/object"
)

// TestCONF_1_ComponentStatuses: a sandbox with its simulated cluster runs a
// scheduler and a controller manager, and its componentstatuses say all
// three components are Healthy ("ok"); an API-only one answers as kube's
// API server alone does, only etcd-0 healthy.
func TestCONF_1_ComponentStatuses(t *testing.T) {
	for _, c := range []struct {
		apiOnly bool
		healthy map[string]string
	}{
		{false, map[string]string{"controller-manager": "True", "etcd-0": "True", "scheduler": "True"}},
		{true, map[string]string{"controller-manager": "False", "etcd-0": "True", "scheduler": "False"}},
	} {
		e := newEnv(t, Config{APIOnly: c.apiOnly})
		r := e.do("GET", "/api/v1/componentstatuses", nil, admin)
		got := map[string]string{}
		for _, it := range r.Obj["items"].([]any) {
			got[object.MetaString(it.(map[string]any), "name")] = object.String(object.Path(it, "conditions").([]any)[0].(map[string]any)["status"])
		}
		if len(got) != 3 || got["etcd-0"] != c.healthy["etcd-0"] || got["scheduler"] != c.healthy["scheduler"] || got["controller-manager"] != c.healthy["controller-manager"] {
			t.Errorf("APIOnly %v: %v, want %v", c.apiOnly, got, c.healthy)
		}
	}
}

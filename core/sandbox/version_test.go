package sandbox

import (
	"testing"

	"kubeplay/core/object"
	"kubeplay/core/sim"
	"kubeplay/core/version"
)

// TestVersionTellsOneStory: /version, the simulated nodes' kubelets and the
// API server's own requests name the same Kubernetes release (the server said
// v1.32.0 while its nodes said v1.32.13).
func TestVersionTellsOneStory(t *testing.T) {
	e := newEnv(t, Config{Cluster: sim.Config{Nodes: 1, Speed: 10}})
	v := e.do("GET", "/version", nil, admin)
	if v.Code != 200 {
		t.Fatalf("GET /version: %d %s", v.Code, v.Body)
	}
	if got := v.Obj["gitVersion"]; got != "v1.32.13+kubeplay" {
		t.Errorf("gitVersion %v, want v1.32.13+kubeplay", got)
	}
	if v.Obj["major"] != "1" || v.Obj["minor"] != "32" {
		t.Errorf("major %v minor %v, want 1 and 32", v.Obj["major"], v.Obj["minor"])
	}
	var kubelet any
	e.eventually("a node", func() bool {
		items, _ := e.do("GET", "/api/v1/nodes", nil, admin).Obj["items"].([]any)
		if len(items) == 0 {
			return false
		}
		kubelet = object.Path(items[0], "status", "nodeInfo", "kubeletVersion")
		return true
	})
	if kubelet != version.Kubernetes {
		t.Errorf("the node's kubeletVersion %v, want %s (what /version says, without +kubeplay)", kubelet, version.Kubernetes)
	}
}

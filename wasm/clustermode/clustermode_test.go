package clustermode

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"kubeplay/core/sim"
)

// TestSIM_5_ClusterModeFromSim checks clustermode.json is what gen.go writes
// from core/sim today, so the hosts' checks hold the simulation's own bounds.
func TestSIM_5_ClusterModeFromSim(t *testing.T) {
	out := filepath.Join(t.TempDir(), "clustermode.json")
	cmd := exec.Command("go", "run", "gen.go", "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run gen.go: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(clusterModeJSON, want) {
		t.Fatalf("clustermode.json is stale (go generate ./wasm/clustermode): have\n%s\nwant\n%s", clusterModeJSON, want)
	}
	if Default.Nodes != sim.DefaultNodes || MaxNodes != sim.MaxNodes || Default.Mode != "simulated" {
		t.Fatalf("read %+v, max nodes %d; core/sim: %d nodes by default, at most %d", Default, MaxNodes, sim.DefaultNodes, sim.MaxNodes)
	}
}

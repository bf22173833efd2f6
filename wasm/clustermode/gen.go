//go:build ignore

// Gen writes clustermode.json from core/sim, which the hosts' cluster mode
// checks read: `go generate ./wasm/clustermode` after core/sim's defaults or
// bounds change (clustermode_test.go fails until then).
package main

import (
	"encoding/json"
	"flag"
	"log"
	"os"

	"kubeplay/core/sim"
)

// maxSpeed is how much faster than real time a sandbox's simulated cluster may
// run when a client picks its speed (natively, --sim-speed is the operator's).
const maxSpeed = 100

func main() {
	out := flag.String("o", "clustermode.json", "file to write")
	flag.Parse()
	type settings struct {
		Mode  string  `json:"mode"`
		Nodes int     `json:"nodes"`
		Speed float64 `json:"speed"`
	}
	// A sandbox runs the simulated cluster unless it asks for the API alone;
	// the cluster's nodes and speed are core/sim's defaults (speed 1: real time).
	data, err := json.MarshalIndent(struct {
		Default  settings `json:"default"`
		MaxNodes int      `json:"maxNodes"`
		MaxSpeed float64  `json:"maxSpeed"`
	}{settings{"simulated", sim.DefaultNodes, 1}, sim.MaxNodes, maxSpeed}, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, append(data, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
}

// Package clustermode is what a sandbox's cluster mode may be where a client
// chooses it (the service worker's /debug/kubeplay/cluster, the edge's POST
// /sandboxes): the simulated cluster or the API alone, its default nodes and
// speed, and their bounds. They are kept in clustermode.json, generated from
// core/sim (gen.go), which the service worker's build bundles as it is and Go
// reads through this package, so a host need not link core/sim to check them.
package clustermode

import (
	_ "embed"
	"encoding/json"
)

//go:generate go run gen.go

//go:embed clustermode.json
var clusterModeJSON []byte

// Settings are a cluster mode.
type Settings struct {
	Mode  string  `json:"mode"` // "simulated" or "api-only"
	Nodes int     `json:"nodes"`
	Speed float64 `json:"speed"` // how much faster than real time
}

var file = func() (f struct {
	Default  Settings `json:"default"`
	MaxNodes int      `json:"maxNodes"`
	MaxSpeed float64  `json:"maxSpeed"`
}) {
	if err := json.Unmarshal(clusterModeJSON, &f); err != nil {
		panic("clustermode: clustermode.json: " + err.Error())
	}
	return f
}()

var (
	// Default is a sandbox's cluster mode unless it asks for another.
	Default = file.Default
	// MaxNodes bounds the node count a sandbox may ask for.
	MaxNodes = file.MaxNodes
	// MaxSpeed bounds the speed a sandbox may ask for.
	MaxSpeed = file.MaxSpeed
)

//go:build !js || sim

package sandbox

import (
	"kubeplay/core/sim"
	"kubeplay/core/web"
)

// startCluster starts the simulated cluster against h.
func startCluster(h web.Handler, cfg sim.Config) (*sim.Cluster, error) { return sim.Start(h, cfg) }

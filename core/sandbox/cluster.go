//go:build !js || sim

package sandbox

import (
	"kubeplay/core/clock"
	"kubeplay/core/podlogs"
	"kubeplay/core/sim"
	"kubeplay/core/web"
)

// startCluster starts the simulated cluster against h: natively, and in the
// edge's core (built with -tags sim), where one binary costs the sandbox
// Worker less than a second Go instance's module.
func startCluster(h web.Handler, cfg sim.Config) (*sim.Cluster, error) { return sim.Start(h, cfg) }

// podLogs are the simulated kubelets' logs.
func podLogs(clk clock.Clock) podlogs.Kubelet { return sim.Logs(clk) }

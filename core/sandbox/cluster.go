//go:build !js

package sandbox

import (
	"kubeplay/core/clock"
	"kubeplay/core/podlogs"
	"kubeplay/core/sim"
	"kubeplay/core/web"
)

// startCluster starts the simulated cluster against h.
func startCluster(h web.Handler, cfg sim.Config) (*sim.Cluster, error) { return sim.Start(h, cfg) }

// podLogs are the simulated kubelets' logs.
func podLogs(clk clock.Clock) podlogs.Kubelet { return sim.Logs(clk) }

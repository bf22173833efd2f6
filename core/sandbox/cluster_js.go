//go:build js && !sim

package sandbox

import (
	"kubeplay/core/clock"
	"kubeplay/core/podlogs"
	"kubeplay/core/sim"
	"kubeplay/core/web"
)

// startCluster leaves the simulated cluster out of the browser's
// kubeplay.wasm, which serves the API only: the simulation's code (about
// 140 KB of gzip in WebAssembly) does not fit the module's 3 MiB budget. The
// browser runs it in a module of its own (wasm/sim, kubeplay-sim.wasm) as a
// client of the core, when the sandbox's cluster mode asks for it; natively,
// and in the edge's core (-tags sim), it is linked in (cluster.go).
func startCluster(web.Handler, sim.Config) (*sim.Cluster, error) { return nil, nil }

// podLogs: no kubelets, no logs.
func podLogs(clock.Clock) podlogs.Kubelet { return nil }

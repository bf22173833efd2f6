//go:build js && wasm

// Command sim is the browser's simulated cluster (kubeplay-sim.wasm): the
// nodes, scheduler, kubelets and controllers of core/sim in a second Go
// instance beside the core, which serves the API only. It is loaded when the
// sandbox's cluster mode is "simulated" (the service worker's
// /debug/kubeplay/cluster), so the core's module and cold start do not carry
// it. Like the xDS module it is a client of the core through the core's handle
// function, as the simulation is of the handler natively, with kube's
// identities (impersonated: bridge.Remote):
//
//	kubeplaySim.start(kubeplay.handle, {nodes, speed}) → Promise
//	    starts the simulated cluster (again, if it ran with other settings).
//	kubeplaySim.stop() → Promise
//	    stops it; the objects it made stay.
package main

import (
	"errors"
	"sync"
	"syscall/js"

	"kubeplay/core/sim"
	"kubeplay/wasm/bridge"
	"kubeplay/wasm/jsio"
)

var (
	mu      sync.Mutex
	cluster *sim.Cluster
	running sim.Config
)

func main() {
	api := js.Global().Get("Object").New()
	api.Set("start", js.FuncOf(start))
	api.Set("stop", js.FuncOf(stop))
	js.Global().Set("kubeplaySim", api)
	if ready := js.Global().Get("kubeplaySimReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

func start(_ js.Value, args []js.Value) any {
	return jsio.Async(func() (any, error) {
		if len(args) < 1 || args[0].Type() != js.TypeFunction {
			return nil, errors.New("start(kubeplay.handle, {nodes, speed})")
		}
		var cfg sim.Config
		if len(args) > 1 && args[1].Type() == js.TypeObject {
			if n := args[1].Get("nodes"); n.Type() == js.TypeNumber {
				cfg.Nodes = n.Int()
			}
			if s := args[1].Get("speed"); s.Type() == js.TypeNumber {
				cfg.Speed = s.Float()
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if cluster != nil && running == cfg {
			return nil, nil
		}
		if cluster != nil {
			cluster.Stop()
			cluster = nil
		}
		c, err := sim.Start(bridge.Remote(args[0]), cfg)
		if err != nil {
			return nil, err
		}
		cluster, running = c, cfg
		return nil, nil
	})
}

func stop(js.Value, []js.Value) any {
	return jsio.Async(func() (any, error) {
		mu.Lock()
		defer mu.Unlock()
		if cluster != nil {
			cluster.Stop()
			cluster = nil
		}
		return nil, nil
	})
}

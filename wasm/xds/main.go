//go:build js && wasm

// Command xds is the browser's xDS module (kubeplay-xds.wasm): a second Go
// instance beside the core, loaded only when the xDS group or its discovery
// service is first used, so Envoy's definitions cost the core's cold start
// nothing. It is a client of the core through the core's handle function,
// as the native discovery service is through the handler:
//
//	kubeplayXDS.start(kubeplay.handle) → Promise
//	    starts the discovery service (core/xds) over the core's API.
//	kubeplayXDS.stop() → Promise
//	    stops it (its streams end); a later start begins anew.
//	kubeplayXDS.handle(method, url, headers, body) → Promise<{status, headers, body}>
//	    its HTTP transports (REST polling, the page's streams, status), as
//	    kubeplay.handle answers.
//	kubeplayXDS.validate(kind, objectJSON) → Promise<string>
//	    the core's check of the xDS kinds: the JSON text of the field errors.
package main

import (
	"errors"
	"sync"
	"syscall/js"

	"kubeplay/core/budget"
	"kubeplay/core/object"
	"kubeplay/core/web"
	"kubeplay/core/xds"
	"kubeplay/wasm/bridge"
	"kubeplay/wasm/jsio"
)

var (
	mu     sync.Mutex
	server *xds.Server
	halt   func()
)

func main() {
	api := js.Global().Get("Object").New()
	api.Set("start", js.FuncOf(start))
	api.Set("stop", js.FuncOf(stop))
	api.Set("handle", bridge.Handler(web.HandlerFunc(serve)))
	api.Set("validate", js.FuncOf(validate))
	js.Global().Set("kubeplayXDS", api)
	if ready := js.Global().Get("kubeplayXDSReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

func start(_ js.Value, args []js.Value) any {
	return jsio.Async(func() (any, error) {
		if len(args) < 1 || args[0].Type() != js.TypeFunction {
			return nil, errors.New("start(kubeplay.handle)")
		}
		mu.Lock()
		defer mu.Unlock()
		if server == nil {
			server, halt = xds.Start(bridge.Remote(args[0]), xds.Config{Limits: xds.Limits{Streams: int(budget.Edge.XDSStreams), Names: int(budget.Edge.XDSNames)}})
		}
		return nil, nil
	})
}

func stop(js.Value, []js.Value) any {
	return jsio.Async(func() (any, error) {
		mu.Lock()
		defer mu.Unlock()
		if server != nil {
			halt()
			server, halt = nil, nil
		}
		return nil, nil
	})
}

func serve(w web.ResponseWriter, r *web.Request) {
	mu.Lock()
	s := server
	mu.Unlock()
	if s == nil {
		w.WriteHeader(web.StatusServiceUnavailable)
		return
	}
	s.ServeHTTP(w, r)
}

func validate(_ js.Value, args []js.Value) any {
	return jsio.Async(func() (any, error) {
		if len(args) < 2 {
			return nil, errors.New("validate(kind, objectJSON)")
		}
		obj, err := object.Decode([]byte(args[1].String()))
		if err != nil {
			return nil, err
		}
		return bridge.EncodeErrors(xds.Validate(args[0].String(), obj)), nil
	})
}

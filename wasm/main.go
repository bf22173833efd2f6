//go:build js && wasm

// Command wasm is the core as the JavaScript hosts run it (the browser's
// service worker and the edge's sandbox Durable Object, through
// wasm/bridge/bridge.mjs): one long-lived Go instance holding a sandbox, driven
// through globalThis.kubeplay:
//
//	kubeplay.start(host) → Promise<{revision, restoreErrors}>
//	    host: {snapshot, journal, append, writeSnapshot, openapiDocuments, maxWatchSeconds, budget ("edge" or the browser's),
//	           validateXDS(kind, objectJSON) → Promise<errors JSON>, optional: serves the xDS group,
//	           cluster: {mode, nodes, speed} when the core runs the simulation (the edge's),
//	           exportCluster() → {mode, nodes} when the host does (the browser's): for the export's header,
//	           deferStart: a new sandbox answers before it writes its bootstrap policy (sandbox.Config.DeferStart)}
//	kubeplay.handle(method, url, headers, body) → Promise<{status, headers, body}>
//	    headers: in, "name: value\r\n" lines; out, JSON text of [[name, value], ...];
//	    body: Uint8Array|null for a whole answer, ReadableStream for a streamed one
//	kubeplay.handleModule: the same for the worker's other Go modules (xDS, the
//	    simulated cluster), whose caller identity (bridge.Remote's impersonation
//	    headers) is taken as the core's in-process callers' is: not authorized
//	kubeplay.usage(n) → JSON text of {objects, bytes, maxObjects, maxBytes,
//	    recentErrors}: what the sandbox holds against its budget and its
//	    clients' last n failed requests (core/requestlog's Failures), for the
//	    instructor's view (WORK-2); null before start
//	kubeplay.readExport(bytes) → {header: JSON text, snapshot: Uint8Array, cluster: {mode, nodes}} | {error}:
//	    an export file checked whole (core/export), for the host to start
//	    from, and the cluster mode to run it with (its nodes within
//	    clustermode's bound); bridge.mjs's checkImport reads it
//	kubeplay.parseProgress(bytes) → {progress: JSON text} | {status: {code, reason, message}}:
//	    a workshop progress PUT's body read as the native host reads it
//	    (internal/control/progress), for the edge's sandbox object
//	kubeplay.stop() → Promise
package main

import (
	"encoding/json"
	"errors"
	"sync"
	"syscall/js"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/apiserver"
	"kubeplay/core/auth"
	"kubeplay/core/budget"
	"kubeplay/core/export"
	"kubeplay/core/sandbox"
	"kubeplay/core/storage"
	"kubeplay/core/web"
	"kubeplay/internal/control/progress"
	"kubeplay/wasm/bridge"
	"kubeplay/wasm/clustermode"
	"kubeplay/wasm/jsio"
)

var (
	mu     sync.Mutex
	server *sandbox.Sandbox
	limits budget.Limits // server's
)

func main() {
	api := js.Global().Get("Object").New()
	api.Set("start", js.FuncOf(start))
	api.Set("stop", js.FuncOf(stop))
	api.Set("usage", js.FuncOf(usage))
	api.Set("readExport", js.FuncOf(readExport))
	api.Set("parseProgress", js.FuncOf(parseProgress))
	api.Set("handle", bridge.Handler(web.HandlerFunc(serve)))
	// The worker's own modules (xDS, the simulated cluster) call this one,
	// as the core's in-process clients.
	api.Set("handleModule", bridge.Handler(bridge.Module(web.HandlerFunc(serve))))
	js.Global().Set("kubeplay", api)
	if ready := js.Global().Get("kubeplayReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

func serve(w web.ResponseWriter, r *web.Request) {
	mu.Lock()
	s := server
	mu.Unlock()
	if s == nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(web.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the kubeplay core is not started","reason":"ServiceUnavailable","code":503}`))
		return
	}
	s.ServeHTTP(w, r)
}

func start(_ js.Value, args []js.Value) any {
	return jsio.Async(func() (any, error) {
		if len(args) < 1 {
			return nil, errors.New("start(host)")
		}
		host := args[0]
		persister := bridge.NewPersister(host)
		// Snapshots keep the journal short, and the change history is bounded
		// (10,000 changes, as natively, but 32 MiB, within kube's 5 minutes), so
		// a restarted worker or Durable Object restores a snapshot of bounded
		// size however many writes came before (a learner's sandbox keeps a
		// few hundred changes in 5 minutes; a burst of 10,000 is what the
		// Timeline scrubs through, LEARN-5); and the whole sandbox, watchers'
		// lag included, fits the edge's 128 MB isolate.
		// The page is its owner's alone: a request without a token (the
		// page's own, kubectl's in it) acts as the sandbox's user,
		// kubernetes-admin; the edge sends the sandbox's token itself.
		admin := auth.Admin()
		cfg := sandbox.Config{Tokenless: &admin, Storage: storage.Config{Persister: persister, SnapshotEvery: 500, HistoryLimit: 10000,
			HistoryBytes: 32 << 20, WatchBufferBytes: 16 << 20},
			// The OpenAPI documents stay out of the module: the host loads
			// them when a client first asks.
			API: apiserver.Config{OpenAPIDocuments: bridge.Loader(host.Get("openapiDocuments"))}}
		// The xDS group is served where the host can check its objects (the
		// service worker, with the xDS module).
		if check := host.Get("validateXDS"); check.Type() == js.TypeFunction {
			cfg.Resources = api.XDS(bridge.RemoteCheck(check))
		}
		// CustomResourceDefinitions' rules and ValidatingAdmissionPolicies
		// are evaluated where the host has the CEL modules (kubeplay-cel.wasm,
		// kubeplay-vap.wasm: cel(fn, requestJSON, authorize)).
		if c := host.Get("cel"); c.Type() == js.TypeFunction {
			cfg.CEL = bridge.RemoteCEL(c)
		}
		// What the sandbox may hold and open (core/budget): the browser's, or
		// an edge Durable Object's (host.budget "edge").
		cfg.Budget = budget.Browser
		if v := host.Get("budget"); v.Type() == js.TypeString && v.String() == "edge" {
			cfg.Budget = budget.Edge
		}
		// A new sandbox answers first and writes its bootstrap policy after
		// (the browser's: its first start runs the core's code unoptimized).
		cfg.DeferStart = host.Get("deferStart").Truthy()
		if v := host.Get("maxWatchSeconds"); v.Type() == js.TypeNumber {
			cfg.API.MaxWatchTimeout = time.Duration(v.Float() * float64(time.Second))
		}
		// What runs besides the API (SIM-5): {mode: "api-only"|"simulated",
		// nodes, speed}. The browser's module runs no simulation itself (the
		// service worker runs kubeplay-sim.wasm beside it; the mode still
		// decides what the sandbox starts with); the edge's, built with
		// -tags sim, runs it in-process (core/sandbox's cluster.go).
		if c := host.Get("cluster"); c.Type() == js.TypeObject {
			cfg.APIOnly = c.Get("mode").Type() == js.TypeString && c.Get("mode").String() == "api-only"
			if v := c.Get("nodes"); v.Type() == js.TypeNumber {
				cfg.Cluster.Nodes = v.Int()
			}
			if v := c.Get("speed"); v.Type() == js.TypeNumber {
				cfg.Cluster.Speed = v.Float()
			}
		}
		// The browser's simulation runs beside the core: its service worker
		// says which mode is on, for the export's header.
		if fn := host.Get("exportCluster"); fn.Type() == js.TypeFunction {
			cfg.ExportCluster = func() export.Cluster {
				v := fn.Invoke()
				c := export.Cluster{Mode: "api-only"}
				if m := v.Get("mode"); m.Type() == js.TypeString && m.String() == "simulated" {
					c.Mode = "simulated"
					if n := v.Get("nodes"); n.Type() == js.TypeNumber {
						c.Nodes = n.Int()
					}
				}
				return c
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if server != nil {
			server.Close()
			server = nil
		}
		s, err := sandbox.New(cfg)
		if err != nil {
			return nil, err
		}
		server, limits = s, cfg.Budget
		restoreErrors := []any{}
		for _, e := range s.Storage().RestoreErrors() {
			restoreErrors = append(restoreErrors, e.Error())
		}
		return map[string]any{"revision": int(s.Storage().Revision()), "restoreErrors": restoreErrors}, nil
	})
}

func usage(_ js.Value, args []js.Value) any {
	mu.Lock()
	s, l := server, limits
	mu.Unlock()
	if s == nil || len(args) < 1 {
		return nil
	}
	objects, bytes := s.Storage().Usage()
	out, _ := json.Marshal(map[string]any{"objects": objects, "bytes": bytes, "maxObjects": l.Objects, "maxBytes": l.Bytes,
		"recentErrors": s.Requests.Failures(args[0].Int())})
	return string(out)
}

// readExport checks an export file whole (core/export) for the host to
// start a sandbox from: {header: JSON text, snapshot: Uint8Array}, or
// {error: what is wrong with it}.
func readExport(_ js.Value, args []js.Value) any {
	if len(args) < 1 {
		return map[string]any{"error": "readExport(bytes)"}
	}
	b := jsio.BytesFromJS(args[0])
	h, snap, err := export.ReadBytes(b)
	if err != nil {
		return map[string]any{"error": err.Error()}
	}
	head, _ := json.Marshal(h)
	// The cluster a host runs it with: the export's, within what a host
	// lets a sandbox ask for.
	cluster := map[string]any{"mode": h.Cluster.Mode}
	if h.Cluster.Nodes > 0 {
		cluster["nodes"] = min(h.Cluster.Nodes, clustermode.MaxNodes)
	}
	return map[string]any{"header": string(head), "snapshot": jsio.BytesToJS(snap), "cluster": cluster}
}

// parseProgress reads a workshop progress PUT's body as the native host
// does (internal/control/progress), for the edge's sandbox object:
// {progress: JSON text}, or {status: the Status to answer}.
func parseProgress(_ js.Value, args []js.Value) any {
	if len(args) < 1 {
		return map[string]any{"status": map[string]any{"code": 400, "reason": "BadRequest", "message": "parseProgress(bytes)"}}
	}
	p, st := progress.Parse(jsio.BytesFromJS(args[0]))
	if st != nil {
		return map[string]any{"status": map[string]any{"code": int(st.Code), "reason": string(st.Reason), "message": st.Message}}
	}
	text, _ := json.Marshal(p)
	return map[string]any{"progress": string(text)}
}

func stop(js.Value, []js.Value) any {
	return jsio.Async(func() (any, error) {
		mu.Lock()
		defer mu.Unlock()
		if server != nil {
			err := server.Close()
			server = nil
			return nil, err
		}
		return nil, nil
	})
}

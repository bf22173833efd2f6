//go:build js && wasm

// Command kubectl is the page's kubectl (kubeplay-kubectl.wasm, LEARN-1):
// core/kubectl in a Go instance of its own in the page, loaded when the
// terminal is first opened. It is an API client and nothing else: each
// request goes to the page's fetch function (the page's client path, so
// every target works), and each answer, a watch's or a follow's stream
// included, comes back through it.
//
//	kubeplayKubectl.run(args, io) → {done: Promise<exit code>, cancel()}
//	    runs one command line (the words after "kubectl"); cancel is Ctrl-C.
//	    io is {terminal, fetch, stdout, stderr, stdin, exchange, edit,
//	    namespace, server}:
//	      fetch(method, url, headerLines, body, signal) → Promise<{status,
//	          headers (JSON text of [[name, value], ...]), body}>, as
//	          jsio.Fetch calls it; signal aborts when the request ends
//	      stdout(Uint8Array), stderr(Uint8Array)
//	      stdin: Uint8Array | null (a heredoc's text)
//	      exchange(text): each HTTP exchange once its answer is read, as
//	          JSON text of kubectl.Exchange (field names of exchangeJSON)
//	      edit(filename, text) → Promise<text | null> (null: cancelled)
//	      namespace, server: the context's namespace and the cluster's URL
//	      terminal: which terminal (its Env, and so its discovery cache)
//	kubeplayKubectl.complete(line, io) → Promise<string[]>
//	    kubectl.Complete: the words that may complete line's last word
//	    (line: the words after "kubectl"; io as run's, of which fetch,
//	    namespace, server and terminal are used).
//	kubeplayKubectl.memStats() → {heapAlloc, heapSys, heapObjects, numGC, sys}
//	    the Go runtime's heap after a collection, for the page's benchmark.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"sync"
	"syscall/js"

	"kubeplay/core/kubectl"
	"kubeplay/wasm/jsio"
)

func main() {
	api := js.Global().Get("Object").New()
	api.Set("run", js.FuncOf(run))
	api.Set("complete", js.FuncOf(complete))
	api.Set("memStats", js.FuncOf(memStats))
	js.Global().Set("kubeplayKubectl", api)
	if ready := js.Global().Get("kubeplayKubectlReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

var (
	mu   sync.Mutex
	envs = map[string]*kubectl.Env{}
	// noop is a run's cancel once it is done (the page's policy allows no
	// Function made from text).
	noop = js.FuncOf(func(js.Value, []js.Value) any { return nil })
)

// terminalEnv is the Env of io's terminal, made on its first command, with
// io's fetch, namespace and server (which may change between commands: a
// new target).
func terminalEnv(io js.Value) *kubectl.Env {
	id := stringOf(io.Get("terminal"))
	mu.Lock()
	defer mu.Unlock()
	env := envs[id]
	if env == nil {
		env = &kubectl.Env{}
		envs[id] = env
	}
	env.Handler = jsio.Fetch(io.Get("fetch"))
	env.Namespace = stringOf(io.Get("namespace"))
	env.Server = stringOf(io.Get("server"))
	return env
}

func stringOf(v js.Value) string {
	if v.Type() == js.TypeString {
		return v.String()
	}
	return ""
}

// run starts a command line; its answer's done settles with the exit code.
func run(_ js.Value, args []js.Value) any {
	if len(args) < 2 || args[0].Type() != js.TypeObject || args[1].Type() != js.TypeObject {
		panic("run(args, io)")
	}
	words := make([]string, args[0].Length())
	for i := range words {
		words[i] = args[0].Index(i).String()
	}
	io := args[1]
	ctx, cancel := context.WithCancel(context.Background())
	out := js.Global().Get("Object").New()
	cancelFn := js.FuncOf(func(js.Value, []js.Value) any {
		cancel()
		return nil
	})
	out.Set("cancel", cancelFn)
	out.Set("done", jsio.Async(func() (any, error) {
		defer func() {
			cancel()
			// Once done, cancel has nothing to end: a function that does
			// nothing takes the place of the released one.
			out.Set("cancel", noop)
			cancelFn.Release()
		}()
		env := terminalEnv(io)
		env.Stdout = writer(io.Get("stdout"))
		env.Stderr = writer(io.Get("stderr"))
		env.Stdin = bytes.NewReader(jsio.BytesFromJS(io.Get("stdin")))
		env.Exchange = nil
		if fn := io.Get("exchange"); fn.Type() == js.TypeFunction {
			env.Exchange = func(ex kubectl.Exchange) { fn.Invoke(exchangeJSON(ex)) }
		}
		env.Edit = nil
		if fn := io.Get("edit"); fn.Type() == js.TypeFunction {
			env.Edit = editor(fn)
		}
		return kubectl.Run(ctx, env, words), nil
	}))
	return out
}

// writer is an io.Writer over a JavaScript function of a Uint8Array.
type writer js.Value

func (w writer) Write(p []byte) (int, error) {
	js.Value(w).Invoke(jsio.BytesToJS(p))
	return len(p), nil
}

// editor is kubectl edit's editor over the page's: the text the user saved,
// or an error when they cancelled.
func editor(fn js.Value) func(context.Context, string, []byte) ([]byte, error) {
	return func(_ context.Context, filename string, content []byte) ([]byte, error) {
		v, err := jsio.Await(fn.Invoke(filename, string(content)))
		if err != nil {
			return nil, err
		}
		if v.Type() != js.TypeString {
			return nil, errors.New("edit cancelled")
		}
		return []byte(v.String()), nil
	}
}

// exchangeJSON is ex as the page's list reads it, as JSON text: one string
// handed over (the page parses it) costs far less than building the object
// a property and a header at a time through syscall/js.
func exchangeJSON(ex kubectl.Exchange) string {
	b, _ := json.Marshal(struct {
		Method          string      `json:"method"`
		URL             string      `json:"url"`
		RequestHeaders  [][2]string `json:"requestHeaders"`
		RequestBody     string      `json:"requestBody"`
		Status          int         `json:"status"`
		ResponseHeaders [][2]string `json:"responseHeaders"`
		ResponseBody    string      `json:"responseBody"`
		Ms              float64     `json:"ms"`
		Error           string      `json:"error"`
	}{ex.Method, ex.URL, ex.RequestHeader, string(ex.RequestBody), ex.Status, ex.ResponseHeader, string(ex.ResponseBody), ex.Milliseconds, ex.Err})
	return string(b)
}

// complete answers the completions of a line.
func complete(_ js.Value, args []js.Value) any {
	return jsio.Async(func() (any, error) {
		if len(args) < 2 || args[0].Type() != js.TypeString {
			return nil, errors.New("complete(line, io)")
		}
		words := kubectl.Complete(context.Background(), terminalEnv(args[1]), args[0].String())
		out := make([]any, len(words))
		for i, w := range words {
			out[i] = w
		}
		return out, nil
	})
}

// memStats is the Go heap as runtime.MemStats counts it after a collection:
// what the commands so far left alive.
func memStats(js.Value, []js.Value) any {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return map[string]any{"heapAlloc": m.HeapAlloc, "heapSys": m.HeapSys, "heapObjects": m.HeapObjects, "numGC": m.NumGC, "sys": m.Sys}
}

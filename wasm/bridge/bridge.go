//go:build js && wasm

// Package bridge is the host-neutral js/wasm side of kubeplay: it hands requests
// from JavaScript (a service worker, a Durable Object) to the core's web.Handler
// and streams the answer back as a ReadableStream, and it persists the store
// through journal and snapshot functions that the JavaScript host provides
// (IndexedDB in the browser, Durable Object storage at the edge).
package bridge

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"
	"syscall/js"

	"kubeplay/core/storage"
	"kubeplay/core/web"
)

// await blocks the calling goroutine until promise settles. It must not run on
// the goroutine of a JavaScript callback.
func await(promise js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	done := make(chan result, 1)
	var onOK, onErr js.Func
	onOK = js.FuncOf(func(_ js.Value, args []js.Value) any {
		var v js.Value
		if len(args) > 0 {
			v = args[0]
		}
		done <- result{v: v}
		return nil
	})
	onErr = js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := "promise rejected"
		if len(args) > 0 {
			msg = jsString(args[0])
		}
		done <- result{err: errors.New(msg)}
		return nil
	})
	promise.Call("then", onOK, onErr)
	r := <-done
	onOK.Release()
	onErr.Release()
	return r.v, r.err
}

func jsString(v js.Value) string {
	if v.Type() == js.TypeString {
		return v.String()
	}
	if s := v.Get("message"); s.Type() == js.TypeString {
		return s.String()
	}
	return v.Call("toString").String()
}

// bytesFromJS copies a Uint8Array into Go.
func bytesFromJS(v js.Value) []byte {
	if v.IsUndefined() || v.IsNull() {
		return nil
	}
	b := make([]byte, v.Get("byteLength").Int())
	js.CopyBytesToGo(b, v)
	return b
}

// bytesToJS copies b into a new Uint8Array.
func bytesToJS(b []byte) js.Value {
	a := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(a, b)
	return a
}

// newPromise returns a JavaScript promise and its resolve and reject functions.
func newPromise() (promise, resolve, reject js.Value) {
	var executor js.Func
	executor = js.FuncOf(func(_ js.Value, args []js.Value) any {
		resolve, reject = args[0], args[1]
		return nil
	})
	promise = js.Global().Get("Promise").New(executor)
	executor.Release()
	return promise, resolve, reject
}

// Persister is a storage.Persister over JavaScript functions:
//
//	append(Uint8Array) → Promise          durably journal one entry
//	writeSnapshot(Uint8Array) → Promise   durably replace snapshot and journal
//
// and the state the host read before starting: the latest snapshot and the
// journal entries after it. Entries are the store's frames, which carry their
// own checksums: the store finds, skips and reports a damaged one.
type Persister struct {
	snapshot []byte
	journal  [][]byte
	appendFn js.Value
	snapFn   js.Value
}

// NewPersister reads the host's state object:
// {snapshot: Uint8Array|null, journal: Uint8Array[], append, writeSnapshot}.
func NewPersister(host js.Value) *Persister {
	p := &Persister{appendFn: host.Get("append"), snapFn: host.Get("writeSnapshot")}
	p.snapshot = bytesFromJS(host.Get("snapshot"))
	if j := host.Get("journal"); !j.IsUndefined() && !j.IsNull() {
		for i := 0; i < j.Length(); i++ {
			p.journal = append(p.journal, legacyEntry(bytesFromJS(j.Index(i))))
		}
	}
	return p
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// legacyEntry turns an entry of the format before frames (a CRC-32C of the
// record, then the record) into a frame, when it is one and intact.
func legacyEntry(entry []byte) []byte {
	if len(entry) >= 4 && binary.LittleEndian.Uint32(entry) == crc32.Checksum(entry[4:], castagnoli) {
		return storage.LegacyFrame(entry[4:])
	}
	return entry
}

// Load hands over the snapshot and the journal entries read at start.
func (p *Persister) Load(snapshot func(io.Reader) error, journal func(io.Reader) (int64, error)) error {
	if p.snapshot != nil {
		if err := snapshot(bytes.NewReader(p.snapshot)); err != nil {
			return err
		}
	}
	entries := make([]io.Reader, len(p.journal))
	for i, e := range p.journal {
		entries[i] = bytes.NewReader(e)
	}
	// Entries are written whole or not at all: there is no unfinished one to cut.
	_, err := journal(io.MultiReader(entries...))
	p.snapshot, p.journal = nil, nil
	return err
}

// Append journals one entry and returns once the host says it is durable.
func (p *Persister) Append(entry []byte) error {
	_, err := await(p.appendFn.Invoke(bytesToJS(entry)))
	return err
}

// Snapshot replaces the snapshot and empties the journal.
func (p *Persister) Snapshot(write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	_, err := await(p.snapFn.Invoke(bytesToJS(buf.Bytes())))
	return err
}

// Close has nothing to release.
func (p *Persister) Close() error { return nil }

// Handler serves JavaScript requests with h. The returned function takes
// (method, url, headers [[name, value]...], body Uint8Array|null) and returns a
// Promise of {status, headers: [[name, value]...], body: ReadableStream}. The
// promise resolves as soon as the handler writes its header (a watch keeps
// streaming); cancelling the stream cancels the request's context.
func Handler(h web.Handler) js.Func {
	return js.FuncOf(func(_ js.Value, args []js.Value) any {
		promise, resolve, reject := newPromise()
		if len(args) < 4 {
			reject.Invoke(js.Global().Get("Error").New("handle(method, url, headers, body)"))
			return promise
		}
		method, url := args[0].String(), args[1].String()
		headers := args[2]
		body := bytesFromJS(args[3])
		go serve(h, method, url, headers, body, resolve)
		return promise
	})
}

func serve(h web.Handler, method, url string, headers js.Value, body []byte, resolve js.Value) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &streamWriter{header: web.Header{}, resolve: resolve, cancel: cancel}
	defer w.finish()
	req, err := web.NewRequest(ctx, method, url, body)
	if err != nil {
		// What net/http's server answers for a request line it cannot parse
		// (a path such as /api/%zz), before any handler runs.
		w.header.Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(web.StatusBadRequest)
		_, _ = w.Write([]byte("400 Bad Request"))
		return
	}
	for i := 0; i < headers.Length(); i++ {
		kv := headers.Index(i)
		req.Header.Add(kv.Index(0).String(), kv.Index(1).String())
	}
	req.RemoteAddr = "127.0.0.1:0"
	defer func() {
		if p := recover(); p != nil {
			w.fail(fmt.Errorf("kubeplay core panicked: %v", p))
		}
	}()
	h.ServeHTTP(w, req)
}

// streamWriter is a web.ResponseWriter whose body becomes a ReadableStream.
type streamWriter struct {
	header  web.Header
	resolve js.Value
	cancel  context.CancelFunc

	mu         sync.Mutex
	status     int
	sent       web.Header // the header as it was when the status was written
	aborted    error      // the handler failed after the response started
	buf        bytes.Buffer
	controller js.Value // set once the response is handed over
	started    bool
	closed     bool // the reader cancelled
	release    []js.Func
}

func (w *streamWriter) Header() web.Header { return w.header }

func (w *streamWriter) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeHeaderLocked(code)
}

// writeHeaderLocked fixes the status and, as net/http does, the header: later
// changes to Header() are not sent. Hop-by-hop fields are the transport's.
func (w *streamWriter) writeHeaderLocked(code int) {
	if w.status != 0 {
		return
	}
	w.status = code
	w.sent = w.header.Clone()
	w.sent.Del("Transfer-Encoding")
	w.sent.Del("Connection")
}

func (w *streamWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, errors.New("client went away")
	}
	w.writeHeaderLocked(web.StatusOK)
	w.buf.Write(b)
	if w.buf.Len() >= 256<<10 {
		w.flushLocked()
	}
	return len(b), nil
}

// Flush hands what was written to the stream (and, the first time, the
// response to JavaScript).
func (w *streamWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeHeaderLocked(web.StatusOK)
	w.flushLocked()
}

func (w *streamWriter) flushLocked() {
	if w.closed {
		return
	}
	if !w.started {
		w.startLocked()
	}
	if w.buf.Len() > 0 {
		w.controller.Call("enqueue", bytesToJS(w.buf.Bytes()))
		w.buf.Reset()
	}
}

// startLocked creates the ReadableStream and resolves the promise with it.
func (w *streamWriter) startLocked() {
	w.started = true
	start := js.FuncOf(func(_ js.Value, args []js.Value) any {
		w.controller = args[0]
		return nil
	})
	cancel := js.FuncOf(func(js.Value, []js.Value) any {
		// Runs on the JavaScript side's turn: never block here.
		go func() {
			w.mu.Lock()
			w.closed = true
			w.mu.Unlock()
			w.cancel()
		}()
		return nil
	})
	w.release = append(w.release, start, cancel)
	source := js.Global().Get("Object").New()
	source.Set("start", start)
	source.Set("cancel", cancel)
	stream := js.Global().Get("ReadableStream").New(source)

	headers := js.Global().Get("Array").New()
	for name, values := range w.sent {
		for _, v := range values {
			headers.Call("push", js.ValueOf([]any{name, v}))
		}
	}
	res := js.Global().Get("Object").New()
	res.Set("status", w.status)
	res.Set("headers", headers)
	res.Set("body", stream)
	w.resolve.Invoke(res)
}

func (w *streamWriter) finish() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeHeaderLocked(web.StatusOK)
	w.flushLocked()
	switch {
	case w.closed:
	case w.aborted != nil:
		// As a server cuts the connection: the reader sees an error, not an
		// answer that merely looks complete.
		w.controller.Call("error", js.Global().Get("Error").New(w.aborted.Error()))
	default:
		w.controller.Call("close")
	}
	for _, f := range w.release {
		f.Release()
	}
}

// fail answers a handler panic with a 500 Status if nothing was sent yet, and
// otherwise ends the stream with an error.
func (w *streamWriter) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started {
		w.aborted = err
		return
	}
	w.status = web.StatusInternalServerError
	w.sent = web.Header{"Content-Type": {"application/json"}}
	w.buf.Reset()
	body, _ := json.Marshal(map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": err.Error(), "reason": "InternalError", "code": web.StatusInternalServerError})
	w.buf.Write(body)
}

// Async runs fn on its own goroutine and returns a Promise of its result, which
// must be a value js.ValueOf accepts.
func Async(fn func() (any, error)) js.Value {
	promise, resolve, reject := newPromise()
	go func() {
		v, err := fn()
		if err != nil {
			reject.Invoke(js.Global().Get("Error").New(err.Error()))
			return
		}
		resolve.Invoke(js.ValueOf(v))
	}()
	return promise
}

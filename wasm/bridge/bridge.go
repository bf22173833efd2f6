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
	"strings"
	"sync"
	"sync/atomic"
	"syscall/js"

	"kubeplay/core/storage"
	"kubeplay/core/web"
	"kubeplay/wasm/jsio"
)

// Persister is a storage.Persister over JavaScript functions:
//
//	append(Uint8Array[]) → Promise        durably journal entries, in order
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

	mu     sync.Mutex
	queued [][]byte // appended, not yet handed to the host
}

// NewPersister reads the host's state object:
// {snapshot: Uint8Array|null, journal: Uint8Array[], append, writeSnapshot}.
func NewPersister(host js.Value) *Persister {
	p := &Persister{appendFn: host.Get("append"), snapFn: host.Get("writeSnapshot")}
	p.snapshot = jsio.BytesFromJS(host.Get("snapshot"))
	if j := host.Get("journal"); !j.IsUndefined() && !j.IsNull() {
		for i := 0; i < j.Length(); i++ {
			p.journal = append(p.journal, legacyEntry(jsio.BytesFromJS(j.Index(i))))
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

// Append queues one entry for the next Sync.
func (p *Persister) Append(entry []byte) error {
	p.mu.Lock()
	p.queued = append(p.queued, entry)
	p.mu.Unlock()
	return nil
}

// Sync hands the host every entry queued so far, in one call (one IndexedDB
// transaction, one Durable Object output gate), and returns once the host says
// they are durable.
func (p *Persister) Sync() error {
	p.mu.Lock()
	batch := p.queued
	p.queued = nil
	p.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	entries := js.Global().Get("Array").New(len(batch))
	for i, e := range batch {
		entries.SetIndex(i, jsio.BytesToJS(e))
	}
	_, err := jsio.Await(p.appendFn.Invoke(entries))
	return err
}

// Snapshot replaces the snapshot and empties the journal; what was queued is in
// the snapshot.
func (p *Persister) Snapshot(write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	p.mu.Lock()
	p.queued = nil
	p.mu.Unlock()
	_, err := jsio.Await(p.snapFn.Invoke(jsio.BytesToJS(buf.Bytes())))
	return err
}

// Close has nothing to release.
func (p *Persister) Close() error { return nil }

// Loader is a Go function over a host's function that answers a Promise of a
// Uint8Array: it calls it and returns a copy of the bytes. It must not be called
// on the goroutine of a JavaScript callback.
func Loader(fn js.Value) func() ([]byte, error) {
	return func() ([]byte, error) {
		if fn.Type() != js.TypeFunction {
			return nil, errors.New("the host gave no loader")
		}
		v, err := jsio.Await(fn.Invoke())
		if err != nil {
			return nil, err
		}
		return jsio.BytesFromJS(v), nil
	}
}

// Handler serves JavaScript requests with h. The returned function takes
// (method, url, headers, body Uint8Array|null) and returns a Promise of
// {status, headers, body}. Headers come in as an HTTP/1 header block
// ("name: value\r\n" each) and go out as the JSON text of [[name, value], ...]
// (JSON.parse is native): one string crosses, not two per field. An answer
// the handler completes before it flushes (most) comes whole: body is a
// Uint8Array, or null when empty, which hosts hand on without a JavaScript
// stream. One that flushes (a watch, a large list) streams: the promise
// resolves at the first flush, body is a ReadableStream, and cancelling it
// cancels the request's context.
func Handler(h web.Handler) js.Func {
	return js.FuncOf(func(_ js.Value, args []js.Value) any {
		promise, resolve, reject := jsio.NewPromise()
		if len(args) < 4 || args[2].Type() != js.TypeString {
			reject.Invoke(jsio.Error.New("handle(method, url, headers, body)"))
			return promise
		}
		r := request{h: h, method: args[0].String(), url: args[1].String(), headers: args[2].String(),
			body: jsio.BytesFromJS(args[3]), resolve: resolve}
		select {
		case requests <- r:
		default:
			go serveRequests(r)
		}
		return promise
	})
}

// request is one call of the handler.
type request struct {
	h                    web.Handler
	method, url, headers string
	body                 []byte
	resolve              js.Value
}

// requests go to the goroutines that served earlier ones and wait for more:
// a new goroutine's stack would grow, copy by copy, on every request.
var (
	requests    = make(chan request)
	idleServers atomic.Int32
)

// maxIdleServers is how many goroutines wait for requests at most; more are
// started while requests overlap, and end when they finish.
const maxIdleServers = 8

func serveRequests(r request) {
	for {
		serve(r)
		if idleServers.Add(1) > maxIdleServers {
			idleServers.Add(-1)
			return
		}
		r = <-requests
		idleServers.Add(-1)
	}
}

func serve(r request) {
	h, method, url, body, resolve := r.h, r.method, r.url, r.body, r.resolve
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
	for line := range strings.SplitSeq(r.headers, "\r\n") {
		if name, value, ok := strings.Cut(line, ": "); ok {
			req.Header.Add(name, value)
		}
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
		w.controller.Call("enqueue", jsio.BytesToJS(w.buf.Bytes()))
		w.buf.Reset()
	}
}

// startLocked creates the ReadableStream and resolves the promise with it.
func (w *streamWriter) startLocked() {
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
	source := jsio.Object.New()
	source.Set("start", start)
	source.Set("cancel", cancel)
	w.respondLocked(jsio.ReadableStream.New(source))
}

// respondLocked resolves the promise with the status, the header and body.
func (w *streamWriter) respondLocked(body js.Value) {
	w.started = true
	headers := [][2]string{}
	for name, values := range w.sent {
		for _, v := range values {
			headers = append(headers, [2]string{name, v})
		}
	}
	headersJSON, _ := json.Marshal(headers) // strings and arrays always marshal
	res := jsio.Object.New()
	res.Set("status", w.status)
	res.Set("headers", string(headersJSON))
	res.Set("body", body)
	w.resolve.Invoke(res)
}

func (w *streamWriter) finish() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeHeaderLocked(web.StatusOK)
	if !w.started {
		body := js.Null()
		if w.buf.Len() > 0 {
			body = jsio.BytesToJS(w.buf.Bytes())
		}
		w.respondLocked(body)
		return
	}
	w.flushLocked()
	switch {
	case w.closed:
	case w.aborted != nil:
		// As a server cuts the connection: the reader sees an error, not an
		// answer that merely looks complete.
		w.controller.Call("error", jsio.Error.New(w.aborted.Error()))
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
	w.buf.Write(jsio.StatusBody(web.StatusInternalServerError, "InternalError", err.Error()))
}

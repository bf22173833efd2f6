package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const serveFloorCommand = "serve-floor"

// colFloor is the floor: the workload's requests answered with only the work
// any server must do for them.
const colFloor = "floor"

// floorServer answers the workload's requests, at the same paths and over the
// same transport (TLS, HTTP/1.1), with only what no server can skip: a create
// is appended to a journal and made durable with group commit (one fsync for
// every write that arrived while the previous one ran, as etcd's WAL does), a
// GET is a map lookup, a list is kubeplay's list bytes put there beforehand
// (and, for a client that asks for gzip, those bytes compressed whole at best
// speed once, when they were put: a server need not compress the same bytes
// twice, and kubeplay does not), and a watch event is the created bytes framed once and
// written to every watcher, flushed when its queue is empty (as
// kube-apiserver does). What a row costs here is the transfer, the fsync and
// the client's share (its inflating of a gzipped list): kube's time over the floor's is the
// most any server could be ahead.
type floorServer struct {
	mu       sync.Mutex
	synced   *sync.Cond
	journal  *os.File // nil: in memory (-kubeplay-in-memory)
	size     int64    // bytes appended
	durable  int64    // bytes fsynced
	syncing  bool
	objects  map[string][]byte
	lists    map[string][]byte // media type → body
	gzipped  map[string][]byte // media type → body gzipped, if over 128 KiB
	rev      int64
	watchers map[chan []byte]bool
}

func serveFloor(args []string) error {
	fs := flag.NewFlagSet(serveFloorCommand, flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "address to serve on")
	data := fs.String("data", "", "directory for the journal (fsync with group commit); empty keeps nothing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	f := &floorServer{objects: map[string][]byte{}, lists: map[string][]byte{}, gzipped: map[string][]byte{}, watchers: map[chan []byte]bool{}}
	f.synced = sync.NewCond(&f.mu)
	if *data != "" {
		j, err := os.Create(filepath.Join(*data, "journal"))
		if err != nil {
			return err
		}
		defer j.Close()
		f.journal = j
	}
	cert, err := selfSignedCert()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	log.Printf("floor API at https://%s", ln.Addr())
	hs := &http.Server{
		Handler:           f.handler(),
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}},
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	if err := hs.ServeTLS(ln, "", ""); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

func (f *floorServer) handler() http.Handler {
	cmPath := "/api/v1/namespaces/" + namespace + "/configmaps"
	mux := http.NewServeMux()
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
		writeFloor(w, 200, mediaJSON, []byte(`{"gitVersion":"floor"}`))
	})
	mux.HandleFunc("POST /api/v1/namespaces", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		writeFloor(w, 201, mediaJSON, body)
	})
	mux.HandleFunc("GET /api/v1/namespaces/{ns}", func(w http.ResponseWriter, r *http.Request) {
		writeFloor(w, 200, mediaJSON, []byte(`{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"`+r.PathValue("ns")+`"}}`))
	})
	mux.HandleFunc("PUT /floor/list", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		var zipped []byte
		if len(body) > 128<<10 {
			var buf bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
			zw.Write(body)
			zw.Close()
			zipped = buf.Bytes()
		}
		f.mu.Lock()
		f.lists[r.Header.Get("Content-Type")] = body
		f.gzipped[r.Header.Get("Content-Type")] = zipped
		f.mu.Unlock()
	})
	mux.HandleFunc("POST "+cmPath, func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		if err := f.create(body); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		writeFloor(w, 201, mediaJSON, body)
	})
	mux.HandleFunc("GET "+cmPath+"/{name}", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		body, ok := f.objects[r.PathValue("name")]
		f.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		writeFloor(w, 200, mediaJSON, body)
	})
	mux.HandleFunc("GET "+cmPath, func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		switch {
		case q.Get("watch") == "true":
			f.watch(w, r)
		case q.Get("limit") != "":
			f.mu.Lock()
			rev := f.rev
			f.mu.Unlock()
			writeFloor(w, 200, mediaJSON, []byte(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"`+strconv.FormatInt(rev, 10)+`"},"items":[]}`))
		default:
			media := mediaJSON
			if strings.Contains(r.Header.Get("Accept"), mediaPB) {
				media = mediaPB
			}
			f.mu.Lock()
			body, zipped := f.lists[media], f.gzipped[media]
			f.mu.Unlock()
			if body == nil {
				http.Error(w, "no list put for "+media, 404)
				return
			}
			if zipped == nil || !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				writeFloor(w, 200, media, body)
				return
			}
			w.Header().Set("Content-Encoding", "gzip")
			writeFloor(w, 200, media, zipped)
		}
	})
	return mux
}

func writeFloor(w http.ResponseWriter, code int, media string, body []byte) {
	w.Header().Set("Content-Type", media)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	w.Write(body)
}

// create makes body durable (group commit), keeps it by name and sends it to
// every watcher.
func (f *floorServer) create(body []byte) error {
	name := objectName(body)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.journal != nil {
		if _, err := f.journal.Write(body); err != nil {
			return err
		}
		f.size += int64(len(body))
		mine := f.size
		for f.durable < mine {
			if f.syncing {
				f.synced.Wait()
				continue
			}
			// Lead: fsync everything written so far, then wake the others.
			f.syncing = true
			upTo := f.size
			f.mu.Unlock()
			err := f.journal.Sync()
			f.mu.Lock()
			f.syncing = false
			if err != nil {
				f.synced.Broadcast()
				return err
			}
			f.durable = max(f.durable, upTo)
			f.synced.Broadcast()
		}
	}
	f.rev++
	f.objects[name] = body
	ev := make([]byte, 0, len(body)+32)
	ev = append(append(append(ev, `{"type":"ADDED","object":`...), bytes.TrimSpace(body)...), "}\n"...)
	for ch := range f.watchers {
		select {
		case ch <- ev:
		default: // too slow: cut off, as both servers do
			delete(f.watchers, ch)
			close(ch)
		}
	}
	return nil
}

func (f *floorServer) watch(w http.ResponseWriter, r *http.Request) {
	ch := make(chan []byte, 4096)
	f.mu.Lock()
	f.watchers[ch] = true
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		if f.watchers[ch] {
			delete(f.watchers, ch)
		}
		f.mu.Unlock()
	}()
	w.Header().Set("Content-Type", mediaJSON)
	w.WriteHeader(200)
	flusher := w.(http.Flusher)
	flusher.Flush()
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return
			}
			if _, err := w.Write(ev); err != nil {
				return
			}
			if len(ch) == 0 {
				flusher.Flush()
			}
		case <-r.Context().Done():
			return
		}
	}
}

// objectName is metadata.name of a JSON object, found without decoding it.
func objectName(body []byte) string {
	const key = `"name":"`
	i := bytes.Index(body, []byte(key))
	if i < 0 {
		return ""
	}
	rest := body[i+len(key):]
	if j := bytes.IndexByte(rest, '"'); j >= 0 {
		return string(rest[:j])
	}
	return ""
}

func startFloor(ctx context.Context, cfg *config) (*server, error) {
	return startProcess(ctx, cfg, cfg.selfBin, true, serveFloorCommand)
}

// runFloor puts kubeplay's list bodies on the floor server, then runs the
// workload against it.
func runFloor(ctx context.Context, cfg *config, srv *server, rec func(string, float64), logf func(string, ...any)) error {
	c := newClients(srv.url, 1)
	defer c.close()
	for _, media := range []string{mediaJSON, mediaPB} {
		body := cfg.listBodies[media]
		if body == nil {
			return fmt.Errorf("no %s list captured from kubeplay", media)
		}
		req, err := http.NewRequestWithContext(ctx, "PUT", srv.url+"/floor/list", bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", media)
		resp, err := c.work.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("floor PUT: %d", resp.StatusCode)
		}
	}
	return runWorkload(ctx, cfg, srv, false, rec, logf)
}

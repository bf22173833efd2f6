package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const serveFloorCommand = "serve-floor"

// colFloor is the list rows' floor: the same bytes served from memory.
const colFloor = "floor"

// serveFloor is the lists' floor: a server over the same transport (TLS,
// HTTP/1.1) that answers GET /floor/NAME with bytes put there before (PUT
// /floor/NAME), compressing them per request at gzip's best speed when the
// client asks, as kube-apiserver and kubeplay do for large responses. What a
// list costs here is what any server pays for that response: the transfer, the
// compression and the client's work, with no server work of its own.
func serveFloor(args []string) error {
	fs := flag.NewFlagSet(serveFloorCommand, flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "address to serve on")
	if err := fs.Parse(args); err != nil {
		return err
	}
	type body struct {
		contentType string
		data        []byte
	}
	var (
		mu     sync.Mutex
		bodies = map[string]body{}
	)
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /floor/{name}", func(w http.ResponseWriter, r *http.Request) {
		data, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		bodies[r.PathValue("name")] = body{r.Header.Get("Content-Type"), data}
		mu.Unlock()
	})
	gzips := sync.Pool{New: func() any { w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed); return w }}
	mux.HandleFunc("GET /floor/{name}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		b, ok := bodies[r.PathValue("name")]
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", b.contentType)
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Length", strconv.Itoa(len(b.data)))
			w.Write(b.data)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzips.Get().(*gzip.Writer)
		defer gzips.Put(zw)
		zw.Reset(w)
		zw.Write(b.data)
		zw.Close()
	})
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
		Handler:           mux,
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

func startFloor(ctx context.Context, cfg *config) (*server, error) {
	return startProcess(ctx, cfg, cfg.selfBin, false, serveFloorCommand)
}

// runFloor puts the bodies of kubeplay's lists on the floor server and times
// getting them back as runWorkload times the lists.
func runFloor(ctx context.Context, cfg *config, srv *server, rec func(string, float64), logf func(string, ...any)) error {
	c := newClients(srv.url, 1)
	defer c.close()
	names := map[string]string{mediaJSON: "json", mediaPB: "protobuf"}
	for media, name := range names {
		body := cfg.listBodies[media]
		if body == nil {
			return fmt.Errorf("no %s list captured from kubeplay", media)
		}
		req, err := http.NewRequestWithContext(ctx, "PUT", srv.url+"/floor/"+name, bytes.NewReader(body))
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
	for _, v := range listVariants {
		end := beginPhase(ctx, &config{}, srv, v.row, cfg.lists+1, rec)
		ms, _, err := timeLists(ctx, cfg, c, "/floor/"+names[v.accept], v)
		if err := errors.Join(err, end()); err != nil {
			return err
		}
		logf("  %s: %.1f ms (of %.1f)", v.row, median(ms), ms)
		rec(v.row, median(ms))
	}
	return nil
}

package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"flag"
	"fmt"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"time"

	"kubeplay/core/auth"
	"kubeplay/core/sandbox"
	"kubeplay/core/storage"
	"kubeplay/internal/launch"
)

const serveTLSCommand = "serve-kubeplay-tls"

// serveKubeplayTLS is the playground command's API host (--site "" --quiet),
// durable on disk, behind crypto/tls with a self-signed certificate: kubeplay
// over the transport kube-apiserver uses, so the comparison is like for like.
func serveKubeplayTLS(args []string) error {
	fs := flag.NewFlagSet(serveTLSCommand, flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "address to serve the API on")
	data := fs.String("data", "", "directory to persist the store in (fsync on every write)")
	profileListen := fs.String("profile-listen", "", "if set, serve profile control (POST /start?out=FILE, POST /stop, POST /heap?out=FILE) on this address, over plain HTTP")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *profileListen != "" {
		pln, err := net.Listen("tcp", *profileListen)
		if err != nil {
			return err
		}
		log.Printf("kubeplay profile control at http://%s", pln.Addr())
		go http.Serve(pln, profileControl())
	}
	// As the playground command assembles it (authentication and API Priority
	// and Fairness), with kube's identity for the token and kube's concurrency;
	// API-only, as the reference runs no controllers.
	cfg := sandbox.Config{Tokens: adminTokens(), Seats: kubeSeats, APIOnly: true}
	if *data != "" {
		p, err := storage.OpenFilePersister(*data)
		if err != nil {
			return err
		}
		cfg.Storage.Persister = p
	}
	srv, err := sandbox.New(cfg)
	if err != nil {
		return err
	}
	defer srv.Close()
	cert, err := selfSignedCert()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	log.Printf("kubeplay API at https://%s (store: %s)", ln.Addr(), *data)
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}},
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.ServeTLS(ln, "", "") }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// selfSignedCert is a certificate for 127.0.0.1 and localhost with an RSA 2048
// key, as kube-apiserver makes for itself when given no serving certificate.
func selfSignedCert() (tls.Certificate, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: "kubeplay"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// profileControl starts and stops a CPU profile on request, so that the
// benchmark can profile each phase of its workload on its own, and writes a
// heap profile (POST /heap?out=FILE) when it measures memory.
func profileControl() http.Handler {
	var (
		mu  sync.Mutex
		out *os.File
	)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /start", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if out != nil {
			http.Error(w, "already profiling", http.StatusConflict)
			return
		}
		f, err := os.Create(r.URL.Query().Get("out"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		out = f
	})
	mux.HandleFunc("POST /stop", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if out == nil {
			http.Error(w, "not profiling", http.StatusConflict)
			return
		}
		pprof.StopCPUProfile()
		if err := out.Close(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
		out = nil
	})
	mux.HandleFunc("POST /heap", func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Create(r.URL.Query().Get("out"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		defer f.Close()
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
		// Where the resident memory is, beside the profile (which sees only
		// the live heap): the runtime's own accounting.
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		mb := func(n uint64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
		_ = os.WriteFile(r.URL.Query().Get("out")+".memstats.txt", fmt.Appendf(nil,
			"heap in use %s (live after the last GC %s, goal %s), heap idle %s of which released %s, stacks %s, other runtime %s, goroutines %d, GCs %d\n",
			mb(m.HeapInuse), mb(m.HeapAlloc), mb(m.NextGC), mb(m.HeapIdle), mb(m.HeapReleased), mb(m.StackSys),
			mb(m.MSpanSys+m.MCacheSys+m.BuckHashSys+m.GCSys+m.OtherSys), runtime.NumGoroutine(), m.NumGC), 0o644)
	})
	return mux
}

// kubeSeats is kube-apiserver's default concurrency limit
// (--max-requests-inflight 400 + --max-mutating-requests-inflight 200).
const kubeSeats = 600

func adminTokens() auth.Tokens {
	t, err := auth.ParseTokens("tokens.csv", strings.NewReader(launch.RefapiTokenLine))
	if err != nil {
		panic(err) // a constant
	}
	return t
}

package main

import (
	"errors"
	"log"
	"net/http"
	"os"
	"sync"
	"sync/atomic"

	"kubeplay/core/export"
	"kubeplay/core/sandbox"
	"kubeplay/core/storage"
)

// core is the server's own sandbox, which an import replaces (LEARN-6,
// POST /debug/kubeplay/import, as the browser's worker and the edge's
// sandbox object take one). Everything that reaches the sandbox (clients,
// the xDS discovery service, which is a client too) reaches it through
// core, so a replaced sandbox is the one they reach next; its request log
// is the same across replacements.
type core struct {
	o   options
	cfg sandbox.Config // how the sandbox was started; an import starts another so

	mu  sync.RWMutex
	api *sandbox.Sandbox
	// written: a client wrote (or tried to), or the sandbox holds an import
	// or an earlier --data sandbox.
	written atomic.Bool
}

func (c *core) current() *sandbox.Sandbox {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.api
}

func (c *core) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == export.ImportPath {
		c.importExport(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		c.written.Store(true)
	}
	c.current().ServeHTTP(w, r)
}

// inProcess is core for the server's own clients (the xDS discovery
// service): what they write is not a client's.
func (c *core) inProcess() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { c.current().ServeHTTP(w, r) })
}

// Close closes the current sandbox.
func (c *core) Close() error { return c.current().Close() }

// importExport answers POST /debug/kubeplay/import: the export checked
// whole (400 naming what is wrong; nothing changes), then a sandbox started
// from it replaces the server's (its cluster kind the export's unless
// --cluster or --nodes said otherwise), into a sandbox no client has written
// to, else only with ?replace=true (409). With --data, the directory then
// holds the import.
func (c *core) importExport(w http.ResponseWriter, r *http.Request) {
	h, snap, ok := readImport(w, r)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.written.Load() && r.URL.Query().Get("replace") != "true" {
		writeStatus(w, http.StatusConflict, "Conflict", errWritten.Error())
		return
	}
	cfg := c.cfg
	clusterFromExport(&cfg, c.o, h)
	next, err := c.replace(cfg, snap)
	if err != nil {
		writeStatus(w, http.StatusInternalServerError, "InternalError", "the import could not start a sandbox: "+err.Error())
		return
	}
	c.api = next
	c.written.Store(true)
	log.Printf("import: revision %d, %d objects, %s cluster (exported %s by %s)", h.Revision, h.Objects, h.Cluster.Mode,
		h.ExportedAt.Format("2006-01-02 15:04:05Z07:00"), h.Server)
	writeImported(w, h)
}

// replace closes the current sandbox and starts one from snap with cfg.
// With --data, snap is written into a directory beside it first, which
// takes the data directory's place only once the old sandbox is closed;
// should the new sandbox not start, the old directory is put back and its
// sandbox started again. Called with c.mu held.
func (c *core) replace(cfg sandbox.Config, snap []byte) (*sandbox.Sandbox, error) {
	if c.o.data == "" {
		next, err := sandbox.New(withPersister(cfg, storage.NewCheckedMemoryPersister(snap)))
		if err != nil {
			return nil, err
		}
		c.api.Close()
		return next, nil
	}
	incoming, replaced := c.o.data+".import", c.o.data+".replaced"
	if err := os.RemoveAll(replaced); err != nil {
		return nil, err
	}
	if err := writeStoreDir(incoming, snap); err != nil {
		return nil, err
	}
	open := func(cfg sandbox.Config) (*sandbox.Sandbox, error) {
		p, err := storage.OpenFilePersister(c.o.data)
		if err != nil {
			return nil, err
		}
		sb, err := sandbox.New(withPersister(cfg, p))
		if err != nil {
			p.Close()
		}
		return sb, err
	}
	// What was there before, started again (an import that failed).
	reopen := func() error {
		old, err := open(c.cfg)
		if err == nil {
			c.api = old
		}
		return err
	}
	// The directory is the sandbox's, its lock too: the old one closes first.
	c.api.Close()
	if err := os.Rename(c.o.data, replaced); err != nil {
		return nil, errors.Join(err, reopen())
	}
	if err := os.Rename(incoming, c.o.data); err != nil {
		return nil, errors.Join(err, os.Rename(replaced, c.o.data), reopen())
	}
	next, err := open(cfg)
	if err != nil {
		return nil, errors.Join(err, os.RemoveAll(c.o.data), os.Rename(replaced, c.o.data), reopen())
	}
	if err := os.RemoveAll(replaced); err != nil {
		log.Printf("import: %v", err)
	}
	return next, nil
}

func withPersister(cfg sandbox.Config, p storage.Persister) sandbox.Config {
	cfg.Storage.Persister = p
	return cfg
}

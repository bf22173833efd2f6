package main

import (
	"errors"
	"io"
	"log"
	"net/http"
	"os"

	"kubeplay/core/export"
	"kubeplay/core/sandbox"
	"kubeplay/core/storage"
)

// maxImportBytes bounds an export --import reads.
const maxImportBytes = 1 << 30

// importExport makes cfg's sandbox start from the export o.importFile
// names, checked whole first (core/export): its snapshot becomes the store's
// (in memory, or the empty --data directory's), and its cluster kind the
// sandbox's unless --cluster or --nodes says otherwise.
func importExport(cfg *sandbox.Config, o options) error {
	f, err := os.Open(o.importFile)
	if err != nil {
		return err
	}
	defer f.Close()
	h, snap, err := export.Read(f, maxImportBytes)
	if err != nil {
		return err
	}
	if p, ok := cfg.Storage.Persister.(*storage.FilePersister); ok {
		if empty, err := p.Empty(); err != nil {
			return err
		} else if !empty {
			return errors.New("--data " + o.data + " already holds a sandbox: import into an empty directory")
		}
		if err := seed(p, snap); err != nil {
			return err
		}
	} else {
		cfg.Storage.Persister = storage.NewCheckedMemoryPersister(snap)
	}
	clusterFromExport(cfg, o, h)
	log.Printf("import: %s (exported %s by %s): revision %d, %d objects, %s cluster", o.importFile, h.ExportedAt.Format("2006-01-02 15:04:05Z07:00"),
		h.Server, h.Revision, h.Objects, h.Cluster.Mode)
	return nil
}

// clusterFromExport makes cfg run the cluster kind the export h ran, unless
// --cluster or --nodes said otherwise.
func clusterFromExport(cfg *sandbox.Config, o options, h export.Header) {
	if o.clusterGiven {
		return
	}
	cfg.APIOnly = h.Cluster.Mode == "api-only"
	if h.Cluster.Nodes > 0 {
		cfg.Cluster.Nodes = h.Cluster.Nodes
	}
}

// seed writes snap as p's snapshot: the store p opens holds it.
func seed(p *storage.FilePersister, snap []byte) error {
	return p.Snapshot(func(w io.Writer) error { _, err := w.Write(snap); return err })
}

// writeStoreDir makes dir (emptied first) a store directory holding snap.
func writeStoreDir(dir string, snap []byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	p, err := storage.OpenFilePersister(dir)
	if err != nil {
		return err
	}
	err = seed(p, snap)
	if cerr := p.Close(); err == nil {
		err = cerr
	}
	return err
}

// readImport reads a POST /debug/kubeplay/import's export, checked whole;
// it answers any other method (405) or a body that is not an export it can
// use (400, naming what is wrong), and then says so.
func readImport(w http.ResponseWriter, r *http.Request) (export.Header, []byte, bool) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeStatus(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "the server does not allow this method on the requested resource")
		return export.Header{}, nil, false
	}
	h, snap, err := export.Read(http.MaxBytesReader(w, r.Body, maxImportBodyBytes), maxImportBodyBytes)
	if err != nil {
		writeStatus(w, http.StatusBadRequest, "BadRequest", err.Error())
		return export.Header{}, nil, false
	}
	return h, snap, true
}

package main

import (
	"errors"
	"io"
	"log"
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
		if err := p.Snapshot(func(w io.Writer) error { _, err := w.Write(snap); return err }); err != nil {
			return err
		}
	} else {
		cfg.Storage.Persister = storage.NewMemoryPersister(snap)
	}
	if !o.clusterGiven {
		cfg.APIOnly = h.Cluster.Mode == "api-only"
		if h.Cluster.Nodes > 0 {
			cfg.Cluster.Nodes = h.Cluster.Nodes
		}
	}
	log.Printf("import: %s (exported %s by %s): revision %d, %d objects, %s cluster", o.importFile, h.ExportedAt.Format("2006-01-02 15:04:05Z07:00"),
		h.Server, h.Revision, h.Objects, h.Cluster.Mode)
	return nil
}

package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"

	"kubeplay/core/export"
	"kubeplay/core/storage"
	"kubeplay/internal/control"
	"kubeplay/wasm/clustermode"
)

// maxImportBodyBytes bounds an export POSTed to a sandbox (the server's
// own or a workshop's).
const maxImportBodyBytes = 64 << 20

// imported is the answer to an import, as every host words it.
type imported struct {
	Kind       string         `json:"kind"`
	Revision   int64          `json:"revision"`
	Compacted  int64          `json:"compacted"`
	Objects    int64          `json:"objects"`
	Cluster    export.Cluster `json:"cluster"`
	ExportedAt string         `json:"exportedAt"`
	Server     string         `json:"server"`
}

// importExport answers POST /s/{id}/debug/kubeplay/import (LEARN-6) as the
// browser's worker and the edge's sandbox object do: the export is checked
// whole (400 naming what is wrong, and nothing changes), then replaces the
// sandbox's objects, its cluster kind the sandbox's; into a sandbox no
// client has written to since it was made or reset, else only with
// ?replace=true (409). The next request starts the core from it.
func (f *fleet) importExport(w http.ResponseWriter, r *http.Request, a *attendee) {
	h, snap, ok := readImport(w, r)
	if !ok {
		return
	}
	a.mu.Lock()
	cluster := control.Cluster{Mode: h.Cluster.Mode, Nodes: min(h.Cluster.Nodes, clustermode.MaxNodes), Speed: a.rec.Cluster.Speed}
	a.mu.Unlock()
	if err := f.replaceState(a, snap, cluster, r.URL.Query().Get("replace") == "true"); err != nil {
		if err == errWritten {
			writeStatus(w, http.StatusConflict, "Conflict", err.Error())
			return
		}
		writeStatus(w, http.StatusInternalServerError, "InternalError", err.Error())
		return
	}
	writeImported(w, h)
}

// writeImported answers an import of the export h, as every host does.
func writeImported(w http.ResponseWriter, h export.Header) {
	body, _ := json.Marshal(imported{Kind: "KubeplayImport", Revision: h.Revision, Compacted: h.Compacted, Objects: h.Objects, Cluster: h.Cluster,
		ExportedAt: h.ExportedAt.Format("2006-01-02T15:04:05Z07:00"), Server: h.Server})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

type conflict string

func (c conflict) Error() string { return string(c) }

// errWritten refuses an import over what a sandbox's clients wrote.
const errWritten = conflict("the sandbox holds what its clients wrote: import with ?replace=true to replace it")

// seed makes a new sandbox start from state, an export its creation
// carried (control checked it whole), as an import into it would.
func (f *fleet) seed(a *attendee, state []byte) error {
	_, snap, err := export.ReadBytes(state)
	if err != nil {
		return err
	}
	return f.replaceState(a, snap, a.rec.Cluster, true)
}

// replaceState makes a's objects the snapshot's (of an export checked
// whole), its cluster cluster, unless its clients wrote to it and replace is
// false. The sandbox is then no longer fresh, as on the other hosts.
func (f *fleet) replaceState(a *attendee, snap []byte, cluster control.Cluster, replace bool) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.rec.Written && !replace {
		return errWritten
	}
	a.stop()
	a.persister, a.usage = nil, [2]int64{}
	if f.dir != "" {
		if err := writeStoreDir(filepath.Join(f.dir, a.rec.ID, "store"), snap); err != nil {
			return err
		}
	} else {
		a.persister = storage.NewCheckedMemoryPersister(snap)
	}
	return a.saveRecord(func(rec *record) {
		rec.Cluster = cluster
		rec.Progress, rec.Written = nil, true
	})
}

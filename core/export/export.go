// Package export owns a sandbox's export file (LEARN-6): the whole state of
// its store at one revision, which any host can start a sandbox from
// (natively `--import FILE`), so that a state can be kept, handed to
// another person or given to every attendee of a workshop.
//
// The file is a header line and the store's own snapshot:
//
//	{"kind":"KubeplayExport","version":1,...}\n    the Header, JSON, one line
//	<snapshot frames>                              core/storage's framed snapshot
//
// The snapshot is storage's persisted format (frame.go: each frame carries
// its kind, the store's identity and revision, and a CRC-32C), not a YAML
// bundle: it keeps every object byte for byte as stored, with its uid,
// resourceVersion and managedFields, the store's revision and the history
// of changes it retains (bounded as every store's: HistoryWindow,
// HistoryLimit, HistoryBytes), so that a sandbox started from it continues
// the same sequence of revisions (a watch from any revision the history
// holds goes on from there, an older one is 410 Gone), and damage anywhere
// in it is found and named before anything is replaced. The header says
// what the file holds without reading the rest: the revision, how far back
// its history reaches, the objects and bytes, and the cluster the sandbox
// ran (api-only or simulated, its nodes), so a host starts the same kind of
// sandbox.
//
// With ?history=false the file holds no history (about half the bytes: a
// state to hand out, a workshop's say, not one to watch on from): it is
// compacted at its revision.
//
// GET /debug/kubeplay/export (Handler) answers the file on every host, and
// Read checks one for a host to start from (natively --import).
package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/storage"
	"kubeplay/core/version"
	"kubeplay/core/web"
)

// Path is where every host serves the export; a host takes one at
// ImportPath (POST), for the sandbox to start from.
const (
	Path       = "/debug/kubeplay/export"
	ImportPath = "/debug/kubeplay/import"
)

// MediaType is the file's Content-Type; its name ends in FileExtension.
const (
	MediaType     = "application/vnd.kubeplay.export"
	FileExtension = ".kubeplay"
	kind          = "KubeplayExport"
	formatVersion = 1
)

// MaxHeaderBytes bounds the header line.
const MaxHeaderBytes = 4 << 10

// Cluster is what the exported sandbox ran beside its API, as the workshop
// protocol says it: "api-only" or "simulated", and the simulated nodes.
type Cluster struct {
	Mode  string `json:"mode"`
	Nodes int    `json:"nodes,omitempty"`
}

// Header is the file's first line.
type Header struct {
	Kind    string `json:"kind"`
	Version int    `json:"version"`
	// Server is the exporting kubeplay's gitVersion.
	Server     string    `json:"server"`
	ExportedAt time.Time `json:"exportedAt"`
	// Revision is the store's revision the snapshot is at.
	Revision int64 `json:"revision"`
	// Compacted is where the history it keeps begins: changes after it are
	// kept, a watch or exact list from it or an earlier revision is 410.
	Compacted int64 `json:"compacted"`
	// Objects and Bytes are what the store held.
	Objects int64   `json:"objects"`
	Bytes   int64   `json:"bytes"`
	Cluster Cluster `json:"cluster"`
}

// snapshot is st's snapshot (with its history, or none) and the header that
// says what it holds.
func snapshot(st *storage.Store, cluster Cluster, now time.Time, history bool) (Header, []byte, error) {
	var snap bytes.Buffer
	info, err := st.WriteSnapshot(&snap, history)
	if err != nil {
		return Header{}, nil, err
	}
	return Header{Kind: kind, Version: formatVersion, Server: version.Server, ExportedAt: now.UTC().Truncate(time.Second),
		Revision: info.Revision, Compacted: info.Compacted, Objects: info.Objects, Bytes: info.Bytes, Cluster: cluster}, snap.Bytes(), nil
}

// headerLine is the file's first line.
func headerLine(h Header) []byte {
	line, _ := json.Marshal(h)
	return append(line, '\n')
}

// Read reads an export of at most maxBytes from r and checks all of it
// (ReadBytes).
func Read(r io.Reader, maxBytes int64) (Header, []byte, error) {
	var buf bytes.Buffer
	if n, ok := r.(interface{ Len() int }); ok {
		buf.Grow(min(n.Len(), int(maxBytes)) + 1) // one read, one allocation
	}
	if _, err := buf.ReadFrom(io.LimitReader(r, maxBytes+1)); err != nil {
		return Header{}, nil, err
	}
	if int64(buf.Len()) > maxBytes {
		return Header{}, nil, fmt.Errorf("the export is over %d bytes", maxBytes)
	}
	return ReadBytes(buf.Bytes())
}

// ReadBytes checks an export held in memory, all of it: its header, and
// its snapshot read whole as a restore reads it, storing nothing
// (storage.CheckSnapshot: every frame, and the revision, history and
// objects the header names). It returns the header and the snapshot (a part
// of file, not a copy), which a host hands to its sandbox's persister. Its
// errors are what the file's sender should be told.
func ReadBytes(file []byte) (Header, []byte, error) {
	nl := bytes.IndexByte(file[:min(len(file), MaxHeaderBytes)], '\n')
	if nl < 0 {
		if len(file) >= MaxHeaderBytes {
			return Header{}, nil, fmt.Errorf("not a kubeplay export: its first line is over %d bytes", MaxHeaderBytes)
		}
		return Header{}, nil, errors.New("not a kubeplay export: it has no header line")
	}
	line, snap := file[:nl+1], file[nl+1:]
	var h Header
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil || h.Kind != kind {
		return Header{}, nil, errors.New(`not a kubeplay export: its first line is not a header of kind "KubeplayExport"`)
	}
	if h.Version != formatVersion {
		return Header{}, nil, fmt.Errorf("an export of format version %d; this kubeplay reads version %d", h.Version, formatVersion)
	}
	if h.Cluster.Mode != "api-only" && h.Cluster.Mode != "simulated" {
		return Header{}, nil, fmt.Errorf(`the export's cluster.mode is %q, not "api-only" or "simulated"`, h.Cluster.Mode)
	}
	if h.Cluster.Nodes < 0 || h.Cluster.Nodes > 100 {
		return Header{}, nil, fmt.Errorf("the export's cluster.nodes is %d, not 0 to 100", h.Cluster.Nodes)
	}
	info, err := storage.CheckSnapshot(snap)
	if err != nil {
		return Header{}, nil, fmt.Errorf("the export cannot be used: %w", err)
	}
	if info.Revision != h.Revision || info.Objects != h.Objects || info.Compacted != h.Compacted || info.Bytes != h.Bytes {
		return Header{}, nil, fmt.Errorf("the export's header names revision %d (history from %d) and %d objects; its snapshot holds revision %d (history from %d) and %d objects",
			h.Revision, h.Compacted, h.Objects, info.Revision, info.Compacted, info.Objects)
	}
	return h, snap, nil
}

// Handler answers GET Path with the export of st (cluster says what the
// sandbox runs beside its API), as an attachment named after its revision;
// with ?history=false, without the history (about half the file: a state to
// hand out, not one to watch on from), compacted at its revision.
func Handler(st *storage.Store, cluster func() Cluster, now func() time.Time) web.Handler {
	return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		if r.Method != web.MethodGet {
			apierrors.Write(w, apierrors.NewMethodNotAllowed())
			return
		}
		history := true
		switch v := r.URL.Query().Get("history"); v {
		case "", "true":
		case "false":
			history = false
		default:
			apierrors.Write(w, apierrors.NewBadRequest(`history: "true" or "false", not `+strconv.Quote(v)))
			return
		}
		head, snap, err := snapshot(st, cluster(), now(), history)
		if err != nil {
			apierrors.Write(w, apierrors.NewInternal(err))
			return
		}
		h := w.Header()
		h.Set("Content-Type", MediaType)
		h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="kubeplay-%d%s"`, head.Revision, FileExtension))
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(web.StatusOK)
		_, _ = w.Write(headerLine(head))
		_, _ = w.Write(snap)
	})
}

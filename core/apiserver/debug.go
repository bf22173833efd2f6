package apiserver

import (
	"fmt"
	"strconv"

	"kubeplay/core/apierrors"
	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/request"
	"kubeplay/core/web"
)

// serveCompact is kubeplay's teaching affordance, not a kube-apiserver API:
// POST /debug/kubeplay/compact[?resourceVersion=N] drops the change history up to
// N (default: everything up to now), as etcd compaction does, so that 410 Gone
// can be shown on demand. It answers {"compactedRevision": "N"}.
func (s *Server) serveCompact(w web.ResponseWriter, r *web.Request) {
	if r.Method != web.MethodPost {
		w.Header().Set("Allow", web.MethodPost)
		writeStatus(w, apierrors.NewMethodNotAllowed())
		return
	}
	upTo := s.store.Revision()
	if v := r.URL.Query().Get("resourceVersion"); v != "" {
		n, err := parseResourceVersion(v)
		if err != nil {
			writeStatus(w, apierrors.As(err))
			return
		}
		upTo = n
	}
	rev, err := s.store.Compact(upTo)
	if err != nil {
		writeStatus(w, apierrors.NewInternal(err))
		return
	}
	writeJSON(w, web.StatusOK, map[string]string{"compactedRevision": strconv.FormatInt(rev, 10)})
}

// serveCorrupt is a teaching affordance too: POST
// /debug/kubeplay/corrupt?path=/api/v1/namespaces/NS/configmaps/NAME makes
// the object at path unreadable, as if encrypted at rest with a key the
// server no longer has (K8S-DEL-3), so that kube's answers to a corrupt
// object, and its unsafe deletion, can be shown. It answers {"corrupted": path}.
func (s *Server) serveCorrupt(w web.ResponseWriter, r *web.Request) {
	if r.Method != web.MethodPost {
		w.Header().Set("Allow", web.MethodPost)
		writeStatus(w, apierrors.NewMethodNotAllowed())
		return
	}
	path := r.URL.Query().Get("path")
	target, err := web.NewRequest(r.Context(), web.MethodGet, path, nil)
	if err != nil {
		writeStatus(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	info := request.ParseRequestInfo(target)
	t, _, st := s.resolve(info)
	if st == nil && (!info.IsResourceRequest || t.name == "" || t.sub != "" || info.Verb != "get") {
		st = apierrors.NewBadRequest(fmt.Sprintf("path %q names no object", path))
	}
	if st != nil {
		writeStatus(w, st)
		return
	}
	if err := s.store.Corrupt(t.registryTarget(r)); err != nil {
		writeStatus(w, apierrors.As(err))
		return
	}
	writeJSON(w, web.StatusOK, map[string]string{"corrupted": path})
}

// serveDecode is kubeplay's other teaching affordance: POST
// /debug/kubeplay/decode with a body in a binary media — Kubernetes protobuf
// (an object, or a watch stream with ";stream=watch"), CBOR (an object) or a
// CBOR sequence (a watch) — answers its JSON form, so the playground can show
// what a binary response says. A stream becomes a JSON array of WatchEvents.
func (s *Server) serveDecode(w web.ResponseWriter, r *web.Request) {
	if r.Method != web.MethodPost {
		w.Header().Set("Allow", web.MethodPost)
		writeStatus(w, apierrors.NewMethodNotAllowed())
		return
	}
	body, err := readBody(r)
	if err != nil {
		writeStatus(w, apierrors.As(err))
		return
	}
	doc, err := protobuf.DecodeForDisplay(r.Header.Get("Content-Type"), body)
	if err != nil {
		writeStatus(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	writeJSON(w, web.StatusOK, doc)
}

package apiserver

import (
	"net/http"
	"strconv"
)

// serveCompact is kubeplay's teaching affordance, not a kube-apiserver API:
// POST /debug/kubeplay/compact[?resourceVersion=N] drops the change history up to
// N (default: everything up to now), as etcd compaction does, so that 410 Gone
// can be shown on demand. It answers {"compactedRevision": "N"}.
func (s *Server) serveCompact(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeStatus(w, errMethodNotAllowed())
		return
	}
	upTo := s.store.Revision()
	if v := r.URL.Query().Get("resourceVersion"); v != "" {
		n, err := parseResourceVersion(v)
		if err != nil {
			writeStatus(w, asStatus(err))
			return
		}
		upTo = n
	}
	rev, err := s.store.Compact(upTo)
	if err != nil {
		writeStatus(w, errInternal(err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"compactedRevision": strconv.FormatInt(rev, 10)})
}

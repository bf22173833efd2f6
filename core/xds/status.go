package xds

import (
	"sort"
	"time"
)

// StreamStatus is what the server knows of one open stream, for the
// playground and for tests: who it is, what it follows, what it was sent and
// what the client answered.
type StreamStatus struct {
	ID       int64        `json:"id"`
	Protocol string       `json:"protocol"` // "sotw" or "delta"
	TypeURL  string       `json:"typeUrl,omitempty"`
	Node     *Node        `json:"node,omitempty"`
	Started  time.Time    `json:"started"`
	Requests int64        `json:"requests"`
	Types    []TypeStatus `json:"types"`
}

// TypeStatus is one type's state on a stream.
type TypeStatus struct {
	TypeURL  string   `json:"typeUrl"`
	Wildcard bool     `json:"wildcard,omitempty"`
	Names    []string `json:"names,omitempty"`
	// Resources are what the client holds (or was last sent): name → version.
	Resources map[string]string `json:"resources"`
	Nonce     string            `json:"nonce,omitempty"`
	Version   string            `json:"version,omitempty"`
	Awaiting  bool              `json:"awaitingAck,omitempty"`
	Acked     string            `json:"ackedVersion,omitempty"`
	NACK      *NACK             `json:"nack,omitempty"`
	Sent      int               `json:"responses"`
}

// NACK is a client's last refusal of a response: the server keeps serving
// the version the client last accepted, and does not send the refused one
// again.
type NACK struct {
	Nonce   string    `json:"nonce"`
	Version string    `json:"version,omitempty"`
	Code    int32     `json:"code,omitempty"`
	Message string    `json:"message"`
	At      time.Time `json:"at"`
}

// Status is every open stream's state, oldest first.
func (s *Server) Status() []StreamStatus {
	s.mu.Lock()
	streams := make([]*stream, 0, len(s.streams))
	for st := range s.streams {
		streams = append(streams, st)
	}
	s.mu.Unlock()
	sort.Slice(streams, func(i, j int) bool { return streams[i].id < streams[j].id })
	out := make([]StreamStatus, 0, len(streams))
	for _, st := range streams {
		out = append(out, st.status())
	}
	return out
}

func (st *stream) status() StreamStatus {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := StreamStatus{ID: st.id, Protocol: "sotw", TypeURL: st.typeURL, Node: st.node, Started: st.started, Requests: st.requests, Types: []TypeStatus{}}
	if st.delta {
		out.Protocol = "delta"
	}
	for t, ts := range st.types {
		ty := TypeStatus{TypeURL: t, Wildcard: ts.wildcard, Resources: map[string]string{}, Nonce: ts.nonce, Version: ts.version,
			Awaiting: ts.awaiting, Acked: ts.acked, Sent: ts.sent}
		for n := range ts.names {
			ty.Names = append(ty.Names, n)
		}
		sort.Strings(ty.Names)
		for n, r := range ts.known {
			ty.Resources[n] = r.Version
		}
		if ts.nack != nil {
			n := *ts.nack
			ty.NACK = &n
		}
		out.Types = append(out.Types, ty)
	}
	sort.Slice(out.Types, func(i, j int) bool { return out.Types[i].TypeURL < out.Types[j].TypeURL })
	return out
}

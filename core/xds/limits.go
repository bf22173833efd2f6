package xds

import (
	"math"

	"kubeplay/core/budget"
)

// Limits bound what the clients of a discovery service (one sandbox's) may
// hold of it, so that none can exhaust the memory of the host it shares with
// other sandboxes. Past a limit the stream or request is refused whole,
// before it changes anything, with the limit and its value named in kube's
// words for an exceeded quota: over gRPC a ResourceExhausted status, over
// HTTP a 403 Forbidden Status.
//
// What they bound, measured natively: a stream costs about 8 KiB here and
// some 20 KiB more in gRPC's transport (20,000 streams on one connection
// took 570 MiB); a name a stream is subscribed to about 90 bytes held
// (delta; 20 in state of the world), and a few times that while the request
// naming it is decoded (2 million names took 514 MiB).
type Limits struct {
	// Streams is how many streams may be open at once, over every transport
	// (gRPC's and the HTTP streams a page drives): the sandbox's xDS stream
	// budget (core/budget; 0: no limit).
	Streams int
	// Names is how many resource names one stream may be subscribed to, over
	// its types and requests (a wildcard counts as none); a reconnecting
	// delta client's initial_resource_versions, and a request without a
	// stream (REST polling, gRPC's Fetch), are bounded alike (0: no limit).
	Names int
	// StreamsPerConnection is how many streams one HTTP/2 connection of the
	// gRPC transport may carry at once (its SETTINGS_MAX_CONCURRENT_STREAMS;
	// a client that opens more has them refused): 0 is 100, what
	// kube-apiserver allows on its own port when
	// --http2-max-streams-per-connection is not set.
	StreamsPerConnection int
}

// DefaultStreamsPerConnection is kube-apiserver's HTTP/2 streams per
// connection, the gRPC transport's unless Limits say otherwise.
const DefaultStreamsPerConnection = 100

// orDefault is l with its unset fields filled: no limit for streams and
// names, kube's streams per connection.
func (l Limits) orDefault() Limits {
	if l.Streams <= 0 {
		l.Streams = math.MaxInt
	}
	if l.Names <= 0 {
		l.Names = math.MaxInt
	}
	if l.StreamsPerConnection <= 0 {
		l.StreamsPerConnection = DefaultStreamsPerConnection
	}
	return l
}

// Limits are the limits the server applies.
func (s *Server) Limits() Limits { return s.cfg.Limits }

// exceeded is the refusal of a request for more than limit of what (used
// held already, requested more), in the words of kube's ResourceQuota
// admission, naming the sandbox's budget as the quota.
func exceeded(what string, requested, used, limit int) error {
	return &Error{Code: ResourceExhausted, Message: budget.Message(what, int64(requested), int64(used), int64(limit))}
}

// checkNames refuses a subscription that would leave the stream with more
// names than the limit (after, from used); one that does not grow passes.
func (s *Server) checkNames(used, after int) error {
	if limit := s.cfg.Limits.Names; after > limit && after > used {
		return exceeded(budget.ResourceXDSNames, after-used, used, limit)
	}
	return nil
}

// checkInitial refuses a delta stream's first request of a type whose
// initial_resource_versions would leave the stream knowing more versions
// than the limit.
func (s *Server) checkInitial(st *stream, n int) error {
	used := 0
	for _, ts := range st.types {
		used += len(ts.initial)
	}
	if limit := s.cfg.Limits.Names; used+n > limit {
		return exceeded(budget.ResourceXDSNames, n, used, limit)
	}
	return nil
}

// names is how many names the stream is subscribed to, over its types.
func (st *stream) names() int {
	n := 0
	for _, ts := range st.types {
		n += len(ts.names)
	}
	return n
}

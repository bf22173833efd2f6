package xds

import "fmt"

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
	// budget.
	Streams int
	// Names is how many resource names one stream may be subscribed to, over
	// its types and requests (a wildcard counts as none); a reconnecting
	// delta client's initial_resource_versions, and a request without a
	// stream (REST polling, gRPC's Fetch), are bounded alike.
	Names int
	// StreamsPerConnection is how many streams one HTTP/2 connection of the
	// gRPC transport may carry at once (its SETTINGS_MAX_CONCURRENT_STREAMS;
	// a client that opens more has them refused): 100 by default, what
	// kube-apiserver allows on its own port when
	// --http2-max-streams-per-connection is not set.
	StreamsPerConnection int
}

// DefaultLimits are the native host's: a few hundred Envoys or gRPC clients,
// each subscribed to a large mesh's worth of names; at most about 8 MiB of
// streams and 100 MiB of names (every stream full, which no real client
// comes near).
var DefaultLimits = Limits{Streams: 256, Names: 4096, StreamsPerConnection: 100}

// IsolateLimits are the browser's and the edge's, where the discovery service
// shares an isolate (a Durable Object's, 128 MB) or a page's service worker
// with its sandbox, and serves only the HTTP transports: at most about 6 MiB
// of names.
var IsolateLimits = Limits{Streams: 64, Names: 1024, StreamsPerConnection: 100}

// orDefault is l with DefaultLimits' value for each field not set.
func (l Limits) orDefault() Limits {
	if l.Streams <= 0 {
		l.Streams = DefaultLimits.Streams
	}
	if l.Names <= 0 {
		l.Names = DefaultLimits.Names
	}
	if l.StreamsPerConnection <= 0 {
		l.StreamsPerConnection = DefaultLimits.StreamsPerConnection
	}
	return l
}

// Limits are the limits the server applies.
func (s *Server) Limits() Limits { return s.cfg.Limits }

// exceeded is the refusal of a request for more than limit of what (used
// held already, requested more), in the words of kube's ResourceQuota
// admission: "exceeded quota: NAME, requested: R, used: U, limited: L".
func exceeded(quota, what string, requested, used, limit int) error {
	return &Error{Code: ResourceExhausted, Message: fmt.Sprintf("exceeded quota: %s, requested: %s=%d, used: %s=%d, limited: %s=%d",
		quota, what, requested, what, used, what, limit)}
}

// checkNames refuses a subscription that would leave the stream with more
// names than the limit (after, from used); one that does not grow passes.
func (s *Server) checkNames(used, after int) error {
	if limit := s.cfg.Limits.Names; after > limit && after > used {
		return exceeded("xds-names-per-stream", "names", after-used, used, limit)
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
		return exceeded("xds-names-per-stream", "initial_resource_versions", n, used, limit)
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

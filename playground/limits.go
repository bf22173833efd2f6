package main

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/stats"
)

// limits bound what clients can hold of the server. The timeouts are
// kube-apiserver's: its secure serving's idle and header timeouts, and
// --request-timeout, here applied to reading a request's body. The API's and
// the xDS gRPC port's connections share one budget (--max-connections).
type limits struct {
	idleTimeout       time.Duration // a kept-alive connection between requests
	readHeaderTimeout time.Duration // a request's header
	requestTimeout    time.Duration // a request's body (watches have none)
	maxConnections    int           // open connections (--max-connections)
}

var defaultLimits = limits{idleTimeout: 90 * time.Second, readHeaderTimeout: 32 * time.Second, requestTimeout: time.Minute, maxConnections: 1024}

// connections is the budget of open connections the servers share.
func (l limits) connections() *connLimiter {
	return &connLimiter{max: l.maxConnections, open: map[net.Conn]time.Time{}}
}

// httpServer is an HTTP server for handler within l, its connections counted
// in conns.
func (l limits) httpServer(handler http.Handler, conns *connLimiter) *http.Server {
	return &http.Server{
		Handler:           withBodyTimeout(handler, l.requestTimeout),
		IdleTimeout:       l.idleTimeout,
		ReadHeaderTimeout: l.readHeaderTimeout,
		MaxHeaderBytes:    1 << 20,
		ConnState: func(c net.Conn, state http.ConnState) {
			switch state {
			case http.StateNew:
				conns.opened(c)
			case http.StateActive, http.StateIdle:
				conns.serving(c, state == http.StateActive)
			case http.StateHijacked, http.StateClosed:
				conns.closed(c)
			}
		},
	}
}

// grpcServer is a gRPC server (newServer's, given the options of l) and the
// listener to serve it on, ln with its connections counted in conns: one is
// serving while it carries a stream; one that carries none for the idle
// timeout is closed (after a GOAWAY), and one that does not finish HTTP/2's
// handshake within the header timeout.
func (l limits) grpcServer(newServer func(...grpc.ServerOption) *grpc.Server, ln net.Listener, conns *connLimiter) (*grpc.Server, net.Listener) {
	streams := &grpcStreams{conns: conns, byAddr: map[string]*grpcConn{}}
	g := newServer(grpc.StatsHandler(streams),
		grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: l.idleTimeout}),
		grpc.ConnectionTimeout(l.readHeaderTimeout))
	return g, &grpcListener{Listener: ln, streams: streams}
}

// withBodyTimeout cuts off a request body still arriving after timeout, so a
// client trickling one cannot hold a connection and a handler for long. The
// deadline is the connection's: requests without a body, watches among them,
// run as long as they need.
func withBodyTimeout(next http.Handler, timeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != http.NoBody {
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(timeout))
		}
		next.ServeHTTP(w, r)
	})
}

// connLimiter caps the open connections: one past the cap closes the
// connection idle longest (kept alive between requests, carrying no gRPC
// stream, or not yet used), so idle clients cannot crowd out, or exhaust the
// file descriptors for, new ones. Connections serving a request (a watch) or
// a stream are never closed; if all are, the new one is.
type connLimiter struct {
	max  int
	mu   sync.Mutex
	open map[net.Conn]time.Time // idle since; zero while serving
}

// opened counts a new connection, closing one if that makes too many.
func (l *connLimiter) opened(c net.Conn) {
	l.mu.Lock()
	l.open[c] = time.Now()
	var victim net.Conn
	if len(l.open) > l.max {
		victim = l.oldestIdle(c)
		delete(l.open, victim)
	}
	l.mu.Unlock()
	if victim != nil {
		victim.Close()
	}
}

// serving marks a connection as serving, or idle from now.
func (l *connLimiter) serving(c net.Conn, serving bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.open[c]; !ok {
		return // closed here already
	}
	if serving {
		l.open[c] = time.Time{}
	} else {
		l.open[c] = time.Now()
	}
}

// closed forgets a connection.
func (l *connLimiter) closed(c net.Conn) {
	l.mu.Lock()
	delete(l.open, c)
	l.mu.Unlock()
}

// oldestIdle is the connection idle longest other than the new one, or the
// new one when no other is idle.
func (l *connLimiter) oldestIdle(new net.Conn) net.Conn {
	victim := new
	for c, since := range l.open {
		if c != new && !since.IsZero() && since.Before(l.open[victim]) {
			victim = c
		}
	}
	return victim
}

// grpcListener counts the gRPC server's connections in the budget.
type grpcListener struct {
	net.Listener
	streams *grpcStreams
}

func (ln *grpcListener) Accept() (net.Conn, error) {
	c, err := ln.Listener.Accept()
	if err != nil {
		return nil, err
	}
	gc := &grpcConn{Conn: c, streams: ln.streams}
	ln.streams.mu.Lock()
	ln.streams.byAddr[c.RemoteAddr().String()] = gc
	ln.streams.mu.Unlock()
	ln.streams.conns.opened(gc)
	return gc, nil
}

// grpcConn is a connection of the gRPC server, with its open streams.
type grpcConn struct {
	net.Conn
	streams *grpcStreams
	open    int // streams, guarded by streams.mu
	once    sync.Once
}

func (c *grpcConn) Close() error {
	c.once.Do(func() {
		c.streams.mu.Lock()
		delete(c.streams.byAddr, c.RemoteAddr().String())
		c.streams.mu.Unlock()
		c.streams.conns.closed(c)
	})
	return c.Conn.Close()
}

// grpcStreams is the gRPC server's stats handler: it tells the budget when
// a connection begins to carry streams and when it carries none.
type grpcStreams struct {
	conns  *connLimiter
	mu     sync.Mutex
	byAddr map[string]*grpcConn // by the client's address
}

type grpcConnKey struct{}

// TagConn finds the connection of the listener's that the server serves.
func (h *grpcStreams) TagConn(ctx context.Context, info *stats.ConnTagInfo) context.Context {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c := h.byAddr[info.RemoteAddr.String()]; c != nil {
		return context.WithValue(ctx, grpcConnKey{}, c)
	}
	return ctx
}

func (h *grpcStreams) HandleRPC(ctx context.Context, s stats.RPCStats) {
	c, _ := ctx.Value(grpcConnKey{}).(*grpcConn)
	if c == nil {
		return
	}
	var delta int
	switch s.(type) {
	case *stats.Begin:
		delta = 1
	case *stats.End:
		delta = -1
	default:
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	c.open += delta
	if c.open == 0 || (c.open == 1 && delta == 1) {
		h.conns.serving(c, c.open > 0)
	}
}

func (h *grpcStreams) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }
func (h *grpcStreams) HandleConn(context.Context, stats.ConnStats)                     {}

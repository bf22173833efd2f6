package main

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// limits bound what clients can hold of the server. The timeouts are
// kube-apiserver's: its secure serving's idle and header timeouts, and
// --request-timeout, here applied to reading a request's body.
type limits struct {
	idleTimeout       time.Duration // a kept-alive connection between requests
	readHeaderTimeout time.Duration // a request's header
	requestTimeout    time.Duration // a request's body (watches have none)
	maxConnections    int           // open connections (--max-connections)
}

var defaultLimits = limits{idleTimeout: 90 * time.Second, readHeaderTimeout: 32 * time.Second, requestTimeout: time.Minute, maxConnections: 1024}

// httpServer is an HTTP server for handler within l.
func (l limits) httpServer(handler http.Handler) *http.Server {
	conns := &connLimiter{max: l.maxConnections, open: map[net.Conn]time.Time{}}
	return &http.Server{
		Handler:           withBodyTimeout(handler, l.requestTimeout),
		IdleTimeout:       l.idleTimeout,
		ReadHeaderTimeout: l.readHeaderTimeout,
		MaxHeaderBytes:    1 << 20,
		ConnState:         conns.track,
	}
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
// connection idle longest (kept alive between requests, or not yet used), so
// idle clients cannot crowd out, or exhaust the file descriptors for, new
// ones. Connections serving a request (a watch) are never closed; if all are,
// the new one is.
type connLimiter struct {
	max  int
	mu   sync.Mutex
	open map[net.Conn]time.Time // idle since; zero while serving a request
}

// track is the server's ConnState hook.
func (l *connLimiter) track(c net.Conn, state http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch state {
	case http.StateNew:
		l.open[c] = time.Now()
		if len(l.open) > l.max {
			l.closeOldestIdle(c)
		}
	case http.StateActive, http.StateIdle:
		if _, ok := l.open[c]; !ok {
			return // closed here already
		}
		if state == http.StateActive {
			l.open[c] = time.Time{}
		} else {
			l.open[c] = time.Now()
		}
	case http.StateHijacked, http.StateClosed:
		delete(l.open, c)
	}
}

// closeOldestIdle closes the connection idle longest other than the new
// one, or the new one when no other is idle.
func (l *connLimiter) closeOldestIdle(new net.Conn) {
	victim := new
	for c, since := range l.open {
		if c != new && !since.IsZero() && since.Before(l.open[victim]) {
			victim = c
		}
	}
	delete(l.open, victim)
	victim.Close()
}

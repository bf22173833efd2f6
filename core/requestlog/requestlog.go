// Package requestlog owns a sandbox's request log (WORK-3): a bounded ring
// of the requests its API answered most recently, whoever sent them
// (kubectl, client-go, the page, the sandbox's own controllers): when, who,
// with which client, the verb and the path with its query, the answer's
// code, how long it took, the bytes each way, and the APF priority level and
// flow schema it was classified into; the bodies of the most recent within a
// byte budget; and the streams of those who follow it. The filters that
// learn who asked and where APF put it write into the request's entry
// (From); a host prints it (the native terminal) or serves it (the debug
// endpoint, the page's Requests panel).
package requestlog

import (
	"context"
	"strings"
	"sync"
	"time"

	"kubeplay/core/clock"
	"kubeplay/core/request"
	"kubeplay/core/web"
)

// Entry is one request as the log keeps it.
type Entry struct {
	Seq int64 `json:"seq"`
	// Rev is the log's version when the entry last changed (its addition,
	// or a long-running answer's end): a poller asks for what changed
	// since the version it last saw.
	Rev  int64     `json:"rev"`
	Time time.Time `json:"time"` // its arrival
	User string    `json:"user,omitempty"`
	// ImpersonatedBy is who sent it, when User is who they impersonated.
	ImpersonatedBy string `json:"impersonatedBy,omitempty"`
	UserAgent      string `json:"userAgent,omitempty"`
	// Client is who sent it, from its User-Agent: kubectl, a controller's
	// name, browser, curl, or the agent's product token.
	Client string `json:"client"`
	// Internal: sent by the sandbox's own components (its controllers, the
	// simulated kubelets and scheduler), in process, not over the wire.
	Internal bool   `json:"internal,omitempty"`
	Method   string `json:"method"`
	Verb     string `json:"verb,omitempty"` // kube's, as authorization sees it
	URI      string `json:"uri"`            // path and query
	// ContentType and Accept are the request's headers of those names, so
	// that it can be sent again (as curl).
	ContentType   string `json:"contentType,omitempty"`
	Accept        string `json:"accept,omitempty"`
	Code          int    `json:"code,omitempty"` // 0 until answered
	LatencyMicros int64  `json:"latencyMicros"`  // until the answer ended (so far, while Open)
	RequestBytes  int64  `json:"requestBytes"`
	ResponseBytes int64  `json:"responseBytes"`
	PriorityLevel string `json:"priorityLevel,omitempty"`
	FlowSchema    string `json:"flowSchema,omitempty"`
	// Revisions are those of the changes the request committed, oldest
	// first (a deletecollection's, one per object): the revision timeline
	// names who made each change by them (LEARN-5).
	Revisions []int64 `json:"revisions,omitempty"`
	// Open: a long-running answer (a watch, a followed log) still going.
	Open bool `json:"open,omitempty"`
	// Bodies says the bodies are kept (Log.Get returns them).
	Bodies bool `json:"bodies,omitempty"`

	requestBody, responseBody []byte
	requestCut, responseCut   bool // the bodies kept were cut at BodyCap
}

// Event is a change of the log a follower hears of: an entry ADDED (a
// request answered, or a long-running one that began answering) or
// MODIFIED (a long-running one that ended).
type Event struct {
	Type   string `json:"type"`
	Object Entry  `json:"object"`
}

// Bodies are an entry's request and response bodies, each cut at the log's
// cap (Truncated says which were).
type Bodies struct {
	Request, Response                   []byte
	RequestTruncated, ResponseTruncated bool
}

// The log's bounds.
const (
	// DefaultSize is how many entries a log keeps.
	DefaultSize = 1000
	// DefaultBodyBudget is how many bytes of bodies it keeps in all: the
	// oldest entries' bodies go first.
	DefaultBodyBudget = 1 << 20
	// BodyCap is how much of each body it keeps.
	BodyCap = 32 << 10
	// followBuffer is how many events a follower may fall behind before it
	// is cut off.
	followBuffer = 256
)

// Log is one sandbox's request log.
type Log struct {
	clock      clock.Clock
	size       int
	bodyBudget int
	skip       func(path string) bool

	mu        sync.Mutex
	ring      []*Entry // the newest last; at most size
	seq       int64
	version   int64
	bodyBytes int
	followers map[*Follower]struct{}
}

// New is a log of size entries and bodyBudget bytes of bodies (0: the
// defaults). Requests whose path skip returns true are not logged (the
// log's own endpoint, whose followers would otherwise hear of themselves).
func New(clk clock.Clock, size, bodyBudget int, skip func(path string) bool) *Log {
	if size <= 0 {
		size = DefaultSize
	}
	if bodyBudget <= 0 {
		bodyBudget = DefaultBodyBudget
	}
	if skip == nil {
		skip = func(string) bool { return false }
	}
	return &Log{clock: clk, size: size, bodyBudget: bodyBudget, skip: skip, followers: map[*Follower]struct{}{}}
}

type key struct{}

// From is the entry of the request ctx belongs to, for the filters that
// learn who sent it and where APF put it; nil when it is not logged. Only
// the request's own goroutine writes it, before the answer is written.
func From(ctx context.Context) *Entry {
	e, _ := ctx.Value(key{}).(*Entry)
	return e
}

// Committed notes that the request committed a change at rev; nil-safe, for
// a request the log does not keep.
func (e *Entry) Committed(rev int64) {
	if e != nil {
		e.Revisions = append(e.Revisions, rev)
	}
}

// Filter logs every request the handler answers.
func (l *Log) Filter(next web.Handler) web.Handler {
	return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		if l.skip(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		ua := r.Header.Get("User-Agent")
		e := &Entry{Time: l.clock.Now(), UserAgent: ua, Client: ClientOf(ua), Method: r.Method, URI: r.URL.RequestURI(),
			ContentType: r.Header.Get("Content-Type"), Accept: r.Header.Get("Accept")}
		if info := request.RequestInfoFrom(r.Context()); info != nil {
			e.Verb = info.Verb
		}
		rec := &recorder{ResponseWriter: w, log: l, entry: e}
		if r.Body != nil {
			rec.body = &bodyReader{ReadCloser: r.Body}
			r.Body = rec.body
		}
		defer rec.finish()
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), key{}, e)))
	})
}

// ClientOf names the client a User-Agent announces: kubectl; a sandbox
// controller's own name (kube-controller-manager/VERSION (kubeplay) NAME);
// a kubelet, the scheduler or kube-apiserver itself by their product;
// browser for a web browser; otherwise the product token before the first
// '/' (curl, Go-http-client, a client-go program's binary name).
func ClientOf(ua string) string {
	if ua == "" {
		return "unknown"
	}
	product, _, _ := strings.Cut(ua, "/")
	switch {
	case product == "kube-controller-manager" || strings.HasPrefix(ua, "kube-apiserver/") && strings.Contains(ua, ") "):
		if i := strings.LastIndex(ua, ") "); i >= 0 {
			return ua[i+2:]
		}
	case product == "Mozilla":
		return "browser"
	case product == "kubectl-dispatcher": // kubectl's first process, asking the version
		return "kubectl"
	}
	return product
}

// add puts e in the ring with its bodies (cut at BodyCap), evicting the
// oldest entry past size and the oldest bodies past the budget, and tells
// the followers.
func (l *Log) add(e *Entry, reqBody, respBody []byte, reqCut, respCut bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	l.version++
	e.Seq, e.Rev = l.seq, l.version
	if len(l.ring) == l.size {
		l.dropBodies(l.ring[0])
		copy(l.ring, l.ring[1:])
		l.ring[len(l.ring)-1] = e
	} else {
		l.ring = append(l.ring, e)
	}
	if len(reqBody)+len(respBody) > 0 {
		l.keepBodies(e, reqBody, respBody, reqCut, respCut)
	}
	l.notify(Event{Type: "ADDED", Object: *e})
}

// keepBodies gives e (in the ring) its bodies, the oldest entries' bodies
// dropped past the budget (e's own too, when they alone exceed it).
func (l *Log) keepBodies(e *Entry, reqBody, respBody []byte, reqCut, respCut bool) {
	e.requestBody, e.responseBody, e.requestCut, e.responseCut, e.Bodies = reqBody, respBody, reqCut, respCut, true
	l.bodyBytes += len(reqBody) + len(respBody)
	for _, old := range l.ring {
		if l.bodyBytes <= l.bodyBudget {
			break
		}
		l.dropBodies(old)
	}
}

func (l *Log) dropBodies(e *Entry) {
	l.bodyBytes -= len(e.requestBody) + len(e.responseBody)
	e.requestBody, e.responseBody, e.requestCut, e.responseCut, e.Bodies = nil, nil, false, false, false
}

// ended records that a long-running entry's answer ended, with its bodies
// while the entry is kept.
func (l *Log) ended(e *Entry, code int, latency time.Duration, reqBytes, respBytes int64, reqBody, respBody []byte, reqCut, respCut bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e.Code, e.LatencyMicros, e.RequestBytes, e.ResponseBytes, e.Open = code, latency.Microseconds(), reqBytes, respBytes, false
	l.version++
	e.Rev = l.version
	if len(l.ring) > 0 && l.ring[0].Seq <= e.Seq && len(reqBody)+len(respBody) > 0 {
		l.keepBodies(e, reqBody, respBody, reqCut, respCut)
	}
	l.notify(Event{Type: "MODIFIED", Object: *e})
}

// notify sends ev to every follower that wants it; one too far behind is
// cut off (its channel closed) rather than let the log wait.
func (l *Log) notify(ev Event) {
	for f := range l.followers {
		if !f.match(ev.Object) {
			continue
		}
		select {
		case f.c <- ev:
		default:
			delete(l.followers, f)
			close(f.c)
		}
	}
}

// List is the entries match accepts that changed after version since (0:
// all kept), oldest first, without their bodies, and the log's version.
func (l *Log) List(match func(Entry) bool, since int64) ([]Entry, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := []Entry{}
	for _, e := range l.ring {
		if e.Rev > since && (match == nil || match(*e)) {
			out = append(out, *e)
		}
	}
	return out, l.version
}

// Get is the entry seq with its bodies, while the log keeps it.
func (l *Log) Get(seq int64) (Entry, Bodies, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.ring {
		if e.Seq == seq {
			return *e, Bodies{Request: e.requestBody, Response: e.responseBody, RequestTruncated: e.requestCut, ResponseTruncated: e.responseCut}, true
		}
	}
	return Entry{}, Bodies{}, false
}

// Follower hears of the log's changes until it stops or falls too far
// behind (then its channel closes).
type Follower struct {
	c     chan Event
	match func(Entry) bool
	log   *Log
}

// Follow starts a follower of the entries match accepts (nil: all): with
// replay, the entries kept now come first as ADDED events; then each
// change.
func (l *Log) Follow(match func(Entry) bool, replay bool) *Follower {
	if match == nil {
		match = func(Entry) bool { return true }
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var replayed []Event
	for _, e := range l.ring {
		if replay && match(*e) {
			replayed = append(replayed, Event{Type: "ADDED", Object: *e})
		}
	}
	f := &Follower{c: make(chan Event, followBuffer+len(replayed)), match: match, log: l}
	for _, ev := range replayed {
		f.c <- ev
	}
	l.followers[f] = struct{}{}
	return f
}

// Events are the follower's events; closed when it was cut off or stopped.
func (f *Follower) Events() <-chan Event { return f.c }

// Stop ends the follower.
func (f *Follower) Stop() {
	f.log.mu.Lock()
	defer f.log.mu.Unlock()
	if _, ok := f.log.followers[f]; ok {
		delete(f.log.followers, f)
		close(f.c)
	}
}

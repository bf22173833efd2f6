package xds

import (
	"context"
	"errors"
	"sort"
	"time"
)

// StreamSotW serves a state-of-the-world stream of typeURL's resources (""
// for ADS, every type on one stream, each its own world) until recv fails or
// ctx is done. Each response carries every subscribed resource, a version
// and a nonce; the client's next request names that nonce and ACKs (the
// version) or NACKs (error_detail) it; a request with another nonce is stale
// and ignored. A change is pushed once the last response is answered, and
// only if what the stream is subscribed to changed; after a NACK the
// refused version is not sent again.
func (s *Server) StreamSotW(ctx context.Context, typeURL string, recv func() (*Request, error), send func(*Response) error) error {
	st, err := s.open(ctx, false, typeURL)
	if err != nil {
		return err
	}
	return s.serveSotW(st, recv, send)
}

// serveSotW serves an open state-of-the-world stream.
func (s *Server) serveSotW(st *stream, recv func() (*Request, error), send func(*Response) error) error {
	return run(st.ctx, s, st, recv, handlers[*Request]{
		request: func(r *Request) error {
			return handled(r.done, s.sotwRequest(st, r, send))
		},
		change: func(changed map[string]map[string]bool) error {
			for t := range changed {
				if ts := st.types[t]; ts != nil && ts.nonce != "" {
					if err := s.sotwPush(st, t, ts, send); err != nil {
						return err
					}
				}
			}
			return nil
		},
		heartbeat: func() error {
			return s.heartbeat(st, func(t string, ts *typeState, rs []*Resource) error {
				ts.nonce = st.nonces.next()
				return send(&Response{VersionInfo: ts.version, Resources: rs, Heartbeat: true, TypeURL: t, Nonce: ts.nonce, ControlPlane: s.cfg.ControlPlane})
			})
		},
	})
}

func (s *Server) sotwRequest(st *stream, r *Request, send func(*Response) error) error {
	t, ts, err := st.typeOf(r.TypeURL)
	if err != nil {
		return err
	}
	if ts == nil {
		ts = &typeState{} // not followed until the request is taken
	}
	if r.ResponseNonce != "" && r.ResponseNonce != ts.nonce {
		return nil // stale: answers an older response
	}
	if err := s.checkSotW(st, ts, r); err != nil {
		return err
	}
	if r.Node != nil {
		st.node = r.Node
	}
	if st.types[t] == nil {
		ts = st.newType(t)
	}
	if ts.nonce == "" {
		s.catchUp(st.ctx, t)
	}
	changed := ts.subscribeSotW(st, t, r)
	if r.ResponseNonce != "" {
		ts.answered(r.VersionInfo, r.ErrorDetail, s.cfg.Clock.Now())
	} else if ts.nonce == "" && r.VersionInfo != "" && r.VersionInfo == s.cache.version(t) {
		// A reconnecting client that has the current version: nothing to send.
		ts.version, ts.acked, ts.known = r.VersionInfo, r.VersionInfo, s.sotwContent(st, t, ts)
		ts.nonce = "reconnected"
		return nil
	} else if ts.nonce == "" {
		changed = true
	}
	if changed {
		ts.awaiting = false
		return s.sotwSend(st, t, ts, s.sotwContent(st, t, ts), send)
	}
	return s.sotwPush(st, t, ts, send)
}

// answered records the client's answer to the last response: an ACK of
// version, or a NACK with detail (the client keeps its last good version).
func (ts *typeState) answered(version string, detail *ErrorDetail, now time.Time) {
	ts.awaiting = false
	if detail == nil {
		ts.acked, ts.nack = version, nil
		return
	}
	ts.nack = &NACK{Nonce: ts.nonce, Version: ts.version, Message: detail.Message, Code: detail.Code, At: now}
}

// subscribeSotW takes a request's names as the type's subscription and says
// whether it changed. No names at all is the legacy wildcard for LDS and CDS
// (while the client never named any), "*" the explicit one.
func (ts *typeState) subscribeSotW(st *stream, t string, r *Request) bool {
	names := map[string]map[string]string{}
	wildcard := false
	add := func(name string, params map[string]string) {
		if name == "*" {
			wildcard = true
			return
		}
		names[name] = st.params(t, params)
	}
	for _, n := range r.ResourceNames {
		add(n, nil)
	}
	for _, l := range r.Locators {
		add(l.Name, l.Params)
	}
	if len(r.ResourceNames)+len(r.Locators) == 0 && wildcardTypes[t] && (ts.nonce == "" || ts.wildcard) {
		wildcard = true
	}
	changed := wildcard != ts.wildcard || len(names) != len(ts.names)
	for n, p := range names {
		old, ok := ts.names[n]
		changed = changed || !ok || !sameParams(old, p)
	}
	ts.wildcard, ts.names = wildcard, names
	return changed
}

// checkSotW refuses a request whose names, in place of those of its type
// (ts), would take the stream past the names limit.
func (s *Server) checkSotW(st *stream, ts *typeState, r *Request) error {
	used := st.names()
	others := used - len(ts.names)
	if others+len(r.ResourceNames)+len(r.Locators) <= s.cfg.Limits.Names {
		return nil // within it, however many of them are the same
	}
	set := make(map[string]bool, len(r.ResourceNames)+len(r.Locators))
	for _, n := range r.ResourceNames {
		set[n] = true
	}
	for _, l := range r.Locators {
		set[l.Name] = true
	}
	delete(set, "*")
	return s.checkNames(used, others+len(set))
}

func sameParams(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// sotwContent is what a response to the subscription holds now: the chosen
// variant of each subscribed name that exists.
func (s *Server) sotwContent(st *stream, t string, ts *typeState) map[string]*Resource {
	out := map[string]*Resource{}
	if ts.wildcard {
		params := st.params(t, nil)
		for _, n := range s.cache.names(t) {
			if r := s.cache.pick(t, n, params); r != nil {
				out[n] = r
			}
		}
	}
	for n, params := range ts.names {
		if r := s.cache.pick(t, n, params); r != nil {
			out[n] = r
		}
	}
	return out
}

// sotwPush sends the type's current state if the last response is answered
// and the state differs from what the client was last sent.
func (s *Server) sotwPush(st *stream, t string, ts *typeState, send func(*Response) error) error {
	if ts.awaiting {
		return nil
	}
	content := s.sotwContent(st, t, ts)
	if len(content) == len(ts.known) {
		same := true
		for n, r := range content {
			if ts.known[n] != r {
				same = false
				break
			}
		}
		if same {
			return nil
		}
	}
	return s.sotwSend(st, t, ts, content, send)
}

func (s *Server) sotwSend(st *stream, t string, ts *typeState, content map[string]*Resource, send func(*Response) error) error {
	resp := &Response{VersionInfo: s.cache.version(t), Resources: sorted(content), TypeURL: t, Nonce: st.nonces.next(), ControlPlane: s.cfg.ControlPlane}
	ts.known, ts.nonce, ts.version, ts.awaiting = content, resp.Nonce, resp.VersionInfo, true
	ts.sent++
	ts.lastSent = s.cfg.Clock.Now()
	return send(resp)
}

// heartbeat sends, for each type whose last response is answered and whose
// TTL resources are due, a response refreshing them without their bodies.
func (s *Server) heartbeat(st *stream, send func(t string, ts *typeState, rs []*Resource) error) error {
	now := s.cfg.Clock.Now()
	for t, ts := range st.types {
		if ts.awaiting {
			continue
		}
		var due []*Resource
		for _, r := range ts.ttlResources() {
			if !now.Before(ts.lastSent.Add(r.TTL / 2)) {
				due = append(due, r)
			}
		}
		if len(due) == 0 {
			continue
		}
		ts.lastSent, ts.awaiting = now, true
		if err := send(t, ts, due); err != nil {
			return err
		}
	}
	return nil
}

// sorted are the resources of content (once each, though several names may
// reach one by its aliases), by name.
func sorted(content map[string]*Resource) []*Resource {
	out := make([]*Resource, 0, len(content))
	seen := make(map[*Resource]bool, len(content))
	for _, r := range content {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ErrNotModified is a fetch's answer when the client has the current version
// (REST polling answers 304 Not Modified).
var ErrNotModified = errors.New("xds: the version is up to date")

// Fetch answers one request without a stream (REST polling, gRPC's Fetch
// methods): the subscribed resources as they are now, or ErrNotModified.
func (s *Server) Fetch(ctx context.Context, r *Request) (*Response, error) {
	st := &stream{node: r.Node, types: map[string]*typeState{}}
	t, _, err := st.typeOf(r.TypeURL)
	if err != nil {
		return nil, err
	}
	ts := st.newType(t)
	if err := s.checkSotW(st, ts, r); err != nil {
		return nil, err
	}
	s.catchUp(ctx, t)
	version := s.cache.version(t)
	if r.VersionInfo == version {
		return nil, ErrNotModified
	}
	ts.subscribeSotW(st, t, r)
	return &Response{VersionInfo: version, Resources: sorted(s.sotwContent(st, t, ts)), TypeURL: t, ControlPlane: s.cfg.ControlPlane}, nil
}

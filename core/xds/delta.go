package xds

import (
	"context"
	"sort"
)

// StreamDelta serves a delta (incremental) stream of typeURL's resources (""
// for ADS) until recv fails or ctx is done. Clients subscribe and
// unsubscribe names (or "*"); each response carries only the resources that
// changed, each with its own version, and the names removed; a reconnecting
// client's initial_resource_versions spare it what it already has; a newly
// subscribed name is always answered, with the resource or, when there is
// none, its removal. Every response has a nonce the client ACKs or NACKs.
func (s *Server) StreamDelta(ctx context.Context, typeURL string, recv func() (*DeltaRequest, error), send func(*DeltaResponse) error) error {
	st, err := s.open(ctx, true, typeURL)
	if err != nil {
		return err
	}
	return s.serveDelta(st, recv, send)
}

// serveDelta serves an open delta stream.
func (s *Server) serveDelta(st *stream, recv func() (*DeltaRequest, error), send func(*DeltaResponse) error) error {
	return run(st.ctx, s, st, recv, handlers[*DeltaRequest]{
		request: func(r *DeltaRequest) error {
			return handled(r.done, s.deltaRequest(st, r, send))
		},
		change: func(changed map[string]map[string]bool) error {
			for t, names := range changed {
				ts := st.types[t]
				if ts == nil {
					continue
				}
				for n := range names {
					ts.dirty[n] = true
				}
				if err := s.deltaFlush(st, t, ts, send); err != nil {
					return err
				}
			}
			return nil
		},
		heartbeat: func() error {
			return s.heartbeat(st, func(t string, ts *typeState, rs []*Resource) error {
				ts.nonce = st.nonces.next()
				return send(&DeltaResponse{SystemVersionInfo: s.cache.version(t), Resources: rs, Heartbeat: true, TypeURL: t, Nonce: ts.nonce, ControlPlane: s.cfg.ControlPlane})
			})
		},
	})
}

func (s *Server) deltaRequest(st *stream, r *DeltaRequest, send func(*DeltaResponse) error) error {
	t, ts, err := st.typeOf(r.TypeURL)
	if err != nil {
		return err
	}
	if err := s.checkDelta(st, ts, r); err != nil {
		return err
	}
	if r.Node != nil {
		st.node = r.Node
	}
	if ts == nil {
		ts = st.newType(t)
	}
	first := ts.initial == nil
	if first {
		s.catchUp(st.ctx, t)
		ts.initial = map[string]string{}
		for n, v := range r.InitialResourceVersions {
			ts.initial[n] = v
			ts.dirty[n] = true
		}
	}
	if r.ResponseNonce != "" && r.ResponseNonce == ts.nonce {
		ts.answered("", r.ErrorDetail, s.cfg.Clock.Now())
	}
	subscribe := func(name string, params map[string]string) {
		if name == "*" {
			ts.wildcard = true
			for _, n := range s.cache.names(t) {
				ts.dirty[n] = true
			}
			return
		}
		ts.names[name] = st.params(t, params)
		ts.dirty[name] = true
		if _, reconnecting := ts.initial[name]; !(first && reconnecting) {
			ts.force[name] = true
		}
	}
	for _, n := range r.Subscribe {
		subscribe(n, nil)
	}
	for _, l := range r.SubscribeLocators {
		subscribe(l.Name, l.Params)
	}
	if first && len(r.Subscribe)+len(r.SubscribeLocators) == 0 && wildcardTypes[t] {
		subscribe("*", nil)
	}
	unsubscribe := func(name string) {
		if name == "*" {
			ts.wildcard = false
			return
		}
		delete(ts.names, name)
		delete(ts.known, name)
		delete(ts.force, name)
		delete(ts.initial, name)
	}
	for _, n := range r.Unsubscribe {
		unsubscribe(n)
	}
	for _, l := range r.UnsubscribeLocators {
		unsubscribe(l.Name)
	}
	return s.deltaFlush(st, t, ts, send)
}

// checkDelta refuses a request that would take the stream past the names
// limit: the names it would be subscribed to once the request's subscribe
// and then unsubscribe lists are applied (ts is nil before the type's first
// request), and the versions its initial_resource_versions would leave.
func (s *Server) checkDelta(st *stream, ts *typeState, r *DeltaRequest) error {
	if ts == nil || ts.initial == nil {
		if err := s.checkInitial(st, len(r.InitialResourceVersions)); err != nil {
			return err
		}
	}
	used := st.names()
	if used+len(r.Subscribe)+len(r.SubscribeLocators) <= s.cfg.Limits.Names {
		return nil // within it whatever the request adds
	}
	var have map[string]map[string]string
	if ts != nil {
		have = ts.names
	}
	added, removed := map[string]bool{}, map[string]bool{}
	subscribe := func(n string) {
		if _, ok := have[n]; !ok && n != "*" {
			added[n] = true
		}
	}
	unsubscribe := func(n string) {
		if _, ok := have[n]; ok {
			removed[n] = true
		}
		delete(added, n)
	}
	for _, n := range r.Subscribe {
		subscribe(n)
	}
	for _, l := range r.SubscribeLocators {
		subscribe(l.Name)
	}
	for _, n := range r.Unsubscribe {
		unsubscribe(n)
	}
	for _, l := range r.UnsubscribeLocators {
		unsubscribe(l.Name)
	}
	return s.checkNames(used, used+len(added)-len(removed))
}

// deltaFlush sends what changed among the type's dirty names, once the last
// response is answered.
func (s *Server) deltaFlush(st *stream, t string, ts *typeState, send func(*DeltaResponse) error) error {
	if ts.awaiting || len(ts.dirty) == 0 {
		return nil
	}
	names := make([]string, 0, len(ts.dirty))
	for n := range ts.dirty {
		names = append(names, n)
	}
	sort.Strings(names)
	resp := &DeltaResponse{SystemVersionInfo: s.cache.version(t), TypeURL: t, ControlPlane: s.cfg.ControlPlane}
	for _, n := range names {
		params, explicit := ts.names[n]
		if !explicit && !ts.wildcard {
			continue
		}
		if !explicit {
			params = st.params(t, nil)
		}
		r := s.cache.pick(t, n, params)
		have, held := ts.known[n]
		haveVersion := ""
		if held {
			haveVersion = have.Version
		} else if v, ok := ts.initial[n]; ok {
			haveVersion, held = v, true
		}
		switch {
		case r == nil && (held || ts.force[n]):
			rm := Removed{Name: n}
			if have != nil {
				rm.Constraints = have.Constraints
			}
			resp.Removed = append(resp.Removed, rm)
			delete(ts.known, n)
		case r != nil && (ts.force[n] || !held || haveVersion != r.Version):
			resp.Resources = append(resp.Resources, r)
			ts.known[n] = r
		}
		delete(ts.initial, n)
	}
	clear(ts.dirty)
	clear(ts.force)
	if len(resp.Resources)+len(resp.Removed) == 0 {
		return nil
	}
	resp.Nonce = st.nonces.next()
	ts.nonce, ts.awaiting = resp.Nonce, true
	ts.sent++
	ts.lastSent = s.cfg.Clock.Now()
	return send(resp)
}

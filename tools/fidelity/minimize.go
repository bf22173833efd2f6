package main

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
)

// A minimized difference: the shortest session found that still shows it.
type minimized struct {
	Session    Session
	Results    []stepResult // the minimized session's replay
	Replays    int          // replays it took
	Reproduced bool         // whether the whole session, replayed, showed it again
}

// replayCounter numbers replays' namespaces across the run.
var replayCounter atomic.Int64

// minimize shortens session s to steps that still make the step at idx show
// the difference sig: the session is cut after idx, then the steps between
// the first (which makes the namespace and always stays) and the last are
// removed in ever smaller chunks (delta debugging) while the difference
// stays. Each try is a replay in a namespace of its own; budget bounds them.
func (p *player) minimize(ctx context.Context, s Session, idx int, sig string, budget int) minimized {
	m := minimized{Session: s}
	m.Session.Steps = slices.Clone(s.Steps[:idx+1])
	first, last := s.Steps[0], s.Steps[idx]
	try := func(middle []Step) ([]stepResult, bool) {
		m.Replays++
		cand := s
		cand.Steps = append(append([]Step{first}, middle...), last)
		ns := sessionNamespace("m", int(replayCounter.Add(1)))
		res := p.play(ctx, cand, ns)
		return res, len(res) == len(cand.Steps) && signature(res[len(res)-1]) == sig
	}
	middle := slices.Clone(s.Steps[1:idx])
	if idx == 0 {
		// The namespace's own creation differs: nothing to take away.
		res := p.play(ctx, m.Session, sessionNamespace("m", int(replayCounter.Add(1))))
		m.Replays, m.Results = 1, res
		m.Reproduced = len(res) == 1 && signature(res[0]) == sig
		return m
	}
	res, ok := try(middle)
	if !ok {
		m.Results = res
		return m
	}
	m.Reproduced, m.Results = true, res
	if r, ok := try(nil); ok {
		middle, m.Results = nil, r
	}
	// From the end, so a removal never moves the chunks still to try; a pass
	// with single steps repeats until none can go.
	for chunk := len(middle) / 2; chunk >= 1 && m.Replays < budget && ctx.Err() == nil; {
		removed := false
		for start := len(middle) - chunk; start >= 0 && m.Replays < budget; start -= chunk {
			cand := slices.Concat(middle[:start], middle[start+chunk:])
			if r, ok := try(cand); ok {
				middle, m.Results, removed = cand, r, true
			}
		}
		switch {
		case chunk > 1:
			chunk = min(chunk/2, len(middle))
		case !removed:
			chunk = 0
		}
	}
	m.Session.Steps = slices.Concat([]Step{first}, middle, []Step{last})
	return m
}

// summary says how a difference was minimized.
func (m minimized) summary() string {
	if !m.Reproduced {
		return fmt.Sprintf("not shown again when its session was replayed (%d replay): it depends on timing", m.Replays)
	}
	return fmt.Sprintf("minimized to %d steps in %d replays", len(m.Session.Steps), m.Replays)
}

package main

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The two sides compared, in the order of every [2] array: kubeplay first.
const (
	sideKubeplay = 0
	sideKube     = 1
)

// player plays sessions against the two servers.
type player struct {
	targets [2]*target
}

// A stepResult is what one step of a played session gave.
type stepResult struct {
	Step    Step
	Answers [2]*object // normalized, kubeplay's then kube's
	Diffs   []Diff     // where they differ, known differences included
	Known   []string   // the ids of the known differences that explain every diff, when they do
}

// identical says whether the two answers were the same.
func (r stepResult) identical() bool { return len(r.Diffs) == 0 }

// play plays a session against both servers, step by step (both at once),
// in namespace ns (the session's own, or a replay's).
func (p *player) play(ctx context.Context, s Session, ns string) []stepResult {
	var prefixes []string
	for _, st := range s.Steps {
		if p := strings.ReplaceAll(st.GenPrefix, "{{ns}}", ns); p != "" && !slices.Contains(prefixes, p) {
			prefixes = append(prefixes, p)
		}
	}
	var states [2]*serverState
	var norms [2]*normalizer
	for i, t := range p.targets {
		states[i] = newServerState(ns, prefixes)
		norms[i] = newNormalizer(states[i], t.apf)
	}
	out := make([]stepResult, 0, len(s.Steps))
	for _, st := range s.Steps {
		if ctx.Err() != nil {
			break
		}
		raws := sendBoth(ctx, p.targets, st, states)
		if deletesOnBoth(st, raws) {
			p.settleDeletions(ctx, st, ns)
		}
		if makesControllerWork(st, raws) {
			p.settleControllers(ctx, ns)
		}
		r := stepResult{Step: st}
		for i := range raws {
			r.Answers[i] = norms[i].answer(st, raws[i])
		}
		r.Diffs = compare(r.Answers[sideKubeplay], r.Answers[sideKube])
		r.Known = explain(st, r.Diffs, r.Answers)
		out = append(out, r)
	}
	return out
}

// playAll plays sessions 0..n-1 of seed, parallel at once, and hands each
// session's results to done as it finishes (from one goroutine at a time).
func (p *player) playAll(ctx context.Context, seed uint64, n, steps, parallel int, done func(Session, []stepResult)) {
	var mu sync.Mutex
	next := make(chan int)
	var wg sync.WaitGroup
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				ns := sessionNamespace("s", i)
				s := generate(seed, i, steps, ns)
				res := p.play(ctx, s, ns)
				mu.Lock()
				done(s, res)
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

var arrayIndex = regexp.MustCompile(`\[\d+\]`)

// signature names a difference for grouping and minimizing: the step's
// categories and where the answers differ (array positions left out).
func signature(r stepResult) string {
	var paths []string
	for _, d := range r.Diffs {
		p := arrayIndex.ReplaceAllString(d.Path, "[]")
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	return r.Step.Label() + " @ " + strings.Join(paths, " ")
}

package kubectlfidelity

// This file owns comparing a played session, command by command, and the
// known differences (testdata/known.txt) that explain some of them.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The parts of a command compared, in the report's order.
var Parts = []string{"exit", "stdout", "stderr", "requests"}

// Verdicts of a command.
const (
	Identical = "identical"
	Known     = "known"     // differs only where known differences explain
	Different = "different" // differs
)

// CommandReport is how one command line compared.
type CommandReport struct {
	Session string
	Mode    string
	Step    Step
	Verdict string
	Diffs   []PartDiff // the parts that differ
}

// PartDiff is one part that differs: a unified diff of the normalized
// texts, kubectl's as ---, ours as +++; Known is the known difference that
// explains it ("" if none).
type PartDiff struct {
	Part  string
	Diff  string
	Known string
}

// KnownDifference is a difference kept on purpose or not ours to fix, with
// its reason; it explains a part's difference of the commands it matches.
type KnownDifference struct {
	ID      string
	Reason  string
	Command *regexp.Regexp // matched against the command line as written
	Parts   []string
	Diff    *regexp.Regexp // nil: any difference; else every changed line of the part's diff must match
}

func (k *KnownDifference) explains(st Step, d PartDiff) bool {
	if !k.Command.MatchString(st.Text) {
		return false
	}
	if !slices.Contains(k.Parts, d.Part) {
		return false
	}
	if k.Diff == nil {
		return true
	}
	for _, line := range strings.Split(d.Diff, "\n") {
		changed := (strings.HasPrefix(line, "-") || strings.HasPrefix(line, "+")) &&
			!strings.HasPrefix(line, "--- ") && !strings.HasPrefix(line, "+++ ")
		if changed && !k.Diff.MatchString(line[1:]) {
			return false
		}
	}
	return true
}

// LoadKnown parses a known-differences file: blocks separated by blank
// lines, each of "key: value" lines with keys id, command (a regexp over the
// command line), parts (of exit, stdout, stderr, requests; space separated),
// diff (optional: a regexp every changed line of the part's diff must
// match, without its - or +) and reason; lines
// starting with # are comments.
func LoadKnown(path string) ([]*KnownDifference, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []*KnownDifference
	for i, block := range strings.Split(string(b), "\n\n") {
		k := &KnownDifference{}
		for _, line := range strings.Split(block, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			key, val, ok := strings.Cut(line, ":")
			if !ok {
				return nil, fmt.Errorf("%s: block %d: %q is not key: value", path, i+1, line)
			}
			val = strings.TrimSpace(val)
			switch key {
			case "id":
				k.ID = val
			case "reason":
				k.Reason = val
			case "command", "diff":
				re, err := regexp.Compile(val)
				if err != nil {
					return nil, fmt.Errorf("%s: block %d: %s: %w", path, i+1, key, err)
				}
				if key == "command" {
					k.Command = re
				} else {
					k.Diff = re
				}
			case "parts":
				k.Parts = strings.Fields(val)
				for _, p := range k.Parts {
					if !slices.Contains(Parts, p) {
						return nil, fmt.Errorf("%s: block %d: unknown part %q", path, i+1, p)
					}
				}
			default:
				return nil, fmt.Errorf("%s: block %d: unknown key %q", path, i+1, key)
			}
		}
		if k.ID == "" && k.Command == nil && k.Reason == "" {
			continue // comments only
		}
		if k.ID == "" || k.Reason == "" || k.Command == nil || len(k.Parts) == 0 {
			return nil, fmt.Errorf("%s: block %d: id, command, parts and reason are required", path, i+1)
		}
		out = append(out, k)
	}
	return out, nil
}

// Compare compares each command of a played session.
func Compare(p *Played, known []*KnownDifference) []CommandReport {
	norm := [2]*normalizer{newNormalizer(p.Client[Kubectl], p.Home[Kubectl], p.Server[Kubectl]),
		newNormalizer(p.Client[Ours], p.Home[Ours], p.Server[Ours])}
	var out []CommandReport
	for _, pc := range p.Commands {
		var texts [2]map[string]string
		for side, r := range pc.Results {
			n := norm[side]
			n.forget()
			// The requests first: what a command printed names what it sent.
			texts[side] = map[string]string{"requests": n.requests(r.Requests)}
			texts[side]["exit"] = fmt.Sprintf("exit code %d\n", r.Code)
			if r.TimedOut {
				texts[side]["exit"] += "(timed out)\n"
			}
			texts[side]["stdout"] = n.output(r.Stdout)
			texts[side]["stderr"] = n.output(r.Stderr)
		}
		cr := CommandReport{Session: p.Session.Name, Mode: p.Session.Mode(), Step: pc.Step, Verdict: Identical}
		for _, part := range Parts {
			a, b := texts[Kubectl][part], texts[Ours][part]
			if a == b {
				continue
			}
			d := PartDiff{Part: part, Diff: unifiedDiff(a, b, 2)}
			for _, k := range known {
				if k.explains(pc.Step, d) {
					d.Known = k.ID
					break
				}
			}
			cr.Diffs = append(cr.Diffs, d)
		}
		for _, d := range cr.Diffs {
			switch {
			case d.Known == "":
				cr.Verdict = Different
			case cr.Verdict == Identical:
				cr.Verdict = Known
			}
		}
		out = append(out, cr)
	}
	return out
}

// unifiedDiff is a unified diff of two texts' lines (kubectl's as -, ours as
// +) with context lines around each change.
func unifiedDiff(a, b string, context int) string {
	al, bl := splitLines(a), splitLines(b)
	ops := diffLines(al, bl)
	var out strings.Builder
	out.WriteString("--- kubectl\n+++ ours\n")
	// Hunks: runs of changes with up to context equal lines around them.
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-context, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			// An equal run: end the hunk if it is longer than 2*context.
			j := end
			for j < len(ops) && ops[j].kind == ' ' {
				j++
			}
			if j == len(ops) || j-end > 2*context {
				end = min(end+context, j)
				break
			}
			end = j
		}
		aLine, bLine := 1, 1
		for _, op := range ops[:start] {
			if op.kind != '+' {
				aLine++
			}
			if op.kind != '-' {
				bLine++
			}
		}
		var na, nb int
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				na++
			}
			if op.kind != '-' {
				nb++
			}
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", aLine, na, bLine, nb)
		for _, op := range ops[start:end] {
			fmt.Fprintf(&out, "%c%s\n", op.kind, op.line)
		}
		i = end
	}
	return out.String()
}

// splitLines splits text into lines, marking a last line without its
// newline as kubectl's diff does.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	if lines[len(lines)-1] == "" {
		return lines[:len(lines)-1]
	}
	lines[len(lines)-1] += "⏎ (no newline at the end)"
	return lines
}

type diffOp struct {
	kind byte // ' ', '-' or '+'
	line string
}

// maxDiffCells bounds the longest-common-subsequence table; past it the
// middle of the two texts is shown as removed and added whole.
const maxDiffCells = 4 << 20

// diffLines is an edit script from a to b: their common prefix and suffix,
// and a longest common subsequence of the middle.
func diffLines(a, b []string) []diffOp {
	var ops []diffOp
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		ops = append(ops, diffOp{' ', a[p]})
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	if len(ma)*len(mb) > maxDiffCells {
		for _, l := range ma {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range mb {
			ops = append(ops, diffOp{'+', l})
		}
	} else {
		// lcs[i][j]: the longest common subsequence of ma[i:] and mb[j:].
		lcs := make([][]int32, len(ma)+1)
		for i := range lcs {
			lcs[i] = make([]int32, len(mb)+1)
		}
		for i := len(ma) - 1; i >= 0; i-- {
			for j := len(mb) - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(ma) || j < len(mb) {
			switch {
			case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
				ops = append(ops, diffOp{' ', ma[i]})
				i++
				j++
			case i < len(ma) && (j == len(mb) || lcs[i+1][j] >= lcs[i][j+1]):
				ops = append(ops, diffOp{'-', ma[i]})
				i++
			default:
				ops = append(ops, diffOp{'+', mb[j]})
				j++
			}
		}
	}
	for _, l := range a[len(a)-s:] {
		ops = append(ops, diffOp{' ', l})
	}
	return ops
}

// PlayAndCompare plays sessions, parallel at a time, and compares each; the
// reports come in the sessions' order.
func PlayAndCompare(ctx context.Context, sessions []*Session, opt Options, known []*KnownDifference, parallel int) ([]CommandReport, error) {
	results := make([][]CommandReport, len(sessions))
	errs := make([]error, len(sessions))
	sem := make(chan struct{}, max(parallel, 1))
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			p, err := Play(ctx, s, opt)
			if err != nil {
				errs[i] = fmt.Errorf("session %s: %w", s.Name, err)
				return
			}
			results[i] = Compare(p, known)
		}()
	}
	wg.Wait()
	var out []CommandReport
	for _, r := range results {
		out = append(out, r...)
	}
	return out, errors.Join(errs...)
}

package kubectl

import (
	"fmt"
	"io"
	"math/rand"
	"sort"
	"strings"
	"time"
)

// This file owns the text kubectl diff shows: kubectl writes the live and
// the merged objects into two temporary directories and runs `diff -u -N`
// over them; printDiff does the same without files or a program:
// unifiedDiff produces GNU diff's unified output for one file of each (its
// header lines, hunks of three lines of context, changes as the shortest
// edit script of lines, Myers's). Reading the manifests and the dry-run
// apply that yields each merged object are apply's (kubectl diff -f wires
// them to printDiff).

// diffedObject is one object kubectl diff compares: its file name
// (kubectl's "apps.v1.Deployment.default.web") and its live and merged
// forms (live nil: not on the server yet).
type diffedObject struct {
	name         string
	live, merged map[string]any
}

// diffMasks are kubectl's replacements of a Secret's data values.
const (
	diffMask       = "***"
	diffMaskBefore = "*** (before)"
	diffMaskAfter  = "*** (after)"
)

// printDiff writes kubectl diff's output for objs: each object's live and
// merged YAML (managedFields omitted unless shown, a Secret's data
// masked), compared as diff compares kubectl's LIVE-* and MERGED-*
// directories, in file-name order. It returns kubectl's exit 1 (and prints
// nothing more) when anything differs.
func (c *Cmd) printDiff(objs []diffedObject, showManagedFields bool) error {
	liveDir := fmt.Sprintf("/tmp/LIVE-%d", rand.Uint32())
	mergedDir := fmt.Sprintf("/tmp/MERGED-%d", rand.Uint32())
	stamp := time.Now().Format("2006-01-02 15:04:05.000000000 -0700")
	objs = append([]diffedObject(nil), objs...)
	sort.SliceStable(objs, func(i, j int) bool { return objs[i].name < objs[j].name })
	differs := false
	for _, o := range objs {
		from, to := o.live, o.merged
		if !showManagedFields {
			from, to = withoutManagedFields(from), withoutManagedFields(to)
		}
		if stringAt(to, "apiVersion") == "v1" && stringAt(to, "kind") == "Secret" {
			from, to = maskSecretData(from, to)
		}
		a, err := yamlText(from)
		if err != nil {
			return err
		}
		b, err := yamlText(to)
		if err != nil {
			return err
		}
		if d := unifiedDiff(diffFile{liveDir + "/" + o.name, stamp, a}, diffFile{mergedDir + "/" + o.name, stamp, b}); d != "" {
			differs = true
			io.WriteString(c.Stdout, d)
		}
	}
	if differs {
		return &exitError{code: 1, err: errSilent}
	}
	return nil
}

// yamlText is an object as kubectl diff's printer writes it; nothing for
// none.
func yamlText(obj map[string]any) (string, error) {
	if obj == nil {
		return "", nil
	}
	data, err := toYAML(obj)
	return string(data), err
}

// maskSecretData replaces the Secret's data values as kubectl's Masker
// does: "***" where the same or on one side only, "*** (before)" and "***
// (after)" where they differ.
func maskSecretData(from, to map[string]any) (map[string]any, map[string]any) {
	fd, td := obj(from, "data"), obj(to, "data")
	mf, mt := map[string]any{}, map[string]any{}
	for k, v := range fd {
		mf[k] = diffMask
		if tv, ok := td[k]; ok {
			if v != tv {
				mf[k], mt[k] = diffMaskBefore, diffMaskAfter
			} else {
				mt[k] = diffMask
			}
		}
	}
	for k := range td {
		if _, ok := fd[k]; !ok {
			mt[k] = diffMask
		}
	}
	set := func(o, data map[string]any) map[string]any {
		if o == nil || !has(o, "data") {
			return o
		}
		out := make(map[string]any, len(o))
		for k, v := range o {
			out[k] = v
		}
		out["data"] = data
		return out
	}
	return set(from, mf), set(to, mt)
}

// diffFile is one side of a compared file: its path and its time as diff
// prints them, and its lines (nil for a file that does not exist, which -N
// treats as empty).
type diffFile struct {
	path, time string
	text       string
}

// diffContext is -u's lines of context around each change.
const diffContext = 3

// unifiedDiff is `diff -u -N a.path b.path`'s output for two files, "" if
// they are the same.
func unifiedDiff(a, b diffFile) string {
	x, y := splitLines(a.text), splitLines(b.text)
	ops := myers(x, y)
	hunks := groupHunks(ops)
	if len(hunks) == 0 {
		return ""
	}
	var out strings.Builder
	fmt.Fprintf(&out, "diff -u -N %s %s\n", a.path, b.path)
	fmt.Fprintf(&out, "--- %s\t%s\n", a.path, a.time)
	fmt.Fprintf(&out, "+++ %s\t%s\n", b.path, b.time)
	for _, h := range hunks {
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(h.x0, h.x1), hunkRange(h.y0, h.y1))
		for _, op := range ops[h.op0:h.op1] {
			var line string
			if op.kind == '+' {
				line = y[op.y]
			} else {
				line = x[op.x]
			}
			out.WriteByte(op.kind)
			out.WriteString(line)
			if !strings.HasSuffix(line, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
	}
	return out.String()
}

// splitLines splits text after each newline; the last line may have none.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diffOp is one line of the edit script: kept (' '), deleted ('-') or
// inserted ('+'), with its index in x or y.
type diffOp struct {
	kind byte
	x, y int
}

// myers is the shortest edit script from x to y (Myers's greedy
// algorithm), each run of changes its deletions before its insertions, as
// GNU diff prints them.
func myers(x, y []string) []diffOp {
	n, m := len(x), len(y)
	max := n + m
	v := make([]int, 2*max+2)
	var trace [][]int
	for d := 0; d <= max; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var i int
			if k == -d || k != d && v[max+k-1] < v[max+k+1] {
				i = v[max+k+1]
			} else {
				i = v[max+k-1] + 1
			}
			j := i - k
			for i < n && j < m && x[i] == y[j] {
				i, j = i+1, j+1
			}
			v[max+k] = i
			if i >= n && j >= m {
				return backtrack(trace, x, y, d, max)
			}
		}
	}
	return nil
}

// backtrack walks the trace back from the end to the start and returns the
// script in order.
func backtrack(trace [][]int, x, y []string, d, max int) []diffOp {
	var rev []diffOp
	i, j := len(x), len(y)
	for ; d > 0; d-- {
		prev := trace[d]
		k := i - j
		var pk int
		if k == -d || k != d && prev[max+k-1] < prev[max+k+1] {
			pk = k + 1
		} else {
			pk = k - 1
		}
		pi := prev[max+pk]
		pj := pi - pk
		for i > pi && j > pj {
			i, j = i-1, j-1
			rev = append(rev, diffOp{' ', i, j})
		}
		if i == pi {
			j--
			rev = append(rev, diffOp{'+', i, j})
		} else {
			i--
			rev = append(rev, diffOp{'-', i, j})
		}
	}
	for i > 0 && j > 0 {
		i, j = i-1, j-1
		rev = append(rev, diffOp{' ', i, j})
	}
	ops := make([]diffOp, len(rev))
	for k := range rev {
		ops[k] = rev[len(rev)-1-k]
	}
	// Each run of changes: deletions first.
	for s := 0; s < len(ops); {
		if ops[s].kind == ' ' {
			s++
			continue
		}
		e := s
		for e < len(ops) && ops[e].kind != ' ' {
			e++
		}
		run := make([]diffOp, 0, e-s)
		for _, op := range ops[s:e] {
			if op.kind == '-' {
				run = append(run, op)
			}
		}
		for _, op := range ops[s:e] {
			if op.kind == '+' {
				run = append(run, op)
			}
		}
		copy(ops[s:e], run)
		s = e
	}
	return ops
}

// hunk is a range of the script and the lines of x and y it spans.
type hunk struct {
	op0, op1       int
	x0, x1, y0, y1 int
}

// groupHunks gathers the changes with diffContext lines around each,
// changes closer than twice that in one hunk.
func groupHunks(ops []diffOp) []hunk {
	var hunks []hunk
	for i := 0; i < len(ops); i++ {
		if ops[i].kind == ' ' {
			continue
		}
		start := max(i-diffContext, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			same := end
			for same < len(ops) && ops[same].kind == ' ' {
				same++
			}
			if same == len(ops) || same-end > 2*diffContext {
				end = min(end+diffContext, len(ops))
				break
			}
			end = same
		}
		h := hunk{op0: start, op1: end}
		h.x0, h.y0 = lineAt(ops, start)
		h.x1, h.y1 = lineAt(ops, end)
		hunks = append(hunks, h)
		i = end - 1
	}
	return hunks
}

// lineAt is the lines of x and y before the script's op i.
func lineAt(ops []diffOp, i int) (int, int) {
	x, y := 0, 0
	for _, op := range ops[:i] {
		switch op.kind {
		case ' ':
			x, y = x+1, y+1
		case '-':
			x++
		case '+':
			y++
		}
	}
	return x, y
}

// hunkRange is a hunk's start,length as -u prints it: "l" for one line,
// "l,s" otherwise, an empty range at the line before it.
func hunkRange(from, to int) string {
	switch to - from {
	case 0:
		return fmt.Sprintf("%d,0", from)
	case 1:
		return fmt.Sprint(from + 1)
	}
	return fmt.Sprintf("%d,%d", from+1, to-from)
}

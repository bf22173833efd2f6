package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A count is how the answers of one category compared.
type count struct{ total, identical, known int }

func (c count) different() int { return c.total - c.identical - c.known }

func percent(part, total int) string {
	if total == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(part)/float64(total))
}

// The score's dimensions.
var dimensions = []string{"verb", "kind", "representation", "input"}

// A tally counts answers per category and groups the differences.
type tally struct {
	all    count
	by     map[string]map[string]*count // dimension → category → count
	groups map[string]*group            // signature → its difference
	known  map[string]int               // known difference id → answers
	// explained lists every answer a known difference explained: where, which
	// and what differed (known.txt, to check the rules hide nothing else).
	explained []string
}

// A group is one difference (a signature) and where it was first seen.
type group struct {
	sig     string
	count   int
	session Session // the first session that showed it
	index   int     // its step there
	result  stepResult
	min     *minimized
}

func newTally() *tally {
	t := &tally{by: map[string]map[string]*count{}, groups: map[string]*group{}, known: map[string]int{}}
	for _, d := range dimensions {
		t.by[d] = map[string]*count{}
	}
	return t
}

// categories are a step's category in each dimension.
func categories(s Step) [4]string {
	input := "well-formed"
	if s.Bad != "" {
		input = "bad: " + s.Bad
	}
	repr := s.Repr
	if repr == "" {
		repr = reprJSON
	}
	return [4]string{s.Verb, s.Kind, repr, input}
}

// add counts a played session's answers.
func (t *tally) add(s Session, results []stepResult) {
	for i, r := range results {
		cats := categories(r.Step)
		counts := []*count{&t.all}
		for j, d := range dimensions {
			c := t.by[d][cats[j]]
			if c == nil {
				c = &count{}
				t.by[d][cats[j]] = c
			}
			counts = append(counts, c)
		}
		for _, c := range counts {
			c.total++
			switch {
			case r.identical():
				c.identical++
			case r.Known != nil:
				c.known++
			}
		}
		switch {
		case r.identical():
		case r.Known != nil:
			for _, id := range r.Known {
				t.known[id]++
			}
			paths := make([]string, len(r.Diffs))
			for j, d := range r.Diffs {
				paths[j] = fmt.Sprintf("%s (kubeplay %.60s, kube %.60s)", d.Path, d.Kubeplay, d.Kube)
			}
			t.explained = append(t.explained, fmt.Sprintf("session %d step %d: %s: %s @ %s",
				s.Index, i, strings.Join(r.Known, ","), r.Step.Label(), strings.Join(paths, " ")))
		default:
			sig := signature(r)
			g := t.groups[sig]
			if g == nil {
				g = &group{sig: sig, session: s, index: i, result: r}
				t.groups[sig] = g
			} else if i < g.index {
				g.session, g.index, g.result = s, i, r
			}
			g.count++
		}
	}
}

// sortedGroups are the differences, the most frequent first.
func (t *tally) sortedGroups() []*group {
	var out []*group
	for _, g := range t.groups {
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b *group) int {
		return cmp.Or(b.count-a.count, strings.Compare(a.sig, b.sig))
	})
	return out
}

// printScore writes the score table: everything, then per category.
func (t *tally) printScore(w io.Writer) {
	fmt.Fprintf(w, "| category | answers | identical | known | different | identical | identical or known |\n")
	fmt.Fprintf(w, "|---|--:|--:|--:|--:|--:|--:|\n")
	row := func(name string, c count) {
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %s | %s |\n", name, c.total, c.identical, c.known, c.different(),
			percent(c.identical, c.total), percent(c.identical+c.known, c.total))
	}
	row("**all**", t.all)
	for _, d := range dimensions {
		names := make([]string, 0, len(t.by[d]))
		for n := range t.by[d] {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			row(d+": "+n, *t.by[d][n])
		}
	}
}

// run describes a run for the report's head.
type runInfo struct {
	seed                  uint64
	sessions, steps       int
	kubeplay, kube        string // what each side was
	elapsed, minimizeTime string
}

// writeReport writes the whole report in Markdown.
func (t *tally) writeReport(w io.Writer, info runInfo) {
	fmt.Fprintf(w, "# Fidelity: kubeplay against kube-apiserver\n\n")
	fmt.Fprintf(w, "Seed %d, %d sessions of %d steps (`make fidelity SEED=%d N=%d`); kubeplay: %s; reference: %s.\n",
		info.seed, info.sessions, info.steps, info.seed, info.sessions, info.kubeplay, info.kube)
	fmt.Fprintf(w, "Played in %s; differences minimized in %s.\n\n", info.elapsed, info.minimizeTime)
	fmt.Fprintf(w, "**%d answers: %d identical (%s), %d known differences, %d different (%d distinct).**\n\n",
		t.all.total, t.all.identical, percent(t.all.identical, t.all.total), t.all.known, t.all.different(), len(t.groups))
	fmt.Fprintf(w, "## Score\n\n")
	t.printScore(w)
	groups := t.sortedGroups()
	fmt.Fprintf(w, "\n## Differences (%d)\n\n", len(groups))
	for i, g := range groups {
		fmt.Fprintf(w, "### %d. %s\n\n", i+1, g.sig)
		fmt.Fprintf(w, "%d answers; first in session %d (seed %d), step %d", g.count, g.session.Index, g.session.Seed, g.index)
		shown, result := g.session, g.result
		shown.Steps = shown.Steps[:g.index+1]
		if g.min != nil {
			fmt.Fprintf(w, "; %s", g.min.summary())
			if g.min.Reproduced {
				shown = g.min.Session
				result = g.min.Results[len(g.min.Results)-1]
			}
		}
		fmt.Fprintf(w, ".\n\n```\n")
		for j, s := range shown.Steps {
			fmt.Fprintf(w, "%d. %s\n", j, renderStep(s))
		}
		fmt.Fprintf(w, "```\n\n")
		for _, d := range result.Diffs {
			fmt.Fprintf(w, "- `%s`: kubeplay `%s`, kube `%s`\n", d.Path, d.Kubeplay, d.Kube)
		}
		fmt.Fprintf(w, "\n<details><summary>both answers, normalized</summary>\n\n```\nkubeplay: %s\n\nkube: %s\n```\n</details>\n\n",
			cut(renderIndented(result.Answers[sideKubeplay]), 6000), cut(renderIndented(result.Answers[sideKube]), 6000))
	}
	fmt.Fprintf(w, "## Known differences\n\nExcluded by rule (tools/fidelity/known.go), each with its reason; known.txt beside this report lists every answer each explained.\n\n| id | answers | reason |\n|---|--:|---|\n")
	for _, k := range knownDifferences {
		fmt.Fprintf(w, "| %s | %d | %s |\n", k.ID, t.known[k.ID], k.Reason)
	}
}

// renderStep writes a request on one line or a few: method, URL, headers and
// body, placeholders as they are.
func renderStep(s Step) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", s.Method, s.URL(func(v string) string { return v }))
	for _, h := range s.Header {
		fmt.Fprintf(&b, "\n     %s: %s", h[0], h[1])
	}
	if s.Body != "" {
		body := s.Body
		if strings.ContainsFunc(body, func(r rune) bool { return r != '\n' && unicode.IsControl(r) || r == utf8.RuneError }) {
			body = strconv.Quote(body)
		}
		if s.BodyAs != "" {
			body = "(as " + s.BodyAs + ") " + body
		}
		fmt.Fprintf(&b, "\n     %s", cut(strings.ReplaceAll(strings.TrimSpace(body), "\n", "\n     "), 800))
	}
	return b.String()
}

func cut(s string, max int) string {
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

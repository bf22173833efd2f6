package kubectlfidelity

// This file owns the report: per session and command, identical or the
// diff; per command (get, create deployment, …) the count identical and the
// parts that differ; the known differences met, with their reasons; the
// score last.

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Score counts commands by verdict.
type Score struct{ Total, Identical, Known int }

func (s *Score) add(verdict string) {
	s.Total++
	switch verdict {
	case Identical:
		s.Identical++
	case Known:
		s.Known++
	}
}

// Different counts the commands that differ beyond known differences.
func (s Score) Different() int { return s.Total - s.Identical - s.Known }

// String is the score's line: "N/M commands identical".
func (s Score) String() string {
	pct := 0.0
	if s.Total > 0 {
		pct = 100 * float64(s.Identical) / float64(s.Total)
	}
	return fmt.Sprintf("%d/%d commands identical (%.1f%%); %d more differ only by known differences; %d differ",
		s.Identical, s.Total, pct, s.Known, s.Different())
}

// Tally scores reports.
func Tally(reports []CommandReport) Score {
	var s Score
	for _, r := range reports {
		s.add(r.Verdict)
	}
	return s
}

// CommandGroup is what a command line is counted under: its command's words
// (get, create deployment, rollout status, config view), or "create -f".
func CommandGroup(args []string) string {
	var words []string
	for i := 0; i < len(args) && len(words) < 2; i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if !strings.Contains(a, "=") && (a == "-n" || a == "--namespace" || a == "-f" || a == "-o" || a == "-l") {
				i++
			}
			continue
		}
		words = append(words, a)
	}
	if len(words) == 0 {
		return "(none)"
	}
	switch words[0] {
	case "create", "rollout", "config", "auth", "set":
		if len(words) == 2 {
			return words[0] + " " + words[1]
		}
		if words[0] == "create" {
			return "create -f"
		}
	}
	return words[0]
}

// WriteReport writes the report of reports (in session order); diffs longer
// than maxLines lines are cut.
func WriteReport(w io.Writer, reports []CommandReport, known []*KnownDifference, maxLines int) {
	type group struct {
		name  string
		score Score
		parts map[string]int
		sigs  map[string]int // a difference's first changed lines → commands
	}
	groups := map[string]*group{}
	knownUse := map[string]int{}
	session := ""
	for i, r := range reports {
		if r.Session != session {
			session = r.Session
			var s Score
			for _, o := range reports[i:] {
				if o.Session == session {
					s.add(o.Verdict)
				}
			}
			fmt.Fprintf(w, "\n== %s (%s): %d/%d identical\n", session, r.Mode, s.Identical, s.Total)
		}
		g := groups[CommandGroup(r.Step.Args)]
		if g == nil {
			g = &group{name: CommandGroup(r.Step.Args), parts: map[string]int{}, sigs: map[string]int{}}
			groups[g.name] = g
		}
		g.score.add(r.Verdict)
		var parts []string
		for _, d := range r.Diffs {
			if d.Known != "" {
				parts = append(parts, d.Part+": known "+d.Known)
				knownUse[d.Known]++
			} else {
				parts = append(parts, d.Part)
				g.parts[d.Part]++
				g.sigs[d.Part+": "+signature(d.Diff)]++
			}
		}
		switch r.Verdict {
		case Identical:
			fmt.Fprintf(w, "ok     %s\n", r.Step.Text)
		case Known:
			fmt.Fprintf(w, "known  %s   [%s]\n", r.Step.Text, strings.Join(parts, ", "))
		default:
			fmt.Fprintf(w, "DIFF   %s   [%s]  (line %d)\n", r.Step.Text, strings.Join(parts, ", "), r.Step.Line)
			for _, d := range r.Diffs {
				if d.Known != "" {
					continue
				}
				fmt.Fprintf(w, "    %s:\n", d.Part)
				lines := strings.Split(strings.TrimRight(d.Diff, "\n"), "\n")
				if len(lines) > maxLines {
					lines = append(lines[:maxLines], fmt.Sprintf("… (%d more lines)", len(lines)-maxLines))
				}
				for _, l := range lines {
					fmt.Fprintf(w, "      %s\n", l)
				}
			}
		}
	}

	var list []*group
	for _, g := range groups {
		list = append(list, g)
	}
	slices.SortFunc(list, func(a, b *group) int {
		return cmp.Or(cmp.Compare(b.score.Different(), a.score.Different()), cmp.Compare(a.name, b.name))
	})
	fmt.Fprintf(w, "\nBy command (identical/total, +those differing only by known differences; parts that differ,\n"+
		"most differing first; under each, its most frequent differences by their first removed\n"+
		"(kubectl's) and added (ours) lines):\n")
	for _, g := range list {
		var parts []string
		for _, p := range Parts {
			if n := g.parts[p]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", p, n))
			}
		}
		known := ""
		if g.score.Known > 0 {
			known = fmt.Sprintf(" +%d known", g.score.Known)
		}
		fmt.Fprintf(w, "  %-22s %3d/%-3d%-9s %s\n", g.name, g.score.Identical, g.score.Total, known, strings.Join(parts, ", "))
		sigs := make([]string, 0, len(g.sigs))
		for sig := range g.sigs {
			sigs = append(sigs, sig)
		}
		slices.SortFunc(sigs, func(a, b string) int { return cmp.Or(cmp.Compare(g.sigs[b], g.sigs[a]), cmp.Compare(a, b)) })
		for _, sig := range sigs[:min(len(sigs), 3)] {
			fmt.Fprintf(w, "      %dx %s\n", g.sigs[sig], sig)
		}
	}
	if len(knownUse) > 0 {
		fmt.Fprintf(w, "\nKnown differences met:\n")
		for _, k := range known {
			if n := knownUse[k.ID]; n > 0 {
				fmt.Fprintf(w, "  %s (%d): %s\n", k.ID, n, k.Reason)
			}
		}
	}
	fmt.Fprintf(w, "\nScore: %s\n", Tally(reports))
}

// signature is a diff's first removed and first added lines, cut: what
// groups the differences of a command in the summary.
func signature(diff string) string {
	var minus, plus string
	for _, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "+++ "):
		case minus == "" && strings.HasPrefix(line, "-"):
			minus = line
		case plus == "" && strings.HasPrefix(line, "+"):
			plus = line
		}
	}
	cut := func(s string) string {
		if r := []rune(s); len(r) > 90 {
			return string(r[:90]) + "…"
		}
		return s
	}
	return strings.TrimSpace(cut(minus) + "  " + cut(plus))
}

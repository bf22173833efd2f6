package kubectlfidelity

// This file owns the gate: the commands already identical that `make test`
// keeps so (testdata/identical.txt), one a line as "SESSION:LINE  COMMAND".
// `make kubectl-fidelity KUBECTL_FIDELITY_FLAGS=-write-gate` rewrites it from
// a full run: every identical command of the API-only sessions (a simulated
// cluster's settle too slowly for make test).

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// GateEntry is one gated command: where it is and what it says.
type GateEntry struct {
	Session string
	Line    int
	Text    string
}

func (g GateEntry) String() string { return fmt.Sprintf("%s:%d  %s", g.Session, g.Line, g.Text) }

// LoadGate reads a gate file; lines starting with # are comments.
func LoadGate(path string) ([]GateEntry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []GateEntry
	for i, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		where, text, ok := strings.Cut(line, "  ")
		session, lineNo, ok2 := strings.Cut(where, ":")
		n, err := strconv.Atoi(lineNo)
		if !ok || !ok2 || err != nil {
			return nil, fmt.Errorf("%s:%d: want SESSION:LINE  COMMAND, got %q", path, i+1, line)
		}
		out = append(out, GateEntry{Session: session, Line: n, Text: text})
	}
	return out, nil
}

// WriteGate writes the identical commands of the API-only sessions'
// reports as a gate file.
func WriteGate(path string, reports []CommandReport) error {
	var b strings.Builder
	b.WriteString("# The commands of the page's kubectl already identical to kubectl 1.32's, which\n" +
		"# TestLEARN_1_KubectlFidelity keeps so; written by make kubectl-fidelity\n" +
		"# KUBECTL_FIDELITY_FLAGS=-write-gate (API-only sessions only).\n")
	for _, r := range reports {
		if r.Verdict == Identical && r.Mode == "api-only" {
			fmt.Fprintln(&b, GateEntry{Session: r.Session, Line: r.Step.Line, Text: r.Step.Text})
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// GateSessions are the sessions the gate's entries are in, in name order.
func GateSessions(gate []GateEntry) []string {
	var names []string
	for _, g := range gate {
		if !slices.Contains(names, g.Session) {
			names = append(names, g.Session)
		}
	}
	slices.Sort(names)
	return names
}

// CheckGate lists the gated commands that are no longer identical (or
// explained by known differences), and the entries that name no command of
// the sessions played (the session changed: write the gate again).
func CheckGate(gate []GateEntry, reports []CommandReport) []string {
	byPlace := map[string]CommandReport{}
	for _, r := range reports {
		byPlace[fmt.Sprintf("%s:%d", r.Session, r.Step.Line)] = r
	}
	var problems []string
	for _, g := range gate {
		r, ok := byPlace[fmt.Sprintf("%s:%d", g.Session, g.Line)]
		switch {
		case !ok || r.Step.Text != g.Text:
			problems = append(problems, fmt.Sprintf("%s: no such command in the session (write the gate again)", g))
		case r.Verdict == Different:
			var parts []string
			for _, d := range r.Diffs {
				if d.Known == "" {
					parts = append(parts, d.Part+":\n"+d.Diff)
				}
			}
			problems = append(problems, fmt.Sprintf("%s: no longer identical\n%s", g, strings.Join(parts, "")))
		}
	}
	return problems
}

package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// result is one test's outcome as ginkgo's junit report gives it.
type result struct {
	name    string // the test's full name, as the conformance list spells it
	passed  bool
	failure string // the failure's first line
}

type junitSuites struct {
	Suites []struct {
		Cases []struct {
			Name    string `xml:"name,attr"`
			Status  string `xml:"status,attr"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// readJUnit reads ginkgo's junit report: its test cases are named
// "[It] FULL NAME" (suite nodes "[SynchronizedBeforeSuite]" and the like,
// which are left out unless they failed). Tests skipped (all those a focus
// leaves out) or stopped by an interrupt are left out.
func readJUnit(path string) ([]result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc junitSuites
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var out []result
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if c.Status == "interrupted" || c.Skipped != nil {
				continue // skipped, or stopped by Ctrl-C before it finished: not run
			}
			name, isIt := strings.CutPrefix(c.Name, "[It] ")
			r := result{name: name}
			switch {
			case c.Failure != nil:
				r.failure = firstLine(c.Failure.Message, c.Failure.Text)
			case c.Error != nil:
				r.failure = firstLine(c.Error.Message, c.Error.Text)
			default:
				r.passed = true
			}
			if !isIt && r.failure == "" {
				continue
			}
			out = append(out, r)
		}
	}
	return out, nil
}

func firstLine(texts ...string) string {
	for _, t := range texts {
		for _, l := range strings.Split(t, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				return l
			}
		}
	}
	return "(no message)"
}

// sigRow is one line of the per-SIG table.
type sigRow struct {
	sig                              string
	selected, passed, failed, notRun int
}

// tally counts each selected test once, by its result (a test the report does
// not name did not run: the suite stopped or its focus missed it).
func tally(selected []conformanceTest, results []result) ([]sigRow, []result) {
	// A junit name is the full name followed by the spec's labels in
	// brackets: index it under both. A later report's result wins.
	byName := map[string]result{}
	for _, r := range results {
		if i := strings.LastIndex(r.name, " ["); i > 0 && strings.HasSuffix(r.name, "]") {
			byName[r.name[:i]] = r
		}
		byName[r.name] = r
	}
	rows := map[string]*sigRow{}
	var failed []result
	for _, t := range selected {
		s := sig(t.Codename)
		row := rows[s]
		if row == nil {
			row = &sigRow{sig: s}
			rows[s] = row
		}
		row.selected++
		r, ok := byName[t.Codename]
		switch {
		case !ok:
			row.notRun++
		case r.passed:
			row.passed++
		default:
			row.failed++
			r.name = t.Codename // without the junit name's labels
			failed = append(failed, r)
		}
	}
	// Suite-level failures (a BeforeSuite that failed) name no test but
	// explain the rest.
	for _, r := range results {
		if r.failure != "" && strings.HasPrefix(r.name, "[") && !strings.HasPrefix(r.name, "[sig-") {
			failed = append(failed, r)
		}
	}
	out := make([]sigRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].selected != out[j].selected {
			return out[i].selected > out[j].selected
		}
		return out[i].sig < out[j].sig
	})
	sort.Slice(failed, func(i, j int) bool { return failed[i].name < failed[j].name })
	return out, failed
}

func printTable(w io.Writer, rows []sigRow) (passed, selected int) {
	fmt.Fprintf(w, "%-16s %8s %7s %7s %8s\n", "SIG", "selected", "passed", "failed", "not run")
	var t sigRow
	for _, r := range rows {
		fmt.Fprintf(w, "%-16s %8d %7d %7d %8d\n", r.sig, r.selected, r.passed, r.failed, r.notRun)
		t.selected += r.selected
		t.passed += r.passed
		t.failed += r.failed
		t.notRun += r.notRun
	}
	fmt.Fprintf(w, "%-16s %8d %7d %7d %8d\n", "total", t.selected, t.passed, t.failed, t.notRun)
	return t.passed, t.selected
}

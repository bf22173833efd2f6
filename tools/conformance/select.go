package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// conformanceTest is one entry of e2e.test --list-conformance-tests.
type conformanceTest struct {
	Testname    string `json:"testname"`
	Codename    string `json:"codename"`
	Description string `json:"description"`
	File        string `json:"file"`
}

// text is what the exclusion rules read: the test's full ginkgo name, then
// its description with whitespace collapsed.
func (t conformanceTest) text() string {
	return t.Codename + " " + strings.Join(strings.Fields(t.Description), " ")
}

// serial says whether the test must run alone (ginkgo's Serial label, which
// the e2e framework writes into the name).
func (t conformanceTest) serial() bool {
	return strings.Contains(t.Codename, "[Serial]") || strings.Contains(t.Codename, "[Disruptive]")
}

// sig is the test's SIG from its name's first label, "other" without one.
func sig(name string) string {
	if m := sigRE.FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return "other"
}

var sigRE = regexp.MustCompile(`\[sig-([a-z0-9-]+)\]`)

// rule leaves out the tests whose text it matches, for its reason.
type rule struct {
	reason string
	re     *regexp.Regexp
}

// parseRules reads "REASON :: REGEXP" lines; blank lines and # comments are
// skipped. Regexps are case-insensitive.
func parseRules(r io.Reader) ([]rule, error) {
	var rules []rule
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		reason, expr, ok := strings.Cut(line, " :: ")
		if !ok || strings.TrimSpace(reason) == "" || strings.TrimSpace(expr) == "" {
			return nil, fmt.Errorf("line %d: want REASON :: REGEXP, got %q", n, line)
		}
		re, err := regexp.Compile("(?i)" + expr)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		rules = append(rules, rule{reason: strings.TrimSpace(reason), re: re})
	}
	return rules, sc.Err()
}

// selection is the suite split by the rules.
type selection struct {
	run      []conformanceTest
	excluded map[string][]conformanceTest // by reason of the first rule that matched
	reasons  []string                     // the rules' reasons, in their order
}

func selectTests(tests []conformanceTest, rules []rule) selection {
	s := selection{excluded: map[string][]conformanceTest{}}
	for _, r := range rules {
		s.reasons = append(s.reasons, r.reason)
	}
	for _, t := range tests {
		text := t.text()
		left := false
		for _, r := range rules {
			if r.re.MatchString(text) {
				s.excluded[r.reason] = append(s.excluded[r.reason], t)
				left = true
				break
			}
		}
		if !left {
			s.run = append(s.run, t)
		}
	}
	return s
}

func parseConformanceList(data []byte) ([]conformanceTest, error) {
	var tests []conformanceTest
	if err := yaml.Unmarshal(data, &tests); err != nil {
		return nil, err
	}
	return tests, nil
}

// focus is a ginkgo --focus regexp that matches exactly these tests: ginkgo
// matches it against the suite's description (e2e's RunSpecs), a space, then
// the test's full name.
func focus(tests []conformanceTest) string {
	parts := make([]string, len(tests))
	for i, t := range tests {
		parts[i] = regexp.QuoteMeta(t.Codename)
	}
	return "^Kubernetes e2e suite (" + strings.Join(parts, "|") + ")$"
}

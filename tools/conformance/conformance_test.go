package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestParseRulesRefusesMalformedLines(t *testing.T) {
	for _, in := range []string{"no separator here", " :: only a regexp", "a reason :: ", "bad regexp :: ("} {
		if _, err := parseRules(strings.NewReader(in)); err == nil {
			t.Errorf("%q: parsed without error", in)
		}
	}
}

// The repository's rules put well-known tests on the side their text says.
func TestExcludeRules(t *testing.T) {
	f, err := os.Open("exclude.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules, err := parseRules(f)
	if err != nil {
		t.Fatal(err)
	}
	tests := []conformanceTest{
		{Codename: "[sig-api-machinery] AdmissionWebhook [Privileged:ClusterAdmin] should mutate configmap [Conformance]",
			Description: "Register a mutating webhook configuration."},
		{Codename: "[sig-storage] ConfigMap should be consumable from pods in volume [NodeConformance] [Conformance]",
			Description: "Create a Pod with a ConfigMap volume."},
		{Codename: "[sig-network] Services should be able to create a functioning NodePort service [Conformance]",
			Description: "Create a TCP NodePort service, and test reachability from a client Pod."},
		{Codename: "[sig-cli] Kubectl client Update Demo should scale a replication controller [Conformance]"},
		{Codename: "[sig-apps] Deployment should run the lifecycle of a Deployment [Conformance]",
			Description: "When a Deployment is created it MUST succeed with the required number of replicas."},
		{Codename: "[sig-scheduling] SchedulerPreemption [Serial] validates basic preemption works [Conformance]",
			Description: "When a higher priority pod is created ... the scheduler MUST preempt a lower priority pod."},
	}
	sel := selectTests(tests, rules)
	var run []string
	for _, r := range sel.run {
		run = append(run, r.Codename)
	}
	if len(run) != 2 || run[0] != tests[4].Codename || run[1] != tests[5].Codename {
		t.Errorf("selected %q, want the Deployment and preemption tests", run)
	}
	if n := excludedCount(sel); n != 4 {
		t.Errorf("left out %d tests, want 4: %v", n, sel.excluded)
	}
	if !tests[5].serial() || tests[4].serial() {
		t.Error("serial(): only the [Serial] test is serial")
	}
}

func TestFocusMatchesExactlyTheSelection(t *testing.T) {
	tests := []conformanceTest{{Codename: "[sig-x] A (b) should work [Conformance]"}, {Codename: "[sig-x] A should"}}
	re := regexp.MustCompile(focus(tests))
	for _, name := range []string{"Kubernetes e2e suite " + tests[0].Codename, "Kubernetes e2e suite " + tests[1].Codename} {
		if !re.MatchString(name) {
			t.Errorf("focus misses %q", name)
		}
	}
	if re.MatchString("Kubernetes e2e suite [sig-x] A should also [Conformance]") || re.MatchString("Kubernetes e2e suite [sig-y] [sig-x] A should") {
		t.Error("focus matches a test it does not name")
	}
}

// Ginkgo's junit names carry "[It] " and the spec's labels; a test the report
// does not name, or names as interrupted, counts as not run; a failed suite
// node is listed.
func TestTallyFromJUnit(t *testing.T) {
	junit := `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="3"><testsuite name="Kubernetes e2e suite" tests="3">
<testcase name="[SynchronizedBeforeSuite]" status="passed"></testcase>
<testcase name="[It] [sig-apps] Job should delete a job [Conformance] [Conformance, sig-apps]" status="passed"></testcase>
<testcase name="[It] [sig-node] Pods should be updated [NodeConformance] [Conformance]" status="failed"><failure message="[FAILED] timed out&#xA;second line" type="failed">[FAILED] timed out
second line</failure></testcase>
<testcase name="[It] [sig-apps] Job should manage the lifecycle of a job [Conformance]" status="interrupted"><failure message="interrupted by user" type="interrupted">interrupted by user</failure></testcase>
<testcase name="[ReportAfterSuite] Kubernetes e2e suite report" status="failed"><failure message="">
report failed</failure></testcase>
</testsuite></testsuites>`
	path := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(path, []byte(junit), 0o644); err != nil {
		t.Fatal(err)
	}
	results, err := readJUnit(path)
	if err != nil {
		t.Fatal(err)
	}
	selected := []conformanceTest{
		{Codename: "[sig-apps] Job should delete a job [Conformance]"},
		{Codename: "[sig-apps] Job should manage the lifecycle of a job [Conformance]"},
		{Codename: "[sig-node] Pods should be updated [NodeConformance] [Conformance]"},
	}
	rows, failed := tally(selected, results)
	want := []sigRow{{sig: "apps", selected: 2, passed: 1, notRun: 1}, {sig: "node", selected: 1, failed: 1}}
	if len(rows) != 2 || rows[0] != want[0] || rows[1] != want[1] {
		t.Errorf("rows %+v, want %+v", rows, want)
	}
	if len(failed) != 2 || failed[0].failure != "report failed" || failed[1].failure != "[FAILED] timed out" {
		t.Errorf("failed %+v", failed)
	}
}

// A phase's report lists every other test of the suite as skipped: a test
// skipped in one report and run in another counts as run.
func TestTallyAcrossReports(t *testing.T) {
	dir := t.TempDir()
	write := func(name, status, body string) string {
		path := filepath.Join(dir, name)
		junit := `<testsuites><testsuite><testcase name="[It] [sig-apps] Daemon set [Serial] should run [Conformance] [Serial, Conformance]" status="` +
			status + `">` + body + `</testcase></testsuite></testsuites>`
		if err := os.WriteFile(path, []byte(junit), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	parallel, err := readJUnit(write("junit-parallel.xml", "skipped", `<skipped message="skipped"></skipped>`))
	if err != nil {
		t.Fatal(err)
	}
	serial, err := readJUnit(write("junit-serial.xml", "passed", ""))
	if err != nil {
		t.Fatal(err)
	}
	selected := []conformanceTest{{Codename: "[sig-apps] Daemon set [Serial] should run [Conformance]"}}
	for _, results := range [][]result{append(parallel, serial...), append(serial, parallel...)} {
		rows, _ := tally(selected, results)
		if len(rows) != 1 || rows[0].passed != 1 {
			t.Errorf("rows %+v, want the test passed", rows)
		}
	}
}

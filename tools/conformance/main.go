// Command conformance runs upstream's conformance tests (e2e.test, built by
// `make conformance` from k8s.io/kubernetes at kube's version) against
// kubeplay's native server with a simulated cluster: the [Conformance] tests
// that exclude.txt's rules leave in, the parallel ones under ginkgo --procs,
// then the [Serial] ones alone. It prints a table of results per SIG and
// "N/M passed" last, and keeps ginkgo's junit reports and the failures (name
// and first line) in -work. It exits 0 when the suite ran, whatever passed,
// and non-zero when the server or the suite could not start or was
// interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

func main() {
	var (
		e2e      = flag.String("e2e", "build/conformance/e2e.test", "upstream's e2e.test binary")
		ginkgo   = flag.String("ginkgo", "build/conformance/ginkgo", "the ginkgo CLI of e2e's ginkgo version")
		server   = flag.String("server", "build/conformance/playground", "kubeplay's native command (./playground built)")
		work     = flag.String("work", "build/conformance", "directory for the kubeconfig, logs and reports")
		exclude  = flag.String("exclude", "tools/conformance/exclude.txt", "the rules that leave tests out")
		procs    = flag.Int("procs", 6, "ginkgo processes for the tests that may run in parallel (they mostly wait: 6 keep 2 cores about half busy)")
		focusArg = flag.String("focus", "", "run only the selected tests whose names match this regexp (a quick partial run)")
		list     = flag.Bool("list", false, "print the selection (and each exclusion with its reason) and exit")
		phases   = flag.String("phases", "parallel,serial", "which phases to run: the tests that may run in parallel, the [Serial] ones")
		report   = flag.Bool("report", false, "run nothing: print the table from the junit reports (junit-*.xml) already in -work")
		speed    = flag.String("sim-speed", "1", "the simulated cluster's speed: 1, real time, as the tests time containers' commands "+
			"against wall-clock schedules (a CronJob's Job sleeping 300s must outlast its next minute)")
	)
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, config{e2e: *e2e, ginkgo: *ginkgo, server: *server, work: *work, exclude: *exclude,
		procs: *procs, focus: *focusArg, phases: *phases, list: *list, report: *report, speed: *speed}); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
}

type config struct {
	e2e, ginkgo, server, work, exclude, focus, phases, speed string
	procs                                                    int
	list, report                                             bool
}

func run(ctx context.Context, c config) error {
	if err := os.MkdirAll(c.work, 0o755); err != nil {
		return err
	}
	sel, err := loadSelection(c)
	if err != nil {
		return err
	}
	if c.list {
		printSelection(sel)
		return nil
	}
	if c.report {
		// Every junit-*.xml: a run cut short and finished by -focus on
		// what it left counts as one (a later file's result wins).
		reports, err := filepath.Glob(filepath.Join(c.work, "junit-*.xml"))
		if err != nil {
			return err
		}
		var results []result
		for _, r := range reports {
			rs, err := readJUnit(r)
			if err != nil {
				return err
			}
			results = append(results, rs...)
		}
		return summarize(c, sel, results)
	}
	var parallel, serial []conformanceTest
	for _, t := range sel.run {
		if t.serial() {
			serial = append(serial, t)
		} else {
			parallel = append(parallel, t)
		}
	}
	fmt.Printf("conformance: %d tests selected (%d parallel, %d serial); %d left out by %s\n",
		len(sel.run), len(parallel), len(serial), excludedCount(sel), c.exclude)

	kubeconfig, _ := filepath.Abs(filepath.Join(c.work, "kubeconfig"))
	srv, err := startServer(ctx, c, kubeconfig)
	if err != nil {
		return err
	}
	defer srv.stop()

	start := time.Now()
	var results []result
	for _, phase := range []struct {
		name  string
		tests []conformanceTest
		procs int
	}{{"parallel", parallel, c.procs}, {"serial", serial, 1}} {
		if len(phase.tests) == 0 || !strings.Contains(","+c.phases+",", ","+phase.name+",") {
			continue
		}
		report := filepath.Join(c.work, "junit-"+phase.name+".xml")
		os.Remove(report)
		t0 := time.Now()
		fmt.Printf("conformance: running %d %s tests (--procs %d); log in %s\n", len(phase.tests), phase.name, phase.procs,
			filepath.Join(c.work, "ginkgo-"+phase.name+".log"))
		runErr := runGinkgo(ctx, c, phase.name, phase.tests, phase.procs, kubeconfig, report)
		rs, err := readJUnit(report)
		if err != nil {
			// No report: the suite itself did not run.
			return fmt.Errorf("%s tests: %v (ginkgo: %v)", phase.name, err, runErr)
		}
		fmt.Printf("conformance: %s tests done in %s\n", phase.name, time.Since(t0).Round(time.Second))
		results = append(results, rs...)
		if ctx.Err() != nil {
			break
		}
		if !srv.alive() {
			return fmt.Errorf("the server exited during the %s tests; see %s", phase.name, srv.logPath)
		}
	}

	fmt.Printf("\nconformance: ran in %s\n", time.Since(start).Round(time.Second))
	if err := summarize(c, sel, results); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return errors.New("interrupted: the tests it stopped count as not run")
	}
	return nil
}

// summarize writes failures.txt and prints the table, "N/M passed" last.
func summarize(c config, sel selection, results []result) error {
	rows, failed := tally(sel.run, results)
	if err := writeFailures(filepath.Join(c.work, "failures.txt"), failed); err != nil {
		return err
	}
	fmt.Printf("conformance: junit reports and failures.txt in %s\n\n", c.work)
	passed, total := printTable(os.Stdout, rows)
	fmt.Printf("%d/%d passed\n", passed, total)
	return nil
}

// loadSelection lists the suite's conformance tests from e2e.test and applies
// the rules (and -focus).
func loadSelection(c config) (selection, error) {
	out, err := exec.Command(c.e2e, "--list-conformance-tests").Output()
	if err != nil {
		return selection{}, fmt.Errorf("%s --list-conformance-tests: %v", c.e2e, err)
	}
	tests, err := parseConformanceList(out)
	if err != nil {
		return selection{}, err
	}
	f, err := os.Open(c.exclude)
	if err != nil {
		return selection{}, err
	}
	defer f.Close()
	rules, err := parseRules(f)
	if err != nil {
		return selection{}, fmt.Errorf("%s: %v", c.exclude, err)
	}
	sel := selectTests(tests, rules)
	if c.focus != "" {
		re, err := regexp.Compile(c.focus)
		if err != nil {
			return selection{}, err
		}
		var kept []conformanceTest
		for _, t := range sel.run {
			if re.MatchString(t.Codename) {
				kept = append(kept, t)
			}
		}
		sel.run = kept
	}
	return sel, nil
}

func excludedCount(s selection) int {
	n := 0
	for _, ts := range s.excluded {
		n += len(ts)
	}
	return n
}

func printSelection(s selection) {
	for _, reason := range s.reasons {
		ts := s.excluded[reason]
		fmt.Printf("# left out (%d): %s\n", len(ts), reason)
		for _, t := range ts {
			fmt.Printf("-  %s\n", t.Codename)
		}
	}
	fmt.Printf("# selected (%d)\n", len(s.run))
	for _, t := range s.run {
		fmt.Printf("+  %s\n", t.Codename)
	}
}

func runGinkgo(ctx context.Context, c config, phase string, tests []conformanceTest, procs int, kubeconfig, report string) error {
	logf, err := os.Create(filepath.Join(c.work, "ginkgo-"+phase+".log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	// ginkgo runs e2e.test in its own directory: paths given to it are absolute.
	reportDir, err := filepath.Abs(filepath.Join(c.work, "report-"+phase))
	if err != nil {
		return err
	}
	args := []string{
		"--procs", fmt.Sprint(procs),
		"--focus", focus(tests),
		"--junit-report", filepath.Base(report),
		"--output-dir", c.work,
		"--timeout", "3h",
		"--no-color",
		"--silence-skips",
		c.e2e, "--",
		"--kubeconfig", kubeconfig,
		"--provider", "skeleton",
		"--report-dir", reportDir,
	}
	cmd := exec.CommandContext(ctx, c.ginkgo, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// ginkgo and its test processes in a group of their own, interrupted
	// together as Ctrl-C would: each process cleans up, then ginkgo writes
	// the report of what finished.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
	cmd.WaitDelay = 5 * time.Minute
	return cmd.Run()
}

// server is kubeplay's native command serving a simulated cluster.
type server struct {
	cmd     *exec.Cmd
	done    chan struct{}
	logPath string
}

func startServer(ctx context.Context, c config, kubeconfig string) (*server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	logPath := filepath.Join(c.work, "server.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(c.server, "--listen", addr, "--site", "", "--cluster", "simulated", "--nodes", "3",
		"--sim-speed", c.speed, "--kubeconfig-out", kubeconfig, "--quiet")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	s := &server{cmd: cmd, done: make(chan struct{}), logPath: logPath}
	go func() { cmd.Wait(); logf.Close(); close(s.done) }()
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				fmt.Printf("conformance: kubeplay ready on %s (log: %s)\n", addr, logPath)
				return s, nil
			}
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("the server exited before it was ready; see %s", logPath)
		case <-ctx.Done():
			s.stop()
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, errors.New("the server was not ready within a minute; see " + logPath)
		}
	}
}

func (s *server) alive() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

func (s *server) stop() {
	if !s.alive() {
		return
	}
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

func writeFailures(path string, failed []result) error {
	var b strings.Builder
	for _, r := range failed {
		fmt.Fprintf(&b, "%s\n    %s\n", r.name, r.failure)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

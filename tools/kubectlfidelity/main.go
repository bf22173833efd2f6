// Command kubectlfidelity is `make kubectl-fidelity` (LEARN-1): it plays
// every scripted session of e2e/kubectlfidelity with the real kubectl 1.32
// and with the page's kubectl (core/kubectl), each against its own fresh
// sandbox, and prints per command whether the two are identical (exit code,
// stdout, stderr, requests) or their diff, a score per command, and
// "N/M commands identical" last. It exits 0 whatever the score; 1 when a
// session could not be played.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"kubeplay/e2e/kubectlfidelity"
)

func main() {
	dir := flag.String("dir", "e2e/kubectlfidelity/testdata", "the directory of sessions/*.txt and known.txt")
	only := flag.String("only", "", "play only the sessions whose names contain this")
	bin := flag.String("kubectl", "/usr/bin/kubectl", "the real kubectl 1.32")
	parallel := flag.Int("parallel", 3, "sessions played at once")
	maxLines := flag.Int("diff-lines", 30, "lines of each diff shown")
	timeout := flag.Duration("timeout", 30*time.Second, "bound of one command line")
	out := flag.String("out", "", "also write the report to this file")
	writeGate := flag.Bool("write-gate", false, "write DIR/identical.txt, the commands make test keeps identical, from this run's")
	self := flag.Bool("self", false, "play the real kubectl on both sides: checks the normalization and the sessions' determinism")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *dir, *only, *out, *writeGate, kubectlfidelity.Options{Kubectl: *bin, Timeout: *timeout, Self: *self}, *parallel, *maxLines); err != nil {
		fmt.Fprintln(os.Stderr, "kubectl-fidelity:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dir, only, out string, writeGate bool, opt kubectlfidelity.Options, parallel, maxLines int) error {
	sessions, err := kubectlfidelity.LoadSessions(filepath.Join(dir, "sessions"))
	if err != nil {
		return err
	}
	known, err := kubectlfidelity.LoadKnown(filepath.Join(dir, "known.txt"))
	if err != nil {
		return err
	}
	var picked []*kubectlfidelity.Session
	for _, s := range sessions {
		if strings.Contains(s.Name, only) {
			picked = append(picked, s)
		}
	}
	if len(picked) == 0 {
		return fmt.Errorf("no session matches %q", only)
	}
	start := time.Now()
	reports, err := kubectlfidelity.PlayAndCompare(ctx, picked, opt, known, parallel)
	var report strings.Builder
	kubectlfidelity.WriteReport(&report, reports, known, maxLines)
	fmt.Fprintf(&report, "(%d sessions in %s)\n", len(picked), time.Since(start).Round(100*time.Millisecond))
	fmt.Print(report.String())
	if writeGate {
		if err != nil || only != "" || opt.Self {
			return errors.Join(err, errors.New("-write-gate wants a full run (no -only, no -self) that played every session"))
		}
		if err := kubectlfidelity.WriteGate(filepath.Join(dir, "identical.txt"), reports); err != nil {
			return err
		}
	}
	if out != "" {
		if werr := os.MkdirAll(filepath.Dir(out), 0o755); werr != nil {
			return errors.Join(err, werr)
		}
		if werr := os.WriteFile(out, []byte(report.String()), 0o644); werr != nil {
			return errors.Join(err, werr)
		}
	}
	return err
}

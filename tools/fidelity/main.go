// Command fidelity measures how faithfully kubeplay answers as kube-apiserver
// 1.32 does (K8S-FID-1). It generates random but well-formed API sessions from
// a seed (every verb, query option, PATCH type and representation over the
// built-in kinds, and a share of bad input), plays each against kubeplay's
// native command and a real kube-apiserver (the refapi kit), normalizes what
// must differ between two servers (uids, timestamps, resourceVersion values,
// generated names) and compares status, Status, body, the headers clients read
// and watch events. It prints a score per verb, kind, representation and kind
// of input, and writes a report with every difference minimized to the
// shortest session still showing it. `make fidelity SEED=… N=…` runs it;
// `make test` never does (it needs the reference).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"kubeplay/internal/launch"
)

func main() {
	var cfg config
	flag.Uint64Var(&cfg.seed, "seed", 1, "seed of the sessions: the same seed plays the same requests")
	flag.IntVar(&cfg.sessions, "n", 40, "sessions to play")
	flag.IntVar(&cfg.steps, "steps", 25, "requests per session")
	flag.IntVar(&cfg.parallel, "parallel", 6, "sessions played at once (each in its own namespace)")
	flag.StringVar(&cfg.refapiKit, "refapi", "build/refapi", "refapi kit directory holding a built refapi, start.sh and stop.sh")
	flag.StringVar(&cfg.workDir, "work", "build/fidelity", "work directory: the built playground, refapi's REFAPI_HOME, the report")
	flag.StringVar(&cfg.kubeplayURL, "kubeplay-url", "", "play against this running kubeplay instead of starting the playground command (it must know refapi's token)")
	flag.StringVar(&cfg.kubeURL, "kube-url", "", "play against this running kube-apiserver (token "+launch.RefapiToken+") instead of starting the kit's")
	flag.IntVar(&cfg.only, "only", -1, "play only this session and print every answer")
	flag.IntVar(&cfg.replays, "replays", 24, "replays at most to minimize each difference (0: none)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, cfg)
	interrupted := ctx.Err() != nil
	stop()
	if err != nil {
		if interrupted {
			err = errors.New("interrupted; every server it started is stopped")
		}
		fmt.Fprintln(os.Stderr, "fidelity:", err)
		os.Exit(1)
	}
}

type config struct {
	seed                    uint64
	sessions, steps         int
	parallel, only, replays int
	refapiKit, workDir      string
	kubeplayURL, kubeURL    string
	kubeplayDesc, kubeDesc  string // what each side is, for the report
	stopKubeplay, stopKube  func() error
}

func run(ctx context.Context, cfg config) (err error) {
	if cfg.sessions < 1 || cfg.steps < 2 || cfg.parallel < 1 {
		return errors.New("-n and -parallel must be at least 1, -steps at least 2")
	}
	if cfg.workDir, err = filepath.Abs(cfg.workDir); err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.workDir, 0o755); err != nil {
		return err
	}
	defer func() {
		for _, stop := range []func() error{cfg.stopKubeplay, cfg.stopKube} {
			if stop != nil {
				err = errors.Join(err, stop())
			}
		}
	}()
	if err := startServers(ctx, &cfg); err != nil {
		return err
	}
	p := &player{targets: [2]*target{
		newTarget("kubeplay", cfg.kubeplayURL, launch.RefapiToken),
		newTarget("kube", cfg.kubeURL, launch.RefapiToken),
	}}
	for _, t := range p.targets {
		if err := t.loadAPFNames(ctx); err != nil {
			return err
		}
	}
	if cfg.only >= 0 {
		ns := sessionNamespace("s", cfg.only)
		printSession(p.play(ctx, generate(cfg.seed, cfg.only, cfg.steps, ns), ns))
		return ctx.Err()
	}

	t := newTally()
	start := time.Now()
	played := 0
	p.playAll(ctx, cfg.seed, cfg.sessions, cfg.steps, cfg.parallel, func(s Session, res []stepResult) {
		t.add(s, res)
		if played++; played%max(1, cfg.sessions/10) == 0 {
			logf("%d/%d sessions: %d answers, %s identical", played, cfg.sessions, t.all.total, percent(t.all.identical, t.all.total))
		}
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	info := runInfo{seed: cfg.seed, sessions: cfg.sessions, steps: cfg.steps,
		kubeplay: cfg.kubeplayDesc, kube: cfg.kubeDesc, elapsed: time.Since(start).Round(time.Second).String()}
	logf("played %d answers in %s", t.all.total, info.elapsed)

	start = time.Now()
	p.minimizeAll(ctx, t.sortedGroups(), cfg.replays, cfg.parallel)
	info.minimizeTime = time.Since(start).Round(time.Second).String()
	report := filepath.Join(cfg.workDir, "report.md")
	f, err := os.Create(report)
	if err != nil {
		return err
	}
	t.writeReport(f, info)
	if err := f.Close(); err != nil {
		return err
	}
	slices.Sort(t.explained)
	if err := os.WriteFile(filepath.Join(cfg.workDir, "known.txt"), []byte(strings.Join(t.explained, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	t.printScore(os.Stdout)
	fmt.Printf("\n%d answers, %s identical, %s identical or known; %d distinct differences (minimized in %s): %s\n",
		t.all.total, percent(t.all.identical, t.all.total), percent(t.all.identical+t.all.known, t.all.total),
		len(t.groups), info.minimizeTime, report)
	return ctx.Err()
}

// minimizeAll minimizes each difference, parallel at once.
func (p *player) minimizeAll(ctx context.Context, groups []*group, replays, parallel int) {
	if replays <= 0 {
		return
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, parallel)
	for i, g := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				return
			}
			m := p.minimize(ctx, g.session, g.index, g.sig, replays)
			g.min = &m
			logf("difference %d/%d: %s", i+1, len(groups), m.summary())
		}()
	}
	wg.Wait()
}

// startServers starts what the flags do not name: the playground command
// (in memory, knowing refapi's token as the same identity) and the kit's
// kube-apiserver (with CBOR served as kubeplay serves it; what its missing
// kube-controller-manager would make for ServiceAccount admission, the
// harness makes: controllers.go).
func startServers(ctx context.Context, cfg *config) error {
	cfg.kubeplayDesc, cfg.kubeDesc = cfg.kubeplayURL, cfg.kubeURL
	if cfg.kubeplayURL == "" {
		logf("building the playground command…")
		bin, err := launch.BuildPlayground(ctx, cfg.workDir)
		if err != nil {
			return err
		}
		tokens, err := launch.WriteRefapiTokens(cfg.workDir)
		if err != nil {
			return err
		}
		s, err := launch.Command(ctx, bin, []string{"--quiet", "--site", "", "--token-file", tokens, "--cluster", "api-only"}, nil)
		if err != nil {
			return err
		}
		cfg.kubeplayURL, cfg.stopKubeplay = s.URL, s.Stop
		cfg.kubeplayDesc = "the playground command (native, in memory)"
	}
	if cfg.kubeURL == "" {
		kit, err := filepath.Abs(cfg.refapiKit)
		if err != nil {
			return err
		}
		logf("starting kube-apiserver (the refapi kit)…")
		s, err := launch.Refapi(ctx, kit, filepath.Join(cfg.workDir, "refapi-home"),
			"FEATURE_GATES=CBORServingAndStorage=true", "REFAPI_ETCD_UNSAFE_NO_FSYNC=1")
		if err != nil {
			return err
		}
		cfg.kubeURL, cfg.stopKube = s.URL, s.Stop
		cfg.kubeDesc = "the refapi kit (CBORServingAndStorage on)"
	}
	cfg.kubeDesc = "kube-apiserver " + serverVersion(ctx, newTarget("kube", cfg.kubeURL, launch.RefapiToken)) + ", " + cfg.kubeDesc
	return nil
}

// serverVersion is what /version says.
func serverVersion(ctx context.Context, t *target) string {
	req, err := http.NewRequestWithContext(ctx, "GET", t.base+"/version", nil)
	if err != nil {
		return "?"
	}
	req.Header.Set("Authorization", "Bearer "+t.token)
	res, err := t.client.Do(req)
	if err != nil {
		return "?"
	}
	defer res.Body.Close()
	var v struct{ GitVersion string }
	if json.NewDecoder(res.Body).Decode(&v) != nil {
		return "?"
	}
	return v.GitVersion
}

// printSession writes every step of a played session and both answers.
func printSession(results []stepResult) {
	for i, r := range results {
		verdict := "identical"
		switch {
		case r.Known != nil:
			verdict = fmt.Sprintf("known %v", r.Known)
		case !r.identical():
			verdict = "DIFFERENT"
		}
		fmt.Printf("── %d. %s: %s\n%s\n", i, r.Step.Label(), verdict, renderStep(r.Step))
		for _, d := range r.Diffs {
			fmt.Printf("   ≠ %s\n", d)
		}
		fmt.Printf("   kubeplay: %s\n   kube:     %s\n", render(r.Answers[sideKubeplay], 3000), render(r.Answers[sideKube], 3000))
	}
}

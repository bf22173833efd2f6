// Command benchvskube measures kubeplay's native server side by side with a real
// kube-apiserver (the refapi kit: kube-apiserver 1.32 with an embedded etcd that
// fsyncs). It owns starting and stopping both servers, the one workload run
// against each (creates, GETs, lists, watch fan-out, memory) and the table that
// compares them with kubeplay's goals: at least 2× on every speed row and 5×
// lighter in memory. `make bench-vs-kube` runs it; `make test` never does.
//
// Both sides are measured over the same transport: kube-apiserver serves only
// TLS, so kubeplay's core is served over TLS too, by this program re-run as
// `benchvskube serve-kubeplay-tls` (the playground command's API host with
// crypto/tls in front). The playground command itself, over plain HTTP as
// `make run` serves it, is measured alongside for reference. Every speed row
// also has a floor, this program re-run as `benchvskube serve-floor`: the same
// requests over the same transport answered with only the work no server can
// skip (see floorServer), so the table shows how far ahead any server could be.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"kubeplay/internal/launch"
)

func main() {
	if len(os.Args) > 1 {
		serve := map[string]func([]string) error{serveTLSCommand: serveKubeplayTLS, serveFloorCommand: serveFloor}[os.Args[1]]
		if serve != nil {
			if err := serve(os.Args[2:]); err != nil {
				fmt.Fprintln(os.Stderr, "benchvskube "+os.Args[1]+":", err)
				os.Exit(1)
			}
			return
		}
	}
	var cfg config
	flag.StringVar(&cfg.refapiKit, "refapi", "build/refapi", "refapi kit directory holding a built refapi, start.sh and stop.sh")
	flag.StringVar(&cfg.workDir, "work", "build/benchvskube", "work directory: the built playground, kubeplay's data, refapi's REFAPI_HOME")
	flag.IntVar(&cfg.objects, "n", 2000, "ConfigMaps to create")
	flag.IntVar(&cfg.objectBytes, "size", 2048, "bytes of data in each ConfigMap")
	flag.IntVar(&cfg.conns, "conns", 8, "concurrent connections for creates, GETs and the fan-out's writes")
	flag.IntVar(&cfg.gets, "gets", 10000, "GET requests")
	flag.IntVar(&cfg.lists, "lists", 15, "timed lists per encoding (median)")
	flag.IntVar(&cfg.watchers, "watchers", 200, "watchers in the fan-out")
	flag.IntVar(&cfg.writes, "writes", 100, "writes in the fan-out")
	flag.IntVar(&cfg.watchRuns, "watch-runs", 3, "fan-outs per server start (median)")
	flag.IntVar(&cfg.runs, "runs", 3, "fresh starts of each server; every row is the median over them")
	flag.StringVar(&cfg.kubeplayTransports, "kubeplay", "tls,http", "kubeplay transports to measure: tls (same as kube-apiserver's, the compared column), http (the playground command as make run serves it)")
	flag.BoolVar(&cfg.verbose, "v", false, "print every sample and each phase as it runs")
	flag.BoolVar(&cfg.kubeplayInMemory, "kubeplay-in-memory", false, "diagnostic: run kubeplay (and the floor) without fsync, to see what durability costs")
	flag.StringVar(&cfg.profileDir, "profile", "", "write a CPU profile of kubeplay (over TLS) per phase into this directory (PHASE.pprof) and a heap profile after the workload (heap.pprof, with the runtime's memory accounting beside it: heap.pprof.memstats.txt); the last run's")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, cfg)
	interrupted := ctx.Err() != nil // before stop, which cancels ctx too
	stop()
	if err != nil {
		if interrupted {
			err = errors.New("interrupted; every server it started is stopped")
		}
		fmt.Fprintln(os.Stderr, "benchvskube:", err)
		os.Exit(1)
	}
}

type config struct {
	refapiKit, workDir                 string
	objects, objectBytes, conns, gets  int
	lists, watchers, writes, watchRuns int
	runs                               int
	kubeplayTransports                 string
	verbose                            bool
	profileDir                         string
	kubeplayInMemory                   bool
	refapiHome, playgroundBin, selfBin string
	kubeVersion, goVersion, loadBefore string
	kubeplayColumn                     string            // the kubeplay column compared with kube
	kubeplayExtraColumns               []string          // other kubeplay columns, for reference
	listBodies                         map[string][]byte // media type → kubeplay's list, for the floor
}

func run(ctx context.Context, cfg config) error {
	if cfg.objects < 1 || cfg.conns < 1 || cfg.runs < 1 || cfg.lists < 1 || cfg.watchRuns < 1 || cfg.writes < 1 || cfg.watchers < 1 || cfg.gets < 1 {
		return errors.New("-n, -conns, -gets, -lists, -watchers, -writes, -watch-runs and -runs must be at least 1")
	}
	var err error
	if cfg.workDir, err = filepath.Abs(cfg.workDir); err != nil {
		return err
	}
	if cfg.refapiKit, err = filepath.Abs(cfg.refapiKit); err != nil {
		return err
	}
	if cfg.profileDir != "" {
		if cfg.profileDir, err = filepath.Abs(cfg.profileDir); err != nil {
			return err
		}
		if err := os.MkdirAll(cfg.profileDir, 0o755); err != nil {
			return err
		}
	}
	if err := launch.CheckKit(cfg.refapiKit); err != nil {
		return err
	}
	cfg.refapiHome = filepath.Join(cfg.workDir, "refapi-home")
	if err := os.MkdirAll(cfg.workDir, 0o755); err != nil {
		return err
	}

	var targets []target
	for _, t := range strings.Split(cfg.kubeplayTransports, ",") {
		switch strings.TrimSpace(t) {
		case "tls":
			targets = append(targets, target{name: colKubeplayTLS, start: startKubeplayTLS})
		case "http":
			targets = append(targets, target{name: colKubeplayHTTP, start: startPlayground})
		case "":
		default:
			return fmt.Errorf("-kubeplay: unknown transport %q (tls, http)", t)
		}
	}
	if len(targets) == 0 {
		return errors.New("-kubeplay: name at least one of tls, http")
	}
	targets = append(targets, target{name: colKube, start: startRefapi})
	cfg.kubeplayColumn = targets[0].name
	for _, t := range targets[1 : len(targets)-1] {
		cfg.kubeplayExtraColumns = append(cfg.kubeplayExtraColumns, t.name)
	}

	logf := func(format string, args ...any) {
		if cfg.verbose {
			fmt.Fprintf(os.Stderr, format+"\n", args...)
		}
	}
	fmt.Fprintln(os.Stderr, "building the playground command…")
	if cfg.playgroundBin, err = launch.BuildPlayground(ctx, cfg.workDir); err != nil {
		return err
	}
	if cfg.selfBin, err = os.Executable(); err != nil {
		return err
	}
	cfg.goVersion = runtime.Version()
	cfg.loadBefore = loadAverage()

	res := newResults()
	cfg.listBodies = map[string][]byte{}
	// The floor serves kubeplay's list bytes, so it comes after kubeplay in the
	// first round; the order then rotates so no server always runs first or last.
	targets = append(targets, target{name: colFloor, start: startFloor})
	for r := 0; r < cfg.runs; r++ {
		for i := range targets {
			t := targets[(i+r)%len(targets)]
			fmt.Fprintf(os.Stderr, "run %d/%d: %s (load %s)\n", r+1, cfg.runs, t.name, loadAverage())
			if err := runOne(ctx, &cfg, t, res.recorder(t.name), logf); err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
		}
	}
	printReport(os.Stdout, &cfg, res, loadAverage())
	return nil
}

// runOne starts a fresh server, runs the workload and stops it, whatever happens.
func runOne(ctx context.Context, cfg *config, t target, rec func(string, float64), logf func(string, ...any)) (err error) {
	srv, err := t.start(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		if serr := srv.stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	// Measure every server once it is idle, not while it still finishes starting.
	waited, err := settle(ctx, srv.pid)
	if err != nil {
		return err
	}
	logf("  idle after %v", waited.Round(time.Second/10))
	if t.name == colKube && cfg.kubeVersion == "" {
		cfg.kubeVersion = serverVersion(ctx, srv)
	}
	if t.name == colFloor {
		return runFloor(ctx, cfg, srv, rec, logf)
	}
	return runWorkload(ctx, cfg, srv, t.name == cfg.kubeplayColumn, rec, logf)
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// settle waits (up to a minute) until the process uses under 5% of a CPU over
// a 500 ms window.
func settle(ctx context.Context, pid int) (time.Duration, error) {
	start := time.Now()
	prev, err := cpuTicks(pid)
	if err != nil {
		return 0, err
	}
	for time.Since(start) < time.Minute {
		if err := sleepCtx(ctx, 500*time.Millisecond); err != nil {
			return 0, err
		}
		cur, err := cpuTicks(pid)
		if err != nil {
			return 0, err
		}
		if cur-prev <= 2 { // clock ticks are 10 ms: 2 of 50
			return time.Since(start), nil
		}
		prev = cur
	}
	return time.Since(start), nil
}

// msPerTick is the length of a clock tick (USER_HZ, 100 on Linux) in ms.
const msPerTick = 10

// cpuTicks is the user and system CPU time of a process in clock ticks.
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces; count fields after its ")".
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: short", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %v %v", pid, err1, err2)
	}
	return utime + stime, nil
}

package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"kubeplay/internal/launch"
)

// Column names: the servers measured.
const (
	colKubeplayTLS  = "kubeplay"
	colKubeplayHTTP = "kubeplay (http)"
	colKube         = "kube-apiserver"
)

// target is a server the workload runs against, started fresh for every run.
type target struct {
	name  string
	start func(context.Context, *config) (*server, error)
}

// server is a running server: where it answers, its process and how to stop it.
type server struct {
	url        string // base URL, http:// or https://
	pid        int    // the process whose memory is measured
	stop       func() error
	profileURL string // where to start and stop CPU profiles (kubeplay over TLS with -profile)
}

// startPlayground runs the playground command as `make run` would, durable on
// disk (--data: fsync on every acknowledged write, as etcd does), over plain
// HTTP, knowing refapi's token and with kube's concurrency.
func startPlayground(ctx context.Context, cfg *config) (*server, error) {
	tokens, err := launch.WriteRefapiTokens(cfg.workDir)
	if err != nil {
		return nil, err
	}
	return startProcess(ctx, cfg, cfg.playgroundBin, true, "--quiet", "--site", "", "--token-file", tokens, "--cluster", "api-only",
		"--max-requests-inflight", strconv.Itoa(kubeSeats*2/3), "--max-mutating-requests-inflight", strconv.Itoa(kubeSeats/3))
}

// startKubeplayTLS runs the same core behind crypto/tls: this program's
// serve-kubeplay-tls command.
func startKubeplayTLS(ctx context.Context, cfg *config) (*server, error) {
	if cfg.profileDir != "" {
		return startProcess(ctx, cfg, cfg.selfBin, true, serveTLSCommand, "--profile-listen", "127.0.0.1:0")
	}
	return startProcess(ctx, cfg, cfg.selfBin, true, serveTLSCommand)
}

var profileLine = regexp.MustCompile(`kubeplay profile control at (\S+)`)

// startProcess starts bin args... [--data TEMP] (internal/launch adds --listen)
// and removes the data directory when it stops.
func startProcess(ctx context.Context, cfg *config, bin string, withData bool, args ...string) (*server, error) {
	data := ""
	if withData && !cfg.kubeplayInMemory {
		var err error
		if data, err = os.MkdirTemp(cfg.workDir, "kubeplay-data-"); err != nil {
			return nil, err
		}
		args = append(args, "--data", data)
	}
	profc := make(chan string, 1)
	s, err := launch.Command(ctx, bin, args, func(line string) {
		if m := profileLine.FindStringSubmatch(line); m != nil {
			select {
			case profc <- m[1]:
			default:
			}
		}
	})
	if err != nil {
		os.RemoveAll(data)
		return nil, err
	}
	srv := &server{url: s.URL, pid: s.PID, stop: func() error {
		defer os.RemoveAll(data)
		return s.Stop()
	}}
	select {
	case srv.profileURL = <-profc: // printed before the API line
	default:
	}
	return srv, nil
}

// startRefapi starts kube-apiserver with its embedded etcd through the kit's
// start.sh, on free ports, with REFAPI_HOME under the work directory.
func startRefapi(ctx context.Context, cfg *config) (*server, error) {
	s, err := launch.Refapi(ctx, cfg.refapiKit, cfg.refapiHome)
	if err != nil {
		return nil, err
	}
	return &server{url: s.URL, pid: s.PID, stop: s.Stop}, nil
}

// memory reads a process's resident set (VmRSS) and its peak (VmHWM), in bytes.
func memory(pid int) (rss, peak float64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	return parseStatusKB(b, "VmRSS:"), parseStatusKB(b, "VmHWM:"), nil
}

// parseStatusKB returns the value of a "Key:   123 kB" line of /proc/PID/status in bytes.
func parseStatusKB(status []byte, key string) float64 {
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				v, err := strconv.ParseFloat(f[0], 64)
				if err == nil {
					return v * 1024
				}
			}
		}
	}
	return 0
}

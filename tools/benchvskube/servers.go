package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
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

// buildPlayground builds the native command (`go build ./playground`) into dir/bin.
func buildPlayground(ctx context.Context, dir string) (string, error) {
	if _, err := os.Stat(filepath.Join("playground", "main.go")); err != nil {
		return "", errors.New("run from the repository root (no ./playground)")
	}
	bin := filepath.Join(dir, "bin", "playground")
	goCmd := os.Getenv("GO")
	if goCmd == "" {
		goCmd = "go"
	}
	cmd := exec.CommandContext(ctx, goCmd, "build", "-o", bin, "./playground")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ./playground: %w", err)
	}
	return bin, nil
}

// startPlayground runs the playground command as `make run` would, durable on
// disk (--data: fsync on every acknowledged write, as etcd does), over plain HTTP.
func startPlayground(ctx context.Context, cfg *config) (*server, error) {
	tokens := filepath.Join(cfg.workDir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(adminTokenLine), 0o600); err != nil {
		return nil, err
	}
	return startProcess(ctx, cfg, cfg.playgroundBin, true, "--quiet", "--site", "", "--token-file", tokens,
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

var (
	apiLine     = regexp.MustCompile(`API at (\S+)`)
	profileLine = regexp.MustCompile(`kubeplay profile control at (\S+)`)
)

// startProcess starts bin args... [--data TEMP] --listen 127.0.0.1:0 and waits
// for the `… API at URL` line on its stderr.
func startProcess(ctx context.Context, cfg *config, bin string, withData bool, args ...string) (*server, error) {
	data := ""
	if withData && !cfg.kubeplayInMemory {
		var err error
		if data, err = os.MkdirTemp(cfg.workDir, "kubeplay-data-"); err != nil {
			return nil, err
		}
		args = append(args, "--data", data)
	}
	args = append(args, "--listen", "127.0.0.1:0")
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // Ctrl-C reaches us, and we stop it
	stderr, err := cmd.StderrPipe()
	if err != nil {
		os.RemoveAll(data)
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(data)
		return nil, err
	}
	var (
		mu     sync.Mutex
		last   []string // its last lines of output, for errors
		urlc   = make(chan string, 1)
		profc  = make(chan string, 1)
		exited = make(chan struct{})
	)
	go func() {
		sc := bufio.NewScanner(stderr)
		found := false
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			if last = append(last, line); len(last) > 20 {
				last = last[1:]
			}
			mu.Unlock()
			if m := apiLine.FindStringSubmatch(line); m != nil && !found {
				found = true
				urlc <- m[1]
			}
			if m := profileLine.FindStringSubmatch(line); m != nil {
				profc <- m[1]
			}
		}
		io.Copy(io.Discard, stderr)
		cmd.Wait()
		close(exited)
	}()
	stop := func() error {
		if data != "" {
			defer os.RemoveAll(data)
		}
		select {
		case <-exited:
			return nil
		default:
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		return nil
	}
	output := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(last, "\n")
	}
	select {
	case u := <-urlc:
		srv := &server{url: u, pid: cmd.Process.Pid, stop: stop}
		select {
		case srv.profileURL = <-profc: // printed before the API line
		default:
		}
		return srv, nil
	case <-exited:
		stop()
		return nil, fmt.Errorf("%s exited before serving:\n%s", filepath.Base(bin), output())
	case <-time.After(30 * time.Second):
		stop()
		return nil, fmt.Errorf("%s did not print its address in 30s:\n%s", filepath.Base(bin), output())
	case <-ctx.Done():
		stop()
		return nil, ctx.Err()
	}
}

// startRefapi starts kube-apiserver with its embedded etcd through the kit's
// start.sh, on free ports, with REFAPI_HOME under the work directory.
func startRefapi(ctx context.Context, cfg *config) (*server, error) {
	env := append(os.Environ(), "REFAPI_HOME="+cfg.refapiHome)
	stopScript := func() error {
		sctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(sctx, filepath.Join(cfg.refapiKit, "stop.sh"))
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("stop.sh: %v: %s", err, out)
		}
		return nil
	}
	// A previous run that was killed outright may have left one running.
	if err := stopScript(); err != nil {
		return nil, err
	}
	port, etcdPort, err := refapiPorts()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(cfg.refapiKit, "start.sh"), strconv.Itoa(port))
	cmd.Env = append(env, "ETCD_PORT="+strconv.Itoa(etcdPort))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		serr := stopScript()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, errors.Join(fmt.Errorf("start.sh: %v: %s", err, stderr.String()), serr)
	}
	pidText, err := os.ReadFile(filepath.Join(cfg.refapiHome, "refapi.pid"))
	pid, perr := strconv.Atoi(strings.TrimSpace(string(pidText)))
	if err != nil || perr != nil {
		return nil, errors.Join(fmt.Errorf("refapi.pid: %v %v", err, perr), stopScript())
	}
	url := strings.TrimSpace(stdout.String())
	if !strings.HasPrefix(url, "https://") {
		return nil, errors.Join(fmt.Errorf("start.sh printed %q, not a URL", url), stopScript())
	}
	return &server{url: url, pid: pid, stop: stopScript}, nil
}

// refapiPorts picks a free port for the API and one for etcd whose next port
// (etcd's peer port) is free too.
func refapiPorts() (api, etcd int, err error) {
	if api, err = freePort(); err != nil {
		return 0, 0, err
	}
	for range 50 {
		e, err := freePort()
		if err != nil {
			return 0, 0, err
		}
		if e != api && e+1 != api && e < 65535 && portFree(e+1) {
			return api, e, nil
		}
	}
	return 0, 0, errors.New("no free pair of ports for etcd")
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func portFree(p int) bool {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
	if err != nil {
		return false
	}
	ln.Close()
	return true
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

// Package launch starts the servers that tools compare side by side: kubeplay's
// native command (built with `go build ./playground`, or any program that prints
// "… API at URL" on stderr once it serves) and the refapi kit's kube-apiserver
// (../shared/refapi, through its start.sh and stop.sh). Every server it starts
// runs in its own process group and is stopped by Server.Stop, whatever state
// it is in. Used by tools/benchvskube and tools/fidelity; never by make test.
package launch

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
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Server is a running server: where it answers, its process and how to stop it.
type Server struct {
	URL  string // base URL, http:// or https://
	PID  int    // the server's process (kube-apiserver's own, not start.sh's)
	stop func() error
}

// Stop stops the server; it may be called more than once.
func (s *Server) Stop() error { return s.stop() }

// BuildPlayground builds the native command (`go build ./playground`, run from
// the repository root) into dir/bin and returns its path.
func BuildPlayground(ctx context.Context, dir string) (string, error) {
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

var apiLine = regexp.MustCompile(`API at (\S+)`)

// Command starts bin args... --listen 127.0.0.1:0 and waits (30 s at most) for
// the `… API at URL` line on its stderr. onLine, when set, sees every line the
// process writes there before that one (and after, until it exits).
func Command(ctx context.Context, bin string, args []string, onLine func(string)) (*Server, error) {
	args = append(slices.Clone(args), "--listen", "127.0.0.1:0")
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // Ctrl-C reaches us, and we stop it
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var (
		mu     sync.Mutex
		last   []string // its last lines of output, for errors
		urlc   = make(chan string, 1)
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
			if onLine != nil {
				onLine(line)
			}
			if m := apiLine.FindStringSubmatch(line); m != nil && !found {
				found = true
				urlc <- m[1]
			}
		}
		io.Copy(io.Discard, stderr)
		cmd.Wait()
		close(exited)
	}()
	stop := func() error {
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
		return &Server{URL: u, PID: cmd.Process.Pid, stop: stop}, nil
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

// Refapi starts kube-apiserver with its embedded etcd through the kit's
// start.sh (kit is a directory holding a built refapi, start.sh and stop.sh),
// on free ports, with REFAPI_HOME=home; env adds start.sh's options
// (NO_SA_ADMISSION=1, FEATURE_GATES=…, REFAPI_ETCD_UNSAFE_NO_FSYNC=1). An
// instance a killed run left in home is stopped first.
func Refapi(ctx context.Context, kit, home string, env ...string) (*Server, error) {
	if err := CheckKit(kit); err != nil {
		return nil, err
	}
	base := append(os.Environ(), "REFAPI_HOME="+home)
	stopScript := func() error {
		sctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(sctx, filepath.Join(kit, "stop.sh"))
		cmd.Env = base
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("stop.sh: %v: %s", err, out)
		}
		return nil
	}
	if err := stopScript(); err != nil {
		return nil, err
	}
	port, etcdPort, err := refapiPorts()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(kit, "start.sh"), strconv.Itoa(port))
	cmd.Env = append(append(base, env...), "ETCD_PORT="+strconv.Itoa(etcdPort))
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
	pidText, err := os.ReadFile(filepath.Join(home, "refapi.pid"))
	pid, perr := strconv.Atoi(strings.TrimSpace(string(pidText)))
	if err != nil || perr != nil {
		return nil, errors.Join(fmt.Errorf("refapi.pid: %v %v", err, perr), stopScript())
	}
	url := strings.TrimSpace(stdout.String())
	if !strings.HasPrefix(url, "https://") {
		return nil, errors.Join(fmt.Errorf("start.sh printed %q, not a URL", url), stopScript())
	}
	var once sync.Once
	var stopErr error
	return &Server{URL: url, PID: pid, stop: func() error {
		once.Do(func() { stopErr = stopScript() })
		return stopErr
	}}, nil
}

// RefapiToken is the bearer token the kit's start.sh gives its one identity:
// user admin (uid admin-uid) in system:masters.
const RefapiToken = "refapi-admin-token"

// RefapiTokenLine is RefapiToken's line in a --token-file (kube's static token
// format, which the playground command reads too): admin in system:masters, so
// exempt from API Priority and Fairness, as in the kit.
const RefapiTokenLine = RefapiToken + `,admin,admin-uid,"system:masters"` + "\n"

// WriteRefapiTokens writes dir/tokens.csv, a --token-file holding
// RefapiTokenLine, and returns its path: kubeplay then knows the reference's
// caller as the same user, and API Priority and Fairness classifies it alike.
func WriteRefapiTokens(dir string) (string, error) {
	path := filepath.Join(dir, "tokens.csv")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, []byte(RefapiTokenLine), 0o600)
}

// CheckKit says whether kit holds a built refapi kit.
func CheckKit(kit string) error {
	for _, f := range []string{"refapi", "start.sh", "stop.sh"} {
		if _, err := os.Stat(filepath.Join(kit, f)); err != nil {
			return fmt.Errorf("refapi kit incomplete (%v): the Makefile's build/refapi/refapi target copies and builds it", err)
		}
	}
	return nil
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

package kubectlfidelity

// This file owns playing a session: the two sandboxes, the recorder of
// kubectl's requests, and running each command line with the real kubectl
// (side Kubectl) and with core/kubectl (side Ours).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/auth"
	"kubeplay/core/kubectl"
	"kubeplay/core/sandbox"
	"kubeplay/core/sim"
	"kubeplay/core/xds"
)

// The two sides of a comparison.
const (
	Kubectl = 0 // the real kubectl 1.32
	Ours    = 1 // core/kubectl
)

// Options configure a play.
type Options struct {
	// Kubectl is the real kubectl's binary.
	Kubectl string
	// Timeout bounds one command line on either side (default 30s); a
	// command that runs longer is stopped and reported as timed out.
	Timeout time.Duration
	// Self plays the real kubectl on both sides, each with its sandbox,
	// its server and its home: what differs then is what the normalization
	// misses, or a session that does not play the same twice.
	Self bool
}

// Request is one request a kubectl sent, as the sandbox received it.
type Request struct {
	Method, Path, Query            string
	Accept, ContentType, UserAgent string
	Body                           []byte
}

// Result is what one side's command line did.
type Result struct {
	Code           int
	Stdout, Stderr string
	Requests       []Request
	TimedOut       bool
}

// Played is a session played on both sides: each command's results, in
// order, and what each side's text says of its client build.
type Played struct {
	Session  *Session
	Commands []PlayedCommand
	// Client is each side's client build strings (its version, then its
	// commit): what `version` and the user agent may show.
	Client [2][]string
	// Home is each real kubectl's home directory (its errors and -v=6 name
	// it), Server the URL its kubeconfig names (ours is given the real
	// kubectl's of both).
	Home, Server [2]string
}

// PlayedCommand is one command line's results on both sides.
type PlayedCommand struct {
	Step    Step
	Results [2]Result
}

// recorder records the requests of a kubectl (its User-Agent starts with
// kubectl/), not those of the sandbox's own controllers and cluster.
type recorder struct {
	next http.Handler
	mu   sync.Mutex
	reqs []Request
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.UserAgent(), "kubectl/") {
		var body []byte
		if r.Body != nil {
			body, _ = io.ReadAll(r.Body)
			r.Body.Close()
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
			Accept: r.Header.Get("Accept"), ContentType: r.Header.Get("Content-Type"), UserAgent: r.UserAgent(), Body: body})
		rec.mu.Unlock()
	}
	rec.next.ServeHTTP(w, r)
}

// mark is how many requests were recorded so far.
func (rec *recorder) mark() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return len(rec.reqs)
}

// since is the requests recorded after mark n.
func (rec *recorder) since(n int) []Request {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]Request(nil), rec.reqs[n:]...)
}

// newSandbox starts a sandbox as the playground command's loopback listener
// serves one (the sandbox's own user for requests without a token, the xDS
// kinds), API-only or with a simulated cluster ten times faster than real time.
func newSandbox(simulated bool) (*sandbox.Sandbox, error) {
	admin := auth.Admin()
	return sandbox.New(sandbox.Config{APIOnly: !simulated, Tokenless: &admin, Resources: api.XDS(xds.Validate),
		Cluster: sim.Config{Speed: 10}})
}

// kubeconfig is the file the real kubectl reads, naming server; ours is
// given the same server and namespace.
func kubeconfig(server string) string {
	return "apiVersion: v1\nkind: Config\nclusters:\n- name: kubeplay\n  cluster:\n    server: " + server +
		"\ncontexts:\n- name: kubeplay\n  context:\n    cluster: kubeplay\n    namespace: default\n    user: kubeplay\n" +
		"current-context: kubeplay\nusers:\n- name: kubeplay\n  user: {}\n"
}

// Play plays s on both sides, each in its own fresh sandbox.
func Play(ctx context.Context, s *Session, opt Options) (*Played, error) {
	if opt.Timeout == 0 {
		opt.Timeout = 30 * time.Second
	}
	var recs [2]*recorder
	// Each side's real kubectl: the one compared (on the kubectl side, and
	// on both in the self-check), and the setups', with a home of its own
	// so that the compared one's discovery cache starts as fresh as ours.
	var reals, setups [2]*realKubectl
	p := &Played{Session: s}
	for side := range recs {
		sb, err := newSandbox(s.Simulated)
		if err != nil {
			return nil, err
		}
		defer sb.Close()
		recs[side] = &recorder{next: sb}
		hs := httptest.NewServer(recs[side])
		defer hs.Close()
		defer hs.CloseClientConnections()
		if setups[side], err = newRealKubectl(opt.Kubectl, hs.URL); err != nil {
			return nil, err
		}
		defer os.RemoveAll(setups[side].home)
		if side == Ours && !opt.Self {
			p.Client[Ours] = []string{kubectl.Version}
			continue
		}
		if reals[side], err = newRealKubectl(opt.Kubectl, hs.URL); err != nil {
			return nil, err
		}
		defer os.RemoveAll(reals[side].home)
		if p.Client[side], err = reals[side].clientStrings(ctx); err != nil {
			return nil, err
		}
		p.Home[side], p.Server[side] = reals[side].home, hs.URL
	}
	// Ours reaches its sandbox in-process, at the URL the real kubectl's
	// kubeconfig names, and says it read that kubeconfig.
	if !opt.Self {
		p.Server[Ours], p.Home[Ours] = p.Server[Kubectl], p.Home[Kubectl]
	}
	env := &kubectl.Env{Handler: recs[Ours], Server: p.Server[Ours], Namespace: "default",
		Kubeconfig: filepath.Join(p.Home[Ours], ".kube", "config"),
		// As the real kubectl's KUBE_EDITOR=true: what was given is saved.
		Edit: func(_ context.Context, _ string, content []byte) ([]byte, error) { return content, nil }}

	for _, st := range s.Steps {
		if st.Args == nil {
			select {
			case <-time.After(st.Sleep):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			continue
		}
		pc := PlayedCommand{Step: st}
		var marks [2]int
		for i, rec := range recs {
			marks[i] = rec.mark()
		}
		var wg sync.WaitGroup
		for side := range recs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				switch {
				case st.Setup:
					pc.Results[side] = setups[side].run(ctx, st, opt.Timeout)
				case reals[side] != nil:
					pc.Results[side] = reals[side].run(ctx, st, opt.Timeout)
				default:
					pc.Results[side] = runOurs(ctx, env, st, opt.Timeout)
				}
			}()
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if st.Setup {
			for _, r := range pc.Results {
				if r.Code != 0 || r.TimedOut {
					return nil, fmt.Errorf("line %d: setup %s: exit %d: %s", st.Line, st.Text, r.Code, r.Stderr)
				}
			}
			continue
		}
		for i, rec := range recs {
			pc.Results[i].Requests = rec.since(marks[i])
		}
		p.Commands = append(p.Commands, pc)
	}
	return p, nil
}

// realKubectl runs the real kubectl with a home of its own: its kubeconfig
// and its discovery cache, fresh for the session as on a new machine.
type realKubectl struct {
	bin, home string
}

// newRealKubectl makes a home whose kubeconfig names server.
func newRealKubectl(bin, server string) (*realKubectl, error) {
	home, err := os.MkdirTemp("", "kubectl-fidelity-")
	if err != nil {
		return nil, err
	}
	k := &realKubectl{bin: bin, home: home}
	if err := os.MkdirAll(filepath.Join(home, ".kube"), 0o700); err != nil {
		os.RemoveAll(home)
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(home, ".kube", "config"), []byte(kubeconfig(server)), 0o600); err != nil {
		os.RemoveAll(home)
		return nil, err
	}
	return k, nil
}

func (k *realKubectl) command(ctx context.Context, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, k.bin, args...)
	// kubectl edit's editor saves what it was given: "Edit cancelled".
	cmd.Env = []string{"HOME=" + k.home, "PATH=" + os.Getenv("PATH"), "KUBE_EDITOR=true"}
	cmd.Dir = k.home
	cmd.Cancel = func() error { return cmd.Process.Kill() }
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// clientStrings is what the real kubectl says of its build: its version,
// then its commit.
func (k *realKubectl) clientStrings(ctx context.Context) ([]string, error) {
	out, err := k.command(ctx, []string{"version", "--client", "-o", "json"}).Output()
	if err != nil {
		return nil, err
	}
	var v struct {
		ClientVersion struct{ GitVersion, GitCommit string } `json:"clientVersion"`
	}
	if err := json.Unmarshal(out, &v); err != nil || v.ClientVersion.GitVersion == "" {
		return nil, fmt.Errorf("kubectl version --client -o json: no gitVersion in %q", out)
	}
	return []string{v.ClientVersion.GitVersion, v.ClientVersion.GitCommit}, nil
}

func (k *realKubectl) run(ctx context.Context, st Step, timeout time.Duration) Result {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := k.command(ctx, st.Args)
	cmd.Stdin = strings.NewReader(st.Stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	var res Result
	if err := cmd.Start(); err != nil {
		return Result{Code: -1, Stderr: err.Error()}
	}
	if st.Interrupt > 0 {
		t := time.AfterFunc(st.Interrupt, func() { cmd.Process.Signal(syscall.SIGINT) })
		defer t.Stop()
	}
	err := cmd.Wait()
	res.TimedOut = ctx.Err() != nil
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.Code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.Code = 128 + int(ws.Signal()) // as a shell shows it
		}
	case err != nil:
		res.Code, res.Stderr = -1, err.Error()
	}
	res.Stdout, res.Stderr = out.String(), errOut.String()+res.Stderr
	return res
}

// runOurs runs core/kubectl on env; Ctrl-C is ctx's cancellation.
func runOurs(ctx context.Context, env *kubectl.Env, st Step, timeout time.Duration) Result {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if st.Interrupt > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithCancel(ctx)
		t := time.AfterFunc(st.Interrupt, stop)
		defer t.Stop()
		defer stop()
	}
	var out, errOut bytes.Buffer
	env.Stdin, env.Stdout, env.Stderr = strings.NewReader(st.Stdin), &out, &errOut
	done := make(chan int, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				fmt.Fprintf(&errOut, "panic: %v\n", v)
				done <- 2
			}
		}()
		done <- kubectl.Run(ctx, env, st.Args)
	}()
	select {
	case code := <-done:
		return Result{Code: code, Stdout: out.String(), Stderr: errOut.String()}
	case <-time.After(timeout + 2*time.Second):
		// Run did not end when its context did: report it, and leave it
		// (what it printed is still being written).
		return Result{Code: -1, Stderr: "(did not end when its context was cancelled)\n", TimedOut: true}
	}
}

package tutorials

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"kubeplay/core/kubectl"
)

// The replay's kubectl steps (and exercises' kubectl solutions) run the
// page's kubectl, core/kubectl, built natively: replay.mjs splits each
// command line as the page's terminal does (terminalmodel.js) and posts its
// words here; the command runs in this process against the sandbox at the
// base URL, in-process, as the terminal's kubectl runs against the page's
// sandbox. Each sandbox has one kubectl Env, as a terminal has one: its
// discovery cache lasts from command to command.

// kubectlTimeout bounds one command (rollout status, wait).
const kubectlTimeout = 60 * time.Second

// kubectls is the kubectl of every sandbox the tests started, by base URL.
var kubectls sync.Map // string → *sandboxKubectl

type sandboxKubectl struct {
	mu  sync.Mutex // one command at a time, as in a terminal
	env *kubectl.Env
}

// registerKubectl gives the sandbox hs a kubectl for the replay's kubectl
// steps, until t ends.
func registerKubectl(t *testing.T, hs *httptest.Server) {
	kubectls.Store(hs.URL, &sandboxKubectl{env: &kubectl.Env{Handler: hs.Config.Handler, Server: hs.URL, Namespace: "default"}})
	t.Cleanup(func() { kubectls.Delete(hs.URL) })
}

// kubectlRequest is what replay.mjs posts: a command line's commands, each
// its words after "kubectl" (more than one: a pipe), and a heredoc's text as
// the first one's stdin (null: none).
type kubectlRequest struct {
	Base     string     `json:"base"`
	Commands [][]string `json:"commands"`
	Stdin    *string    `json:"stdin"`
}

// kubectlAnswer is what the runner's kubectl function resolves to.
type kubectlAnswer struct {
	Exit      int               `json:"exit"`
	Output    string            `json:"output"`
	Exchanges []kubectlExchange `json:"exchanges"`
}

type kubectlExchange struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Status int    `json:"status"`
}

// lockedBuffer is stdout and stderr as one terminal shows them.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// startKubectlService serves the sandboxes' kubectl to replay.mjs until t
// ends, and returns its URL.
func startKubectlService(t *testing.T) string {
	ks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req kubectlRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		v, ok := kubectls.Load(req.Base)
		if !ok {
			http.Error(w, "no sandbox at "+req.Base, http.StatusNotFound)
			return
		}
		sk := v.(*sandboxKubectl)
		sk.mu.Lock()
		defer sk.mu.Unlock()
		var out lockedBuffer
		var ans kubectlAnswer
		env := sk.env
		env.Exchange = func(ex kubectl.Exchange) {
			out.mu.Lock()
			defer out.mu.Unlock()
			ans.Exchanges = append(ans.Exchanges, kubectlExchange{Method: ex.Method, Path: strings.TrimPrefix(ex.URL, req.Base), Status: ex.Status})
		}
		ctx, cancel := context.WithTimeout(r.Context(), kubectlTimeout)
		defer cancel()
		// As the terminal runs a pipe: one command after the other, each
		// one's stdout the next one's stdin.
		var stdin []byte
		if req.Stdin != nil {
			stdin = []byte(*req.Stdin)
		}
		for i, args := range req.Commands {
			env.Stdin, env.Stdout, env.Stderr = bytes.NewReader(stdin), &out, &out
			var piped bytes.Buffer
			if i < len(req.Commands)-1 {
				env.Stdout = &piped
			}
			ans.Exit = kubectl.Run(ctx, env, args)
			stdin = piped.Bytes()
		}
		out.mu.Lock()
		ans.Output = out.buf.String()
		out.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(ans)
	}))
	t.Cleanup(ks.Close)
	return ks.URL
}

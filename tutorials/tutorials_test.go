package tutorials

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"kubeplay/core/auth"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/sandbox"
	"kubeplay/core/sim"
	"kubeplay/core/xds"
)

// The replay below plays each tutorial with the player's own runner,
// ui/src/tutorial-runner.js, in Node (replay.mjs): a tutorial that passes here
// passes in the player. The types here check the tutorials' shape.

type indexEntry struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	File  string `json:"file"`
}

type tutorial struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Summary string `json:"summary"`
	// Cluster "simulated": the tutorial needs the simulated cluster (nodes,
	// kubelets, controllers), which the browser's sandbox does not run.
	Cluster string `json:"cluster,omitempty"`
	// Seeds are the sections of the source documents it teaches, each
	// "FILE#SECTION" of seeds.json (PLAY-7).
	Seeds []string `json:"seeds,omitempty"`
	Steps []step   `json:"steps"`
}

type step struct {
	Title     string `json:"title"`
	Narration string `json:"narration"`
	// A step sends a request, or runs Kubectl: a command line as typed in
	// the page's terminal ("type this").
	Request *request          `json:"request,omitempty"`
	Kubectl string            `json:"kubectl,omitempty"`
	Watch   *watchSpec        `json:"watch,omitempty"`
	Expect  *expect           `json:"expect,omitempty"`
	Save    map[string]string `json:"save,omitempty"`
}

type request struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    any               `json:"body,omitempty"`
}

type watchSpec struct {
	Events int `json:"events"`
	// Until: read until an event has these values ({"dotted.path": value}).
	Until map[string]any `json:"until,omitempty"`
}

type expect struct {
	Status      *int           `json:"status,omitempty"`
	JSON        map[string]any `json:"json,omitempty"`
	JSONPresent []string       `json:"jsonPresent,omitempty"`
	JSONAbsent  []string       `json:"jsonAbsent,omitempty"`
	// AtLeast: the number at the path is at least this (absent counts as 0).
	AtLeast  map[string]float64 `json:"atLeast,omitempty"`
	Contains []string           `json:"contains,omitempty"`
	Warnings *[]string          `json:"warnings,omitempty"`
	// Headers are response headers the answer must carry, by name (any case).
	Headers    map[string]string `json:"headers,omitempty"`
	Events     []eventExpect     `json:"events,omitempty"`
	EventCount *int              `json:"eventCount,omitempty"`
	// Exit and Requests are a kubectl step's: its exit code, and requests
	// ("METHOD /path") it must send, in that order.
	Exit     *int     `json:"exit,omitempty"`
	Requests []string `json:"requests,omitempty"`
}

type eventExpect struct {
	Type string         `json:"type,omitempty"`
	Name *string        `json:"name,omitempty"`
	JSON map[string]any `json:"json,omitempty"`
}

// decodeStrict decodes JSON rejecting unknown fields, so a misspelt expectation
// fails loudly instead of checking nothing.
func decodeStrict(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// loadStrict reads file into v with decodeStrict, failing t with the
// file's name and the mistake.
func loadStrict(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := decodeStrict(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func loadIndex(t *testing.T) []indexEntry {
	t.Helper()
	var idx []indexEntry
	loadStrict(t, "index.json", &idx)
	if len(idx) == 0 {
		t.Fatal("index.json lists no tutorials")
	}
	return idx
}

func loadTutorial(t *testing.T, file string) *tutorial {
	t.Helper()
	var tut tutorial
	loadStrict(t, file, &tut)
	return &tut
}

var varRE = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// varsIn lists the variable names used in v's strings (not in object keys).
func varsIn(v any, out map[string]bool) {
	switch x := v.(type) {
	case string:
		for _, m := range varRE.FindAllStringSubmatch(x, -1) {
			out[m[1]] = true
		}
	case []any:
		for _, e := range x {
			varsIn(e, out)
		}
	case map[string]any:
		for _, e := range x {
			varsIn(e, out)
		}
	}
}

func isWatchPath(p string) bool {
	if strings.Contains(p, "/watch/") {
		return true
	}
	_, query, _ := strings.Cut(p, "?")
	for _, kv := range strings.Split(query, "&") {
		if kv == "watch=1" || kv == "watch=true" {
			return true
		}
	}
	return false
}

// TestPLAY_7_TutorialsIndex checks index.json against the files, and each
// tutorial's shape: required fields, watch steps, and that every variable a step
// uses was saved by an earlier step.
func TestPLAY_7_TutorialsIndex(t *testing.T) {
	idx := loadIndex(t)
	listed := map[string]bool{}
	ids := map[string]bool{}
	for _, e := range idx {
		if e.ID == "" || e.Title == "" || e.File == "" {
			t.Errorf("index entry %+v: id, title and file are required", e)
			continue
		}
		if ids[e.ID] {
			t.Errorf("index: duplicate id %q", e.ID)
		}
		ids[e.ID] = true
		if filepath.Base(e.File) != e.File || filepath.Ext(e.File) != ".json" || e.File == "index.json" {
			t.Errorf("index entry %q: file %q must be a .json file name in tutorials/", e.ID, e.File)
			continue
		}
		if listed[e.File] {
			t.Errorf("index: %s listed twice", e.File)
		}
		listed[e.File] = true
		if _, err := os.Stat(e.File); err != nil {
			t.Errorf("index entry %q: %v", e.ID, err)
			continue
		}
		tut := loadTutorial(t, e.File)
		if tut.ID != e.ID || tut.Title != e.Title {
			t.Errorf("%s: id/title %q/%q, index says %q/%q", e.File, tut.ID, tut.Title, e.ID, e.Title)
		}
		checkShape(t, tut)
	}
	files, err := filepath.Glob("*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f != "index.json" && f != "tracks.json" && f != "glossary.json" && f != "seeds.json" && !listed[f] {
			t.Errorf("%s is not listed in index.json", f)
		}
	}
}

// reporter is where checkShape reports: a test, or an exercise's validation.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

func checkShape(t reporter, tut *tutorial) {
	t.Helper()
	if tut.Summary == "" || len(tut.Steps) == 0 {
		t.Errorf("%s: summary and steps are required", tut.ID)
	}
	if tut.Cluster != "" && tut.Cluster != "simulated" {
		t.Errorf("%s: cluster is \"simulated\" or absent", tut.ID)
	}
	saved := map[string]bool{}
	for i, st := range tut.Steps {
		where := fmt.Sprintf("%s step %d (%q)", tut.ID, i+1, st.Title)
		if st.Title == "" || strings.TrimSpace(st.Narration) == "" {
			t.Errorf("%s: title and narration are required", where)
		}
		used := map[string]bool{}
		if (st.Request == nil) == (st.Kubectl == "") {
			t.Errorf("%s: a step has a request or a kubectl command line, not both", where)
			continue
		}
		if st.Kubectl != "" {
			checkKubectlStep(t, where, st)
			varsIn(st.Kubectl, used)
		} else {
			checkRequestStep(t, where, st)
			varsIn(st.Request.Path, used)
			for _, h := range st.Request.Headers {
				varsIn(h, used)
			}
			varsIn(st.Request.Body, used)
		}
		if st.Expect != nil {
			varsIn(st.Expect.JSON, used)
			for _, c := range st.Expect.Contains {
				varsIn(c, used)
			}
			if st.Expect.Warnings != nil {
				for _, w := range *st.Expect.Warnings {
					varsIn(w, used)
				}
			}
			for _, v := range st.Expect.Headers {
				varsIn(v, used)
			}
			for _, e := range st.Expect.Events {
				varsIn(e.JSON, used)
				if e.Name != nil {
					varsIn(*e.Name, used)
				}
			}
			for _, r := range st.Expect.Requests {
				varsIn(r, used)
			}
		}
		for v := range used {
			if !saved[v] {
				t.Errorf("%s: uses {{%s}}, which no earlier step saves", where, v)
			}
		}
		for v, p := range st.Save {
			if p == "" && (st.Watch != nil || st.Kubectl != "") {
				t.Errorf("%s: save %s has no path (the whole answer is saved only from a request's)", where, v)
			}
			if st.Watch != nil && p != "events" && !strings.HasPrefix(p, "events.") {
				t.Errorf("%s: a watch step saves from events.N...., not %q", where, p)
			}
			saved[v] = true
		}
	}
}

// requestLineRE is a kubectl step's expected request: a method and a path.
var requestLineRE = regexp.MustCompile(`^(GET|POST|PUT|PATCH|DELETE) /\S*$`)

// checkKubectlStep checks a kubectl step: one kubectl command line (a
// heredoc's lines after it), an exit code expected, requests named as
// "METHOD /path", and nothing a request step expects of an HTTP answer.
func checkKubectlStep(t reporter, where string, st step) {
	t.Helper()
	if first, _, _ := strings.Cut(st.Kubectl, "\n"); !strings.HasPrefix(first, "kubectl ") {
		t.Errorf("%s: kubectl is a command line starting with \"kubectl \", got %q", where, first)
	}
	if st.Watch != nil {
		t.Errorf("%s: a kubectl step cannot be a watch step", where)
	}
	e := st.Expect
	if e == nil || e.Exit == nil {
		t.Errorf("%s: a kubectl step should expect an exit code", where)
		return
	}
	if e.Status != nil || e.Warnings != nil || e.Headers != nil || e.Events != nil || e.EventCount != nil {
		t.Errorf("%s: a kubectl step expects exit, contains, requests and json of {exit, output, exchanges}, not status, warnings, headers or events", where)
	}
	for _, r := range e.Requests {
		if !requestLineRE.MatchString(r) {
			t.Errorf("%s: requests: %q is not \"METHOD /path\"", where, r)
		}
	}
}

// checkRequestStep checks a step that sends a request.
func checkRequestStep(t reporter, where string, st step) {
	t.Helper()
	if st.Request.Method == "" || !strings.HasPrefix(st.Request.Path, "/") {
		t.Errorf("%s: request needs a method and an absolute path", where)
	}
	switch b := st.Request.Body.(type) {
	case nil, string, map[string]any, []any:
	default:
		t.Errorf("%s: body must be an object or a string, got %T", where, b)
	}
	if st.Watch != nil {
		if st.Watch.Events <= 0 {
			t.Errorf("%s: watch.events must be positive", where)
		}
		if !isWatchPath(st.Request.Path) {
			t.Errorf("%s: a watch step's path needs watch=1 or /watch/", where)
		}
		if !strings.Contains(st.Request.Path, "timeoutSeconds=") {
			t.Errorf("%s: a watch step should set timeoutSeconds so it ends on its own", where)
		}
		if st.Watch.Until == nil && (st.Expect == nil || (st.Expect.Events == nil && st.Expect.EventCount == nil)) {
			t.Errorf("%s: a watch step must expect events or an eventCount, or read until an event matches", where)
		}
	} else if st.Expect != nil && (st.Expect.Events != nil || st.Expect.EventCount != nil) {
		t.Errorf("%s: events expectations need a watch step", where)
	}
	if st.Expect == nil || st.Expect.Status == nil {
		t.Errorf("%s: every step should expect a status", where)
	}
	if st.Expect != nil && (st.Expect.Exit != nil || st.Expect.Requests != nil) {
		t.Errorf("%s: exit and requests are a kubectl step's expectations", where)
	}
}

// TestPLAY_7_TutorialsReplay replays every tutorial against the core, twice on the
// same server: the second run shows a tutorial can be replayed in a sandbox
// where it already ran. A tutorial holds in both kinds of sandbox, an
// API-only one and one with the simulated cluster (run 5 times faster: what a tutorial shows
// between two moments, such as a readiness probe's 30 s delay, keeps 6 s of a busy machine's time),
// which behaves as a real cluster does (a kube-root-ca.crt ConfigMap in
// every namespace, controllers writing beside the tutorial); one that says
// "cluster": "simulated" needs the simulation and runs with it only. The
// player's runner plays them, in Node (make deps installs it).
func TestPLAY_7_TutorialsReplay(t *testing.T) {
	player := startPlayer(t)
	for _, e := range loadIndex(t) {
		tut := loadTutorial(t, e.File)
		modes := []string{"simulated"}
		if tut.Cluster == "" {
			modes = append(modes, "api-only")
		}
		for _, mode := range modes {
			t.Run(e.ID+"/"+mode, func(t *testing.T) {
				t.Parallel()
				replayTutorial(t, player, e.ID, e.File, mode == "api-only")
			})
		}
	}
}

// replayTutorial plays tutorial id (in file) twice on a new sandbox beside
// the discovery service, as the native command serves them.
func replayTutorial(t *testing.T, player *player, id, file string, apiOnly bool) {
	hs := newSandbox(t, apiOnly)
	res := player.play(map[string]any{"base": hs.URL, "file": file, "runs": 2})
	if !res.OK && res.Step == 0 {
		t.Fatalf("tutorial %s: %s", id, strings.Join(res.Failures, "\n  "))
	}
	if !res.OK {
		t.Fatalf("tutorial %s, run %d, step %d (%q): %s\nstatus %d, body:\n%s", id, res.Run, res.Step, res.Title,
			strings.Join(res.Failures, "\n  "), res.Status, res.Body)
	}
}

// newSandbox starts a new sandbox (API-only, or with the simulated cluster
// 5 times faster) beside the discovery service, as the native command serves
// them, for t.
func newSandbox(t *testing.T, apiOnly bool) *httptest.Server {
	// As the page and the native command's loopback listener serve them, a
	// request without a token is the sandbox's user, kubernetes-admin.
	admin := auth.Admin()
	srv, err := sandbox.New(sandbox.Config{APIOnly: apiOnly, Cluster: sim.Config{Speed: 5},
		Resources: api.XDS(xds.Validate), Tokenless: &admin})
	if err != nil {
		t.Fatal(err)
	}
	// The discovery service beside the API, as the native command
	// serves it.
	xs, stopXDS := xds.Start(srv, xds.Config{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if xds.IsHTTPPath(r.URL.Path) {
			xs.ServeHTTP(w, r)
			return
		}
		srv.ServeHTTP(w, r)
	}))
	registerKubectl(t, hs)
	t.Cleanup(func() {
		stopXDS()
		// Let the namespace controller finish the namespaces the tutorial
		// deleted: closing the store under it can leave storage.Store.List
		// holding its mutex (db.View fails before the callback that unlocks
		// it), and then Server.Close waits for the controller forever.
		waitNoTerminatingNamespaces(t, hs)
		hs.CloseClientConnections()
		hs.Close()
		srv.Close()
	})
	return hs
}

// player is one Node process playing tutorials with the player's runner
// (replay.mjs) for every subtest at once, so Node and the runner start once.
type player struct {
	mu      sync.Mutex
	stdin   io.WriteCloser
	next    int
	waiting map[int]chan replayResult
	exited  error // once Node's answers ended
}

// replayResult is what replay.mjs answers: ok, or the first step that failed.
type replayResult struct {
	ID       int      `json:"id"`
	OK       bool     `json:"ok"`
	Run      int      `json:"run"`
	Step     int      `json:"step"`
	Title    string   `json:"title"`
	Failures []string `json:"failures"`
	Status   int      `json:"status"`
	Body     string   `json:"body"`
	// State is an exercise checker's last state.
	State json.RawMessage `json:"state"`
}

// startPlayer starts replay.mjs in Node for t and its subtests.
func startPlayer(t *testing.T) *player {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("the tutorials are replayed by the player's runner in Node: %v", err)
	}
	cmd := exec.Command(node, "replay.mjs")
	cmd.Env = append(os.Environ(), "KUBEPLAY_KUBECTL="+startKubectlService(t))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &player{stdin: stdin, waiting: map[int]chan replayResult{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		lines := bufio.NewScanner(stdout)
		lines.Buffer(nil, 1<<20)
		for lines.Scan() {
			var res replayResult
			if err := json.Unmarshal(lines.Bytes(), &res); err != nil {
				res.Failures = []string{fmt.Sprintf("replay.mjs answered %q: %v", lines.Bytes(), err)}
			}
			p.mu.Lock()
			if c, ok := p.waiting[res.ID]; ok {
				c <- res
				delete(p.waiting, res.ID)
			}
			p.mu.Unlock()
		}
		err := cmd.Wait()
		p.mu.Lock()
		defer p.mu.Unlock()
		p.exited = fmt.Errorf("node replay.mjs ended (%v): %s", err, stderr.Bytes())
		for id, c := range p.waiting {
			c <- replayResult{Failures: []string{p.exited.Error()}}
			delete(p.waiting, id)
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		<-done
	})
	return p
}

// play sends replay.mjs one request (a tutorial's or an exercise's, see
// there) and waits for its answer.
func (p *player) play(req map[string]any) replayResult {
	p.mu.Lock()
	if p.exited != nil {
		p.mu.Unlock()
		return replayResult{Failures: []string{p.exited.Error()}}
	}
	p.next++
	id := p.next
	c := make(chan replayResult, 1)
	p.waiting[id] = c
	req["id"] = id
	line, _ := json.Marshal(req)
	_, err := p.stdin.Write(append(line, '\n'))
	p.mu.Unlock()
	if err != nil {
		return replayResult{Failures: []string{fmt.Sprintf("writing to replay.mjs: %v", err)}}
	}
	return <-c
}

// waitNoTerminatingNamespaces waits (up to 10s) until no namespace is Terminating.
func waitNoTerminatingNamespaces(t *testing.T, hs *httptest.Server) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		terminating := 0
		resp, err := hs.Client().Get(hs.URL + "/api/v1/namespaces")
		if err != nil {
			t.Errorf("listing namespaces: %v", err)
			return
		}
		var list struct {
			Items []struct {
				Status struct {
					Phase string `json:"phase"`
				} `json:"status"`
			} `json:"items"`
		}
		err = json.NewDecoder(resp.Body).Decode(&list)
		resp.Body.Close()
		if err != nil {
			t.Errorf("listing namespaces: %v", err)
			return
		}
		for _, ns := range list.Items {
			if ns.Status.Phase == "Terminating" {
				terminating++
			}
		}
		if terminating == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%d namespaces still Terminating after 10s", terminating)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

package tutorials

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kubeplay/core/apiserver"
	"kubeplay/core/sandbox"
	"kubeplay/core/schema"
	"kubeplay/core/sim"
	"kubeplay/core/xds"
)

// The replay below follows the semantics of ui/src/tutorial-runner.js (described in
// README.md): substitution, expectations, watch events and saved variables. A
// tutorial that passes here passes in the player.

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
	Steps   []step `json:"steps"`
}

type step struct {
	Title     string            `json:"title"`
	Narration string            `json:"narration"`
	Request   request           `json:"request"`
	Watch     *watchSpec        `json:"watch,omitempty"`
	Expect    *expect           `json:"expect,omitempty"`
	Save      map[string]string `json:"save,omitempty"`
}

type request struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    any               `json:"body,omitempty"`
}

type watchSpec struct {
	Events int `json:"events"`
}

type expect struct {
	Status      *int           `json:"status,omitempty"`
	JSON        map[string]any `json:"json,omitempty"`
	JSONPresent []string       `json:"jsonPresent,omitempty"`
	JSONAbsent  []string       `json:"jsonAbsent,omitempty"`
	Contains    []string       `json:"contains,omitempty"`
	Warnings    *[]string      `json:"warnings,omitempty"`
	// Headers are response headers the answer must carry, by name (any case).
	Headers    map[string]string `json:"headers,omitempty"`
	Events     []eventExpect     `json:"events,omitempty"`
	EventCount *int              `json:"eventCount,omitempty"`
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

func loadIndex(t *testing.T) []indexEntry {
	t.Helper()
	data, err := os.ReadFile("index.json")
	if err != nil {
		t.Fatal(err)
	}
	var idx []indexEntry
	if err := decodeStrict(data, &idx); err != nil {
		t.Fatalf("index.json: %v", err)
	}
	if len(idx) == 0 {
		t.Fatal("index.json lists no tutorials")
	}
	return idx
}

func loadTutorial(t *testing.T, file string) *tutorial {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var tut tutorial
	if err := decodeStrict(data, &tut); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
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
		if f != "index.json" && !listed[f] {
			t.Errorf("%s is not listed in index.json", f)
		}
	}
}

func checkShape(t *testing.T, tut *tutorial) {
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
			if st.Expect == nil || (st.Expect.Events == nil && st.Expect.EventCount == nil) {
				t.Errorf("%s: a watch step must expect events or an eventCount", where)
			}
		} else if st.Expect != nil && (st.Expect.Events != nil || st.Expect.EventCount != nil) {
			t.Errorf("%s: events expectations need a watch step", where)
		}
		if st.Expect == nil || st.Expect.Status == nil {
			t.Errorf("%s: every step should expect a status", where)
		}
		used := map[string]bool{}
		varsIn(st.Request.Path, used)
		for _, h := range st.Request.Headers {
			varsIn(h, used)
		}
		varsIn(st.Request.Body, used)
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
		}
		for v := range used {
			if !saved[v] {
				t.Errorf("%s: uses {{%s}}, which no earlier step saves", where, v)
			}
		}
		for v, p := range st.Save {
			if p == "" {
				t.Errorf("%s: save %s has no path", where, v)
			}
			if st.Watch != nil && p != "events" && !strings.HasPrefix(p, "events.") {
				t.Errorf("%s: a watch step saves from events.N...., not %q", where, p)
			}
			saved[v] = true
		}
	}
}

// TestPLAY_7_TutorialsReplay replays every tutorial against the core, twice on the
// same server: the second run shows a tutorial can be replayed in a sandbox
// where it already ran. A tutorial holds in both kinds of sandbox, an
// API-only one and one with the simulated cluster (run 5 times faster: what a tutorial shows
// between two moments, such as a readiness probe's 30 s delay, keeps 6 s of a busy machine's time),
// which behaves as a real cluster does (a kube-root-ca.crt ConfigMap in
// every namespace, controllers writing beside the tutorial); one that says
// "cluster": "simulated" needs the simulation and runs with it only.
func TestPLAY_7_TutorialsReplay(t *testing.T) {
	for _, e := range loadIndex(t) {
		tut := loadTutorial(t, e.File)
		modes := []string{"simulated"}
		if tut.Cluster == "" {
			modes = append(modes, "api-only")
		}
		for _, mode := range modes {
			t.Run(e.ID+"/"+mode, func(t *testing.T) {
				t.Parallel()
				replayTutorial(t, tut, mode == "api-only")
			})
		}
	}
}

// replayTutorial plays tut twice on a new sandbox beside the discovery
// service, as the native command serves them.
func replayTutorial(t *testing.T, tut *tutorial, apiOnly bool) {
	srv, err := sandbox.New(sandbox.Config{APIOnly: apiOnly, Cluster: sim.Config{Speed: 5},
		API: apiserver.Config{Resources: schema.XDS(xds.Validate)}})
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
	for run := 1; run <= 2; run++ {
		vars := map[string]any{}
		for i, st := range tut.Steps {
			res := runStep(t.Context(), hs.Client(), hs.URL, st, vars)
			if len(res.failures) > 0 {
				t.Fatalf("tutorial %s, run %d, step %d (%q): %s\nstatus %d, body:\n%s", tut.ID, run, i+1, st.Title,
					strings.Join(res.failures, "\n  "), res.status, truncate(res.bodyText, 2000))
			}
			vars = res.vars
		}
	}
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

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// stepResult mirrors what runStep in tutorial-runner.js resolves to.
type stepResult struct {
	status   int
	bodyText string
	json     any
	events   []any
	failures []string
	vars     map[string]any
}

// warningTexts are the texts of an answer's Warning headers (299 - "text").
func warningTexts(h http.Header) []string {
	out := []string{}
	for _, v := range h.Values("Warning") {
		_, quoted, _ := strings.Cut(v, " - ")
		if text, err := strconv.Unquote(quoted); err == nil {
			quoted = text
		}
		out = append(out, quoted)
	}
	return out
}

// watchLimit bounds a watch step if the stream neither delivers nor ends.
const watchLimit = 20 * time.Second

func varText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

// substitute replaces {{name}} in v's strings (not object keys); unknown names stay.
func substitute(v any, vars map[string]any) any {
	switch x := v.(type) {
	case string:
		return varRE.ReplaceAllStringFunc(x, func(m string) string {
			name := varRE.FindStringSubmatch(m)[1]
			if val, ok := vars[name]; ok {
				return varText(val)
			}
			return m
		})
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = substitute(e, vars)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = substitute(e, vars)
		}
		return out
	default:
		return v
	}
}

func substituteString(s string, vars map[string]any) string { return substitute(s, vars).(string) }

// getPath looks up a dotted path: object keys, array indexes, and `length` of an
// array. ok is false when the path does not exist.
func getPath(v any, dotted string) (any, bool) {
	if dotted == "" {
		return v, true
	}
	for _, seg := range strings.Split(dotted, ".") {
		switch x := v.(type) {
		case []any:
			if seg == "length" {
				v = float64(len(x))
				continue
			}
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 || n >= len(x) || strconv.Itoa(n) != seg {
				return nil, false
			}
			v = x[n]
		case map[string]any:
			e, ok := x[seg]
			if !ok {
				return nil, false
			}
			v = e
		default:
			return nil, false
		}
	}
	return v, true
}

func show(v any, ok bool) string {
	if !ok {
		return "nothing"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func checkJSON(root any, want map[string]any, vars map[string]any, prefix string, failures *[]string) {
	paths := make([]string, 0, len(want))
	for p := range want {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		w := substitute(want[p], vars)
		got, ok := getPath(root, p)
		if !ok || !reflect.DeepEqual(got, w) {
			*failures = append(*failures, fmt.Sprintf("%s%s: got %s, want %s", prefix, p, show(got, ok), show(w, true)))
		}
	}
}

func parseJSON(b []byte) any {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil
	}
	return v
}

// runStep runs one step as tutorial-runner.js does.
func runStep(ctx context.Context, client *http.Client, base string, st step, vars map[string]any) *stepResult {
	res := &stepResult{vars: make(map[string]any, len(vars)+len(st.Save))}
	for k, v := range vars {
		res.vars[k] = v
	}
	fail := func(format string, args ...any) { res.failures = append(res.failures, fmt.Sprintf(format, args...)) }

	used := map[string]bool{}
	varsIn(st.Request.Path, used)
	for _, h := range st.Request.Headers {
		varsIn(h, used)
	}
	varsIn(st.Request.Body, used)
	var missing []string
	for v := range used {
		if _, ok := res.vars[v]; !ok {
			missing = append(missing, "{{"+v+"}}")
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		fail("unknown variable(s): %s (did an earlier step fail?)", strings.Join(missing, ", "))
		return res
	}

	path := substituteString(st.Request.Path, res.vars)
	var body io.Reader
	if st.Request.Body != nil {
		switch b := substitute(st.Request.Body, res.vars).(type) {
		case string:
			body = strings.NewReader(b)
		default:
			data, err := json.Marshal(b)
			if err != nil {
				fail("body: %v", err)
				return res
			}
			body = bytes.NewReader(data)
		}
	}
	method := strings.ToUpper(st.Request.Method)
	if method == "" {
		method = http.MethodGet
	}
	if st.Watch != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, watchLimit)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, body)
	if err != nil {
		fail("request: %v", err)
		return res
	}
	for k, v := range st.Request.Headers {
		req.Header.Set(k, substituteString(v, res.vars))
	}
	if body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		fail("request failed: %v", err)
		return res
	}
	defer resp.Body.Close()
	res.status = resp.StatusCode

	var root any
	if st.Watch != nil {
		var text strings.Builder
		events := []any{}
		rd := bufio.NewReader(resp.Body)
		for len(events) < st.Watch.Events {
			line, err := rd.ReadString('\n')
			text.WriteString(line)
			if trimmed := strings.TrimSpace(line); trimmed != "" {
				if e := parseJSON([]byte(trimmed)); e == nil {
					fail("watch: line is not JSON: %s", truncate(trimmed, 200))
				} else {
					events = append(events, e)
				}
			}
			if err != nil {
				break // stream ended (or the watch limit passed)
			}
		}
		res.events = events
		res.bodyText = text.String()
		res.json = map[string]any{"events": events}
	} else {
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			fail("reading body: %v", err)
		}
		res.bodyText = string(data)
		res.json = parseJSON(data)
	}
	root = res.json

	ex := st.Expect
	if ex == nil {
		ex = &expect{}
	}
	if ex.Status != nil && res.status != *ex.Status {
		fail("status: got %d, want %d", res.status, *ex.Status)
	}
	if ex.Warnings != nil {
		want := []string{}
		for _, w := range *ex.Warnings {
			want = append(want, substituteString(w, res.vars))
		}
		if got := warningTexts(resp.Header); !slices.Equal(got, want) {
			fail("warnings: got %s, want %s", show(got, true), show(want, true))
		}
	}
	checkJSON(root, ex.JSON, res.vars, "", &res.failures)
	for _, p := range ex.JSONPresent {
		if _, ok := getPath(root, p); !ok {
			fail("%s: missing, want present", p)
		}
	}
	for _, p := range ex.JSONAbsent {
		if got, ok := getPath(root, p); ok {
			fail("%s: got %s, want absent", p, show(got, true))
		}
	}
	for name, want := range ex.Headers {
		if want, got := substituteString(want, res.vars), resp.Header.Get(name); got != want {
			fail("header %s: got %q, want %q", name, got, want)
		}
	}
	for _, c := range ex.Contains {
		if s := substituteString(c, res.vars); !strings.Contains(res.bodyText, s) {
			fail("body does not contain %q", s)
		}
	}
	for i, want := range ex.Events {
		if i >= len(res.events) {
			fail("events.%d: missing (got %d events), want %s", i, len(res.events), want.Type)
			continue
		}
		e := res.events[i]
		if want.Type != "" {
			if got, ok := getPath(e, "type"); !ok || got != want.Type {
				fail("events.%d.type: got %s, want %q", i, show(got, ok), want.Type)
			}
		}
		if want.Name != nil {
			name := substituteString(*want.Name, res.vars)
			if got, ok := getPath(e, "object.metadata.name"); !ok || got != name {
				fail("events.%d.object.metadata.name: got %s, want %q", i, show(got, ok), name)
			}
		}
		checkJSON(e, want.JSON, res.vars, fmt.Sprintf("events.%d.", i), &res.failures)
	}
	if ex.EventCount != nil && len(res.events) != *ex.EventCount {
		fail("eventCount: got %d, want %d", len(res.events), *ex.EventCount)
	}
	names := make([]string, 0, len(st.Save))
	for name := range st.Save {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p := st.Save[name]
		if v, ok := getPath(root, p); ok {
			res.vars[name] = v
		} else {
			fail("save %s: %s not found", name, p)
		}
	}
	return res
}

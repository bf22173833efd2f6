package main

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/auth"
	"kubeplay/core/clock"
	"kubeplay/core/export"
	"kubeplay/core/requestlog"
	"kubeplay/core/sandbox"
	"kubeplay/core/sim"
	"kubeplay/core/storage"
	"kubeplay/core/user"
	"kubeplay/core/xds"
	"kubeplay/internal/control"
)

// The workshop (WORK-1): with an instructor token the command serves many
// sandboxes besides its own, one per attendee, over the control protocol
// (internal/control) at /workshops, /sandboxes and /s/{id}/.... Each is a
// full sandbox.New (simulated or API-only, with the command's budgets) whose
// token the attendee's kubectl sends over TLS; the core knows its holder by
// the sandbox's label (`kubectl auth whoami` shows it), as a cluster admin
// of that sandbox alone.
//
// A sandbox runs only while used: it starts on its first request and is
// unloaded once no request has been open for --sandbox-idle, its objects
// kept (in memory, or on disk under --data) and its request log too, so an
// idle sandbox runs no goroutine and no timer, and holds its objects'
// snapshot and its log. The next request starts it again from them, as a
// restarted server starts from its data directory.
//
// With --data DIR each sandbox lives in DIR/sandboxes/{id}: sandbox.json (its
// label, cluster, token hash, and its token sealed with the instructor token,
// AES-GCM, for the instructor's later download of the kubeconfigs; mode
// 0600, in directories of mode 0700) and store/ (its objects). A restarted
// server keeps the workshop: the tokens still open their sandboxes; their
// kubeconfigs can be downloaded again under the same instructor token.

// workshopOptions are the workshop's flags.
type workshopOptions struct {
	instructorToken string
	maxSandboxes    int
	idle            time.Duration // a sandbox unused this long is unloaded
}

// fleet is the native host's sandboxes (control.Fleet).
type fleet struct {
	o      options
	dir    string // DIR/sandboxes; empty: in memory
	seal   cipher.AEAD
	logged func(requestlog.Entry) bool // the terminal's --log-requests

	mu   sync.Mutex
	byID map[string]*attendee
}

// record is what a sandbox is, kept in its sandbox.json.
type record struct {
	ID          string          `json:"id"`
	Label       string          `json:"label"`
	Workshop    string          `json:"workshop,omitempty"`
	Cluster     control.Cluster `json:"cluster"`
	CreatedAt   time.Time       `json:"createdAt"`
	Listed      bool            `json:"listed"`
	TokenHash   string          `json:"tokenHash"`
	SealedToken string          `json:"sealedToken,omitempty"` // Listed sandboxes': AES-GCM under the instructor token
	// Progress is what the attendee's page last reported (nil: nothing yet).
	Progress *control.Progress `json:"progress,omitempty"`
	// Written: a client wrote (or tried to) since the sandbox was made or
	// reset, or it holds an import; an import then needs ?replace=true.
	Written bool `json:"written,omitempty"`
}

// attendee is one sandbox: its record, and its core while loaded.
type attendee struct {
	f        *fleet
	requests *requestlog.Log // outlives its loads and resets
	stopLog  chan struct{}   // ends the terminal's printing of requests

	mu         sync.Mutex
	rec        record
	token      string // in memory only; "" when it could not be unsealed
	core       *sandbox.Sandbox
	handler    http.Handler
	stopXDS    func()
	persister  storage.Persister // the in-memory sandbox's objects between loads
	open       int               // requests being served
	lastActive time.Time
	unload     *time.Timer // armed while loaded and unused
	usage      [2]int64    // objects and bytes when last unloaded
	gone       bool
	// The core's token table: the attendee's and the instructor's, made
	// anew at each load, never seen outside this process.
	attendeeToken, instructorToken string
}

// newFleet opens the workshop kept under data (none: in memory).
func newFleet(o options, logged func(requestlog.Entry) bool) (*fleet, error) {
	key := sha256.Sum256([]byte("kubeplay workshop credentials\x00" + o.workshop.instructorToken))
	block, _ := aes.NewCipher(key[:])
	seal, _ := cipher.NewGCM(block)
	f := &fleet{o: o, seal: seal, logged: logged, byID: map[string]*attendee{}}
	if o.data == "" {
		return f, nil
	}
	f.dir = filepath.Join(o.data, "sandboxes")
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(f.dir)
	if err != nil {
		return nil, err
	}
	sealedElsewhere := 0
	for _, e := range entries {
		if !control.ValidID(e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(f.dir, e.Name(), "sandbox.json"))
		var rec record
		if err == nil {
			err = json.Unmarshal(b, &rec)
		}
		if err != nil || rec.ID != e.Name() {
			log.Printf("workshop: sandbox %s is not restored: %v", e.Name(), err)
			continue
		}
		a := f.newAttendee(rec)
		if rec.SealedToken != "" {
			if a.token, err = f.unsealToken(rec); err != nil {
				sealedElsewhere++
			}
		}
		f.byID[rec.ID] = a
	}
	if sealedElsewhere > 0 {
		log.Printf("workshop: %d sandboxes' tokens were sealed under another instructor token: they still open their sandboxes, but only a new token (POST /sandboxes/{id}/token) gives their kubeconfigs again", sealedElsewhere)
	}
	if len(f.byID) > 0 {
		log.Printf("workshop: %d sandboxes restored from %s", len(f.byID), f.dir)
	}
	return f, nil
}

func (f *fleet) newAttendee(rec record) *attendee {
	a := &attendee{f: f, rec: rec, lastActive: rec.CreatedAt, requests: requestlog.New(clock.Real, 0, 0, requestlog.IsPath), stopLog: make(chan struct{})}
	if f.logged != nil {
		go printRequests(a.requests, f.logged, a.stopLog)
	}
	return a
}

func (f *fleet) sealToken(rec record, token string) string {
	nonce := make([]byte, f.seal.NonceSize())
	_, _ = rand.Read(nonce)
	return base64.StdEncoding.EncodeToString(f.seal.Seal(nonce, nonce, []byte(token), []byte(rec.ID)))
}

func (f *fleet) unsealToken(rec record) (string, error) {
	b, err := base64.StdEncoding.DecodeString(rec.SealedToken)
	if err != nil || len(b) < f.seal.NonceSize() {
		return "", errors.New("malformed sealed token")
	}
	n := f.seal.NonceSize()
	token, err := f.seal.Open(nil, b[:n], b[n:], []byte(rec.ID))
	if err != nil || control.TokenHash(string(token)) != rec.TokenHash {
		return "", errors.New("sealed under another instructor token")
	}
	return string(token), nil
}

func (f *fleet) get(id string) (*attendee, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if a := f.byID[id]; a != nil {
		return a, nil
	}
	return nil, fmt.Errorf("sandbox %s: %w", id, control.ErrNotFound)
}

// sorted is every sandbox, oldest first.
func (f *fleet) sorted() []*attendee {
	f.mu.Lock()
	out := make([]*attendee, 0, len(f.byID))
	for _, a := range f.byID {
		out = append(out, a)
	}
	f.mu.Unlock()
	slices.SortFunc(out, func(x, y *attendee) int {
		if c := x.rec.CreatedAt.Compare(y.rec.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(x.rec.Label, y.rec.Label)
	})
	return out
}

// Create keeps the sandboxes' records; each starts on its first request.
func (f *fleet) Create(_ context.Context, specs []control.Spec) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if max := f.o.workshop.maxSandboxes; len(f.byID)+len(specs) > max {
		return apierrors.NewForbidden("", "sandboxes", "", fmt.Sprintf("exceeded the server's limit of %d sandboxes (--max-sandboxes): it holds %d, %d more were asked for",
			max, len(f.byID), len(specs)))
	}
	made := make([]*attendee, 0, len(specs))
	for _, s := range specs {
		rec := record{ID: s.ID, Label: s.Label, Workshop: s.Workshop, Cluster: s.Cluster, CreatedAt: s.CreatedAt, Listed: s.Listed, TokenHash: control.TokenHash(s.Token)}
		if s.Listed {
			rec.SealedToken = f.sealToken(rec, s.Token)
		}
		a := f.newAttendee(rec)
		if s.Listed {
			a.token = s.Token
		}
		err := f.save(rec)
		if err == nil && s.State != nil {
			err = f.seed(a, s.State)
		}
		if err != nil {
			for _, m := range append(made, a) {
				close(m.stopLog)
				f.remove(m.rec.ID)
			}
			return err
		}
		made = append(made, a)
	}
	for _, a := range made {
		f.byID[a.rec.ID] = a
	}
	return nil
}

// save writes rec's sandbox.json (0600), replacing it whole.
func (f *fleet) save(rec record) error {
	if f.dir == "" {
		return nil
	}
	dir := filepath.Join(f.dir, rec.ID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(rec, "", "  ")
	tmp := filepath.Join(dir, "sandbox.json.tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, "sandbox.json"))
}

// remove deletes what a sandbox kept on disk.
func (f *fleet) remove(id string) {
	if f.dir != "" {
		_ = os.RemoveAll(filepath.Join(f.dir, id))
	}
}

func (f *fleet) List(context.Context) ([]control.Info, error) {
	var out []control.Info
	for _, a := range f.sorted() {
		if a.rec.Listed {
			out = append(out, a.info())
		}
	}
	return out, nil
}

func (f *fleet) Info(_ context.Context, id string) (control.Info, error) {
	a, err := f.get(id)
	if err != nil {
		return control.Info{}, err
	}
	return a.info(), nil
}

func (f *fleet) Credentials(context.Context) ([]control.Credential, error) {
	var out []control.Credential
	for _, a := range f.sorted() {
		a.mu.Lock()
		if a.rec.Listed {
			out = append(out, control.Credential{ID: a.rec.ID, Label: a.rec.Label, Token: a.token})
		}
		a.mu.Unlock()
	}
	return out, nil
}

// Reset replaces the sandbox's objects by a fresh sandbox's; its token,
// label, cluster and request log stay.
func (f *fleet) Reset(_ context.Context, id string) (control.Info, error) {
	a, err := f.get(id)
	if err != nil {
		return control.Info{}, err
	}
	a.mu.Lock()
	a.stop()
	a.persister, a.usage = nil, [2]int64{}
	if f.dir != "" {
		_ = os.RemoveAll(filepath.Join(f.dir, id, "store"))
	}
	// A fresh sandbox: nothing done in it yet.
	err = a.saveRecord(func(rec *record) { rec.Progress, rec.Written = nil, false })
	a.mu.Unlock()
	if err != nil {
		return control.Info{}, err
	}
	return a.info(), nil
}

// saveRecord changes the sandbox's record as edit does, once its
// sandbox.json has the change. Called with a.mu held.
func (a *attendee) saveRecord(edit func(*record)) error {
	rec := a.rec
	edit(&rec)
	if err := a.f.save(rec); err != nil {
		return err
	}
	a.rec = rec
	return nil
}

// SetProgress keeps what the attendee's page reported in sandbox.json.
func (f *fleet) SetProgress(_ context.Context, id string, p control.Progress) error {
	a, err := f.get(id)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.saveRecord(func(rec *record) { rec.Progress = &p })
}

func (f *fleet) NewToken(_ context.Context, id, token string) error {
	a, err := f.get(id)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	err = a.saveRecord(func(rec *record) {
		rec.TokenHash = control.TokenHash(token)
		if rec.Listed {
			rec.SealedToken = f.sealToken(*rec, token)
		}
	})
	if err != nil {
		return err
	}
	if a.rec.Listed {
		a.token = token
	}
	return nil
}

func (f *fleet) Delete(_ context.Context, id string) error {
	f.mu.Lock()
	a := f.byID[id]
	delete(f.byID, id)
	f.mu.Unlock()
	if a == nil {
		return fmt.Errorf("sandbox %s: %w", id, control.ErrNotFound)
	}
	a.end()
	f.remove(id)
	return nil
}

func (f *fleet) TokenHash(id string) (string, bool) {
	a, err := f.get(id)
	if err != nil {
		return "", false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.rec.TokenHash, true
}

// Route serves the request from the sandbox, starting it if it is not
// running, as its attendee or as the instructor.
func (f *fleet) Route(w http.ResponseWriter, r *http.Request, id string, as control.Access) {
	a, err := f.get(id)
	if err != nil {
		writeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
		return
	}
	if r.URL.Path == export.ImportPath {
		f.importExport(w, r, a)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		a.noteWrite()
	}
	h, token, err := a.acquire()
	if err != nil {
		if errors.Is(err, control.ErrNotFound) {
			writeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
			return
		}
		log.Printf("workshop: sandbox %s (%s) did not start: %v", id, a.rec.Label, err)
		writeStatus(w, http.StatusServiceUnavailable, "ServiceUnavailable", "the sandbox could not start: "+err.Error())
		return
	}
	defer a.release()
	if as == control.Instructor {
		token = a.instructorToken
	}
	r.Header.Set("Authorization", "Bearer "+token)
	h.ServeHTTP(w, r)
}

// noteWrite records that a client wrote, or tried to: the sandbox is no
// longer fresh.
func (a *attendee) noteWrite() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.rec.Written {
		if err := a.saveRecord(func(rec *record) { rec.Written = true }); err != nil {
			log.Printf("workshop: sandbox %s (%s): %v", a.rec.ID, a.rec.Label, err)
		}
	}
}

// close stops every running sandbox (the server is shutting down).
func (f *fleet) close() {
	for _, a := range f.sorted() {
		a.end()
	}
}

// end stops the sandbox for good.
func (a *attendee) end() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stop()
	if !a.gone {
		a.gone = true
		close(a.stopLog)
	}
}

// acquire counts a request in, starting the sandbox when it is not
// running; it answers with the sandbox's handler and its attendee's token.
func (a *attendee) acquire() (http.Handler, string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.gone {
		return nil, "", control.ErrNotFound
	}
	if a.core == nil {
		if err := a.start(); err != nil {
			return nil, "", err
		}
	}
	if a.unload != nil {
		a.unload.Stop()
		a.unload = nil
	}
	a.open++
	a.lastActive = time.Now()
	return a.handler, a.attendeeToken, nil
}

// release counts a request out; the last one arms the unload.
func (a *attendee) release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.open--
	a.lastActive = time.Now()
	if a.open == 0 && a.core != nil && a.unload == nil {
		var t *time.Timer
		t = time.AfterFunc(a.f.o.workshop.idle, func() {
			a.mu.Lock()
			defer a.mu.Unlock()
			if a.unload == t && a.open == 0 {
				a.stop()
			}
		})
		a.unload = t
	}
}

// start runs the sandbox from what it kept (a.mu held).
func (a *attendee) start() error {
	f := a.f
	cfg := sandboxConfig(f.o)
	cfg.APIOnly = a.rec.Cluster.APIOnly()
	cfg.Cluster = sim.Config{Nodes: a.rec.Cluster.Nodes, Speed: a.rec.Cluster.Speed}
	if cfg.Cluster.Speed == 0 {
		cfg.Cluster.Speed = 1
	}
	a.attendeeToken, a.instructorToken = control.NewToken(), control.NewToken()
	admins := []string{"kubeadm:cluster-admins"}
	cfg.Tokens = auth.Tokens{
		a.attendeeToken:   user.User{Name: a.rec.Label, UID: a.rec.ID, Groups: admins},
		a.instructorToken: user.User{Name: "instructor", UID: "instructor", Groups: admins},
	}
	cfg.DenyAnonymous = true
	cfg.Requests = a.requests
	if f.dir != "" {
		p, err := storage.OpenFilePersister(filepath.Join(f.dir, a.rec.ID, "store"))
		if err != nil {
			return err
		}
		cfg.Storage.Persister = p
	} else {
		if a.persister == nil {
			a.persister = storage.NewMemoryPersister(nil)
		}
		cfg.Storage.Persister = a.persister
	}
	core, err := sandbox.New(cfg)
	if err != nil {
		cfg.Storage.Persister.Close()
		return err
	}
	for _, e := range core.Storage().RestoreErrors() {
		log.Printf("workshop: sandbox %s (%s): restore: %v", a.rec.ID, a.rec.Label, e)
	}
	a.core = core
	a.handler = a.withLazyXDS(core)
	return nil
}

// withLazyXDS serves the discovery service's HTTP transports beside the
// API, starting it on the sandbox's first xDS request.
func (a *attendee) withLazyXDS(core *sandbox.Sandbox) http.Handler {
	var once sync.Once
	var h http.Handler
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !xds.IsHTTPPath(r.URL.Path) {
			core.ServeHTTP(w, r)
			return
		}
		once.Do(func() {
			xs, stop := xds.Start(core, xds.Config{Logf: log.Printf, Limits: xds.Limits{Streams: int(a.f.o.budget.XDSStreams), Names: int(a.f.o.budget.XDSNames)}})
			a.mu.Lock()
			if a.core == core {
				a.stopXDS = stop
			} else {
				defer stop() // unloaded meanwhile
			}
			a.mu.Unlock()
			h = withXDS(core, xs)
		})
		h.ServeHTTP(w, r)
	})
}

// stop unloads the sandbox, keeping its objects (a.mu held).
func (a *attendee) stop() {
	if a.unload != nil {
		a.unload.Stop()
		a.unload = nil
	}
	if a.core == nil {
		return
	}
	if a.stopXDS != nil {
		a.stopXDS()
		a.stopXDS = nil
	}
	st := a.core.Storage()
	a.usage[0], a.usage[1] = st.Usage()
	// What is loaded next is the snapshot alone: no journal to replay.
	if err := st.Snapshot(); err != nil {
		log.Printf("workshop: sandbox %s (%s): snapshot: %v", a.rec.ID, a.rec.Label, err)
	}
	a.core.Close()
	a.core, a.handler = nil, nil
}

// info is what the instructor sees of the sandbox.
func (a *attendee) info() control.Info {
	a.mu.Lock()
	rec, objects, bytes, last, requests := a.rec, a.usage[0], a.usage[1], a.lastActive, a.requests
	if a.core != nil {
		objects, bytes = a.core.Storage().Usage()
	}
	a.mu.Unlock()
	in := control.Info{ID: rec.ID, Label: rec.Label, Workshop: rec.Workshop, CreatedAt: rec.CreatedAt, LastActiveAt: last.UTC().Truncate(time.Second),
		Mode: "simulated", Nodes: rec.Cluster.Nodes, Objects: objects,
		Budget:       control.Budget{Bytes: bytes, MaxBytes: a.f.o.budget.Bytes, Objects: objects, MaxObjects: a.f.o.budget.Objects},
		Progress:     control.Progress{Exercises: map[string]bool{}},
		RecentErrors: requests.Failures(control.RecentErrors)}
	if rec.Progress != nil {
		in.Progress = *rec.Progress
	}
	if rec.Cluster.APIOnly() {
		in.Mode, in.Nodes = "api-only", 0
	} else if in.Nodes == 0 {
		in.Nodes = sim.DefaultNodes
	}
	return in
}

// instructorTokenEnv names the instructor token, as INSTRUCTOR_TOKEN does at the edge.
const instructorTokenEnv = "KUBEPLAY_INSTRUCTOR_TOKEN"

// readWorkshopOptions completes w with the instructor token: the file's
// (one line), else the environment's; none runs no workshop.
func readWorkshopOptions(w workshopOptions, tokenFile string) (workshopOptions, error) {
	w.instructorToken = os.Getenv(instructorTokenEnv)
	if tokenFile != "" {
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			return w, fmt.Errorf("--instructor-token-file: %w", err)
		}
		w.instructorToken = strings.TrimSpace(string(b))
		if w.instructorToken == "" {
			return w, fmt.Errorf("--instructor-token-file %s is empty", tokenFile)
		}
	}
	switch {
	case w.instructorToken != "" && (len(w.instructorToken) < 16 || strings.ContainsAny(w.instructorToken, " \t\r\n,")):
		return w, fmt.Errorf("the instructor token must be at least 16 characters, without spaces or commas (e.g. openssl rand -hex 16)")
	case w.maxSandboxes < 1:
		return w, errors.New("--max-sandboxes must be at least 1")
	case w.idle <= 0:
		return w, errors.New("--sandbox-idle must be positive")
	}
	return w, nil
}

// reachableURLs are the URLs attendees may reach the server at: serverURL
// itself, or, when it listens on every address, one for each of this
// machine's addresses beyond loopback.
func reachableURLs(serverURL string) []string {
	scheme, hostport, _ := strings.Cut(serverURL, "://")
	host, port, err := net.SplitHostPort(hostport)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsUnspecified() {
		return []string{serverURL}
	}
	var out []string
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() && !ipn.IP.IsLinkLocalUnicast() {
			out = append(out, scheme+"://"+net.JoinHostPort(ipn.IP.String(), port))
		}
	}
	if len(out) == 0 {
		return []string{serverURL}
	}
	return out
}

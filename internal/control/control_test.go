package control

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kubeplay/core/apierrors"
)

// fleet is a Fleet in memory: what the handler asked of it.
type fleet struct {
	mu     sync.Mutex
	specs  []Spec
	routed []string // "id as path"
	limit  int      // sandboxes at most (0: none)
	ttl    time.Duration
	// progress is each sandbox's, by id.
	progress map[string]Progress
}

func (f *fleet) find(id string) (int, error) {
	for i, s := range f.specs {
		if s.ID == id {
			return i, nil
		}
	}
	return 0, fmt.Errorf("sandbox %s: %w", id, ErrNotFound)
}

func (f *fleet) Create(_ context.Context, specs []Spec) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.limit > 0 && len(f.specs)+len(specs) > f.limit {
		return apierrors.New(http.StatusForbidden, "Forbidden", fmt.Sprintf("this host holds at most %d sandboxes", f.limit), nil)
	}
	for i := range specs {
		if f.ttl > 0 {
			specs[i].ExpiresAt = specs[i].CreatedAt.Add(f.ttl)
		}
	}
	f.specs = append(f.specs, specs...)
	return nil
}

func (f *fleet) info(s Spec) Info {
	return Info{ID: s.ID, Label: s.Label, Workshop: s.Workshop, Mode: s.Cluster.Mode, Progress: f.progress[s.ID]}
}

func (f *fleet) SetProgress(_ context.Context, id string, p Progress) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := f.find(id); err != nil {
		return err
	}
	if f.progress == nil {
		f.progress = map[string]Progress{}
	}
	f.progress[id] = p
	return nil
}

func (f *fleet) List(context.Context) ([]Info, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Info
	for _, s := range f.specs {
		if s.Listed {
			out = append(out, f.info(s))
		}
	}
	return out, nil
}

func (f *fleet) Info(_ context.Context, id string) (Info, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	i, err := f.find(id)
	if err != nil {
		return Info{}, err
	}
	return f.info(f.specs[i]), nil
}

func (f *fleet) Credentials(context.Context) ([]Credential, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Credential
	for _, s := range f.specs {
		if s.Listed {
			out = append(out, Credential{ID: s.ID, Label: s.Label, Token: s.Token})
		}
	}
	return out, nil
}

func (f *fleet) Reset(ctx context.Context, id string) (Info, error) { return f.Info(ctx, id) }

func (f *fleet) NewToken(_ context.Context, id, token string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	i, err := f.find(id)
	if err == nil {
		f.specs[i].Token = token
	}
	return err
}

func (f *fleet) Delete(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	i, err := f.find(id)
	if err == nil {
		f.specs = slices.Delete(f.specs, i, i+1)
	}
	return err
}

func (f *fleet) TokenHash(id string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	i, err := f.find(id)
	if err != nil {
		return "", false
	}
	return TokenHash(f.specs[i].Token), true
}

func (f *fleet) Route(w http.ResponseWriter, r *http.Request, id string, as Access) {
	f.mu.Lock()
	f.routed = append(f.routed, fmt.Sprintf("%s %d %s auth=%q", id, as, r.URL.RequestURI(), r.Header.Get("Authorization")))
	f.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

const instructorToken = "teach-me"

func newTestHandler(f *fleet) *Handler {
	return &Handler{Fleet: f, InstructorToken: func() string { return instructorToken }, CA: []byte("-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n")}
}

type answer struct {
	code int
	body []byte
	h    http.Header
}

func (a answer) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(a.body, v); err != nil {
		t.Fatalf("%s: %v", a.body, err)
	}
}

func (a answer) status(t *testing.T, code int, reason string) {
	t.Helper()
	var st apierrors.Status
	a.decode(t, &st)
	if a.code != code || st.Code != code || st.Reason != reason || st.Kind != "Status" || st.APIVersion != "v1" {
		t.Fatalf("answer %d %s, want %d %s", a.code, a.body, code, reason)
	}
}

func do(h http.Handler, method, target, token, body string) answer {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return answer{w.Code, w.Body.Bytes(), w.Header()}
}

// TestWORK_1_Workshop creates a workshop and checks what it hands out:
// distinct ids and tokens, each token checked against its sandbox only,
// kubeconfigs embedding the CA, links presetting the remote target.
func TestWORK_1_Workshop(t *testing.T) {
	f := &fleet{}
	h := newTestHandler(f)
	a := do(h, "POST", "https://laptop.lan:8443/workshops", instructorToken, `{"attendees":3,"cluster":{"mode":"api-only"},"labels":["ann","bob","cy"]}`)
	if a.code != http.StatusCreated {
		t.Fatalf("%d %s", a.code, a.body)
	}
	var out WorkshopCreated
	a.decode(t, &out)
	if len(out.Sandboxes) != 3 || out.Workshop == "" {
		t.Fatalf("%s", a.body)
	}
	ca := base64.StdEncoding.EncodeToString(h.CA)
	seen := map[string]bool{}
	for i, c := range out.Sandboxes {
		if !ValidID(c.ID) || seen[c.ID] || seen[c.Token] || len(c.Token) < 40 {
			t.Fatalf("sandbox %d: id %q token %q", i, c.ID, c.Token)
		}
		seen[c.ID], seen[c.Token] = true, true
		if c.Label != []string{"ann", "bob", "cy"}[i] || !c.ExpiresAt.IsZero() {
			t.Errorf("sandbox %d: label %q, expires %v", i, c.Label, c.ExpiresAt)
		}
		if c.Server != "https://laptop.lan:8443/s/"+c.ID {
			t.Errorf("server %s", c.Server)
		}
		for _, line := range []string{"    server: " + c.Server + "\n", "    certificate-authority-data: " + ca + "\n", "    token: " + c.Token + "\n"} {
			if !strings.Contains(c.Kubeconfig, line) {
				t.Errorf("kubeconfig lacks %q:\n%s", line, c.Kubeconfig)
			}
		}
		link, err := url.Parse(c.Playground)
		if err != nil {
			t.Fatal(err)
		}
		preset, _ := url.ParseQuery(link.Fragment)
		if link.Scheme+"://"+link.Host != "https://laptop.lan:8443" || link.RawQuery != "" || preset.Get("target") != "remote" ||
			preset.Get("url") != c.Server || preset.Get("token") != c.Token {
			t.Errorf("playground link %s", c.Playground)
		}
	}
	if f.specs[0].Workshop != out.Workshop || !f.specs[0].Listed || f.specs[0].Cluster.Mode != "api-only" {
		t.Errorf("spec %+v", f.specs[0])
	}
	// Each token opens its own sandbox, and no other.
	s0, s1 := out.Sandboxes[0], out.Sandboxes[1]
	if a := do(h, "GET", "/s/"+s0.ID+"/api/v1/pods?limit=1", s0.Token, ""); a.code != http.StatusOK {
		t.Fatalf("own token: %d %s", a.code, a.body)
	}
	do(h, "GET", "/s/"+s0.ID+"/s/"+s1.ID+"/api", s0.Token, "")
	do(h, "GET", "/s/"+s0.ID, s0.Token, "")
	want := []string{
		fmt.Sprintf(`%s 0 /api/v1/pods?limit=1 auth=""`, s0.ID),
		fmt.Sprintf(`%s 0 /s/%s/api auth=""`, s0.ID, s1.ID),
		fmt.Sprintf(`%s 0 / auth=""`, s0.ID),
	}
	if !slices.Equal(f.routed, want) {
		t.Fatalf("routed %q, want %q", f.routed, want)
	}
	do(h, "GET", "/s/"+s1.ID+"/api", s0.Token, "").status(t, 401, "Unauthorized")
	do(h, "GET", "/s/"+s1.ID+"/api", "", "").status(t, 401, "Unauthorized")
	do(h, "GET", "/s/"+NewID()+"/api", s0.Token, "").status(t, 404, "NotFound")
	do(h, "GET", "/s/..%2f"+s1.ID+"/api", s0.Token, "").status(t, 404, "NotFound")
	// The instructor reads, and writes nothing.
	if a := do(h, "GET", "/s/"+s1.ID+"/debug/kubeplay/requests?watch=1", instructorToken, ""); a.code != http.StatusOK {
		t.Fatalf("instructor read: %d %s", a.code, a.body)
	}
	do(h, "POST", "/s/"+s1.ID+"/api/v1/namespaces", instructorToken, "{}").status(t, 403, "Forbidden")
	if got := f.routed[len(f.routed)-1]; got != fmt.Sprintf(`%s 1 /debug/kubeplay/requests?watch=1 auth=""`, s1.ID) {
		t.Fatalf("routed %s", got)
	}
}

// TestWORK_1_InstructorEndpoints lists, renews a token, resets, deletes.
func TestWORK_1_InstructorEndpoints(t *testing.T) {
	f := &fleet{}
	h := newTestHandler(f)
	var out WorkshopCreated
	do(h, "POST", "http://127.0.0.1:8080/workshops", instructorToken, `{"attendees":2}`).decode(t, &out)
	var alone Created
	do(h, "POST", "http://127.0.0.1:8080/sandboxes", instructorToken, `{"label":"late joiner"}`).decode(t, &alone)
	if alone.Label != "late joiner" || out.Sandboxes[0].Label != "attendee-1" || out.Sandboxes[1].Label != "attendee-2" {
		t.Fatalf("labels %q %q %q", alone.Label, out.Sandboxes[0].Label, out.Sandboxes[1].Label)
	}
	var list struct{ Sandboxes []Info }
	do(h, "GET", "/sandboxes", instructorToken, "").decode(t, &list)
	if len(list.Sandboxes) != 3 || list.Sandboxes[2].ID != alone.ID || list.Sandboxes[0].Workshop != out.Workshop || list.Sandboxes[2].Workshop != "" {
		t.Fatalf("list %+v", list)
	}
	var creds struct{ Sandboxes []Credential }
	do(h, "GET", "http://127.0.0.1:8080/sandboxes/credentials", instructorToken, "").decode(t, &creds)
	if len(creds.Sandboxes) != 3 || creds.Sandboxes[1].Token != out.Sandboxes[1].Token || creds.Sandboxes[1].Kubeconfig != out.Sandboxes[1].Kubeconfig ||
		creds.Sandboxes[1].Playground != out.Sandboxes[1].Playground {
		t.Fatalf("credentials %+v\nwant %+v", creds.Sandboxes[1], out.Sandboxes[1])
	}
	s := out.Sandboxes[0]
	var issued TokenIssued
	a := do(h, "POST", "http://127.0.0.1:8080/sandboxes/"+s.ID+"/token", instructorToken, "")
	a.decode(t, &issued)
	if a.code != 200 || issued.ID != s.ID || issued.Token == s.Token || !strings.Contains(issued.Kubeconfig, "token: "+issued.Token+"\n") {
		t.Fatalf("%d %s", a.code, a.body)
	}
	do(h, "GET", "/s/"+s.ID+"/api", s.Token, "").status(t, 401, "Unauthorized")
	if a := do(h, "GET", "/s/"+s.ID+"/api", issued.Token, ""); a.code != 200 {
		t.Fatalf("new token: %d", a.code)
	}
	var info Info
	if a := do(h, "POST", "/sandboxes/"+s.ID+"/reset", instructorToken, ""); a.code != 200 {
		t.Fatalf("reset: %d %s", a.code, a.body)
	} else if a.decode(t, &info); info.ID != s.ID {
		t.Fatalf("reset: %s", a.body)
	}
	var gone apierrors.Status
	a = do(h, "DELETE", "/sandboxes/"+s.ID, instructorToken, "")
	a.decode(t, &gone)
	if a.code != 200 || gone.Status != "Success" || gone.Details.Name != s.ID {
		t.Fatalf("delete: %d %s", a.code, a.body)
	}
	do(h, "GET", "/s/"+s.ID+"/api", issued.Token, "").status(t, 404, "NotFound")
	do(h, "DELETE", "/sandboxes/"+s.ID, instructorToken, "").status(t, 404, "NotFound")
	do(h, "POST", "/sandboxes/"+s.ID+"/reset", instructorToken, "").status(t, 404, "NotFound")
	do(h, "GET", "/sandboxes/nope", instructorToken, "").status(t, 404, "NotFound")
	do(h, "POST", "/sandboxes/"+s.ID+"/explode", instructorToken, "").status(t, 404, "NotFound")
	do(h, "GET", "/sandboxes/"+s.ID+"/reset", instructorToken, "").status(t, 405, "MethodNotAllowed")
	do(h, "PUT", "/sandboxes", instructorToken, "").status(t, 405, "MethodNotAllowed")
	do(h, "GET", "/workshops", instructorToken, "").status(t, 405, "MethodNotAllowed")
}

// TestWORK_1_BadInput: every instructor endpoint refuses a wrong or missing
// token with 401 Status, bad bodies with 400, and a workshop beyond the
// host's limit with the host's Status naming it.
func TestWORK_1_BadInput(t *testing.T) {
	f := &fleet{limit: 4}
	h := newTestHandler(f)
	id := NewID()
	for _, target := range []string{"POST /workshops", "POST /sandboxes", "GET /sandboxes", "GET /sandboxes/credentials", "GET /sandboxes/" + id,
		"POST /sandboxes/" + id + "/reset", "POST /sandboxes/" + id + "/token", "DELETE /sandboxes/" + id} {
		method, path, _ := strings.Cut(target, " ")
		for _, auth := range []string{"", "Bearer wrong", instructorToken, "Bearer " + instructorToken + "x", "Basic " + instructorToken, "Bearer  " + instructorToken} {
			r := httptest.NewRequest(method, path, strings.NewReader(`{"attendees":1}`))
			if auth != "" {
				r.Header.Set("Authorization", auth)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			answer{w.Code, w.Body.Bytes(), w.Header()}.status(t, 401, "Unauthorized")
			if !strings.Contains(w.Body.String(), `"message":"Unauthorized"`) {
				t.Fatalf("%s %q: %s", target, auth, w.Body)
			}
		}
	}
	for _, body := range []string{"{", "[]", `{"unknown":1}`, "{} {}", `{"attendees":0}`, `{"attendees":101}`, `{"attendees":"3"}`,
		`{"attendees":2,"labels":["a"]}`, `{"labels":["a","a"]}`, `{"labels":["a",""]}`, `{"labels":[" a"]}`, `{"labels":["a\u0007"]}`,
		`{"attendees":1,"cluster":{"mode":"kind"}}`, `{"attendees":1,"cluster":{"nodes":51}}`, `{"attendees":1,"cluster":{"speed":-1}}`} {
		do(h, "POST", "/workshops", instructorToken, body).status(t, 400, "BadRequest")
	}
	for _, body := range []string{`{"cluster":{"size":1}}`, `{"label":"` + strings.Repeat("x", 64) + `"}`} {
		do(h, "POST", "/sandboxes", instructorToken, body).status(t, 400, "BadRequest")
	}
	// A creation may carry a state (an export, base64): up to its bound.
	do(h, "POST", "/workshops", instructorToken, `{"attendees":1,"labels":["`+strings.Repeat("x", maxCreateBytes)+`"]}`).status(t, 413, "RequestEntityTooLarge")
	do(h, "POST", "/sandboxes", instructorToken, `{"state":"`+strings.Repeat("A", (MaxStateBytes+3)/3*4)+`"}`).status(t, 413, "RequestEntityTooLarge")
	for _, body := range []string{`{"state":"AAAA"}`, `{"state":"not base64"}`, `{"state":""}`} {
		do(h, "POST", "/sandboxes", instructorToken, body).status(t, 400, "BadRequest")
	}
	a := do(h, "POST", "/workshops", instructorToken, `{"attendees":5}`)
	a.status(t, 403, "Forbidden")
	if !strings.Contains(string(a.body), "at most 4 sandboxes") || len(f.specs) != 0 {
		t.Fatalf("%s; %d made", a.body, len(f.specs))
	}
	// Without an instructor token, the instructor's endpoints are off.
	off := &Handler{Fleet: f}
	do(off, "POST", "/workshops", "", `{"attendees":1}`).status(t, 403, "Forbidden")
	do(off, "POST", "/sandboxes", "", "").status(t, 403, "Forbidden")
	do(off, "GET", "/sandboxes", "anything", "").status(t, 403, "Forbidden")
	do(off, "GET", "/s/"+id+"/api", "", "").status(t, 401, "Unauthorized")
}

// TestWORK_1_Admit: a host that admits callers lets them make unlisted
// sandboxes within its limit, whose tokens the instructor never sees.
func TestWORK_1_Admit(t *testing.T) {
	f := &fleet{}
	h := newTestHandler(f)
	left := 1
	h.Admit = func(*http.Request) *apierrors.Status {
		if left == 0 {
			return apierrors.New(http.StatusTooManyRequests, "TooManyRequests", "too many", &apierrors.StatusDetails{RetryAfterSeconds: 7})
		}
		left--
		return nil
	}
	var c Created
	if a := do(h, "POST", "/sandboxes", "", `{"cluster":{"mode":"api-only"}}`); a.code != 201 {
		t.Fatalf("%d %s", a.code, a.body)
	} else {
		a.decode(t, &c)
	}
	a := do(h, "POST", "/sandboxes", "", "")
	a.status(t, 429, "TooManyRequests")
	if a.h.Get("Retry-After") != "7" {
		t.Fatalf("Retry-After %q", a.h.Get("Retry-After"))
	}
	if a := do(h, "POST", "/sandboxes", instructorToken, ""); a.code != 201 {
		t.Fatalf("the instructor is not limited: %d %s", a.code, a.body)
	}
	var creds struct{ Sandboxes []Credential }
	do(h, "GET", "/sandboxes/credentials", instructorToken, "").decode(t, &creds)
	if len(creds.Sandboxes) != 1 || creds.Sandboxes[0].ID == c.ID || f.specs[0].Listed {
		t.Fatalf("credentials %+v", creds)
	}
	f.ttl = time.Hour
	do(h, "POST", "/sandboxes", instructorToken, "").decode(t, &c)
	if got := c.ExpiresAt.Sub(f.specs[len(f.specs)-1].CreatedAt); got != time.Hour {
		t.Fatalf("expires after %v", got)
	}
}

// TestWORK_1_Tokens: bearer tokens are read as kube-apiserver reads them and
// compared against hashes.
func TestWORK_1_Tokens(t *testing.T) {
	tok := NewToken()
	hash := TokenHash(tok)
	for auth, want := range map[string]bool{"Bearer " + tok: true, "bearer " + tok: true, "BEARER " + tok + " trailing": true,
		"Bearer  " + tok: false, "Bearer\t" + tok: false, tok: false, "Basic " + tok: false, "Bearer " + tok + "x": false, "Bearer ": false} {
		if got := BearerMatches(auth, hash); got != want {
			t.Errorf("BearerMatches(%q) = %v", auth, got)
		}
	}
	if BearerMatches("Bearer x", "zz") || BearerEquals("Bearer ", "") || BearerEquals("Bearer x", "") {
		t.Fatal("a malformed hash or an empty token matched")
	}
	if NewToken() == tok || len(tok) != 43 || !ValidID(NewID()) || ValidID(strings.ToUpper(NewID())) {
		t.Fatal("ids or tokens")
	}
}

// TestWORK_1_Kubeconfig is the kubeconfig as kubectl reads it, with and
// without a CA.
func TestWORK_1_Kubeconfig(t *testing.T) {
	want := `apiVersion: v1
kind: Config
clusters:
- name: kp
  cluster:
    server: https://h:1/s/x
    certificate-authority-data: Q0E=
users:
- name: kp
  user:
    token: tok
contexts:
- name: kp
  context:
    cluster: kp
    user: kp
    namespace: default
current-context: kp
`
	if got := Kubeconfig("kp", "https://h:1/s/x", "tok", []byte("CA")); got != want {
		t.Fatalf("got\n%s", got)
	}
	if got := Kubeconfig("kp", "https://h:1/s/x", "tok", nil); got != strings.Replace(want, "    certificate-authority-data: Q0E=\n", "", 1) {
		t.Fatalf("got\n%s", got)
	}
}

// TestWORK_2_Progress: the attendee's page puts how far they got at
// /s/{id}/kubeplay/progress; the instructor sees it in the sandbox's Info
// and may read it there, not write it; the core never sees the request;
// bad records are 400 and change nothing.
func TestWORK_2_Progress(t *testing.T) {
	f := &fleet{}
	h := newTestHandler(f)
	var created WorkshopCreated
	do(h, "POST", "/workshops", instructorToken, `{"attendees":2,"labels":["ann","bob"]}`).decode(t, &created)
	ann, bob := created.Sandboxes[0], created.Sandboxes[1]
	path := "/s/" + ann.ID + ProgressPath

	a := do(h, "PUT", path, ann.Token, `{"tutorial":"pods","step":3,"steps":7,"exercises":{"first-pod":true,"scale-up":false}}`)
	if a.code != http.StatusOK {
		t.Fatalf("PUT: %d %s", a.code, a.body)
	}
	want := Progress{Tutorial: "pods", Step: 3, Steps: 7, Exercises: map[string]bool{"first-pod": true, "scale-up": false}}
	var got Progress
	a.decode(t, &got)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("PUT answered %+v, want %+v", got, want)
	}
	var in Info
	do(h, "GET", "/sandboxes/"+ann.ID, instructorToken, "").decode(t, &in)
	if !reflect.DeepEqual(in.Progress, want) {
		t.Fatalf("Info's progress %+v, want %+v", in.Progress, want)
	}
	var list struct{ Sandboxes []Info }
	do(h, "GET", "/sandboxes", instructorToken, "").decode(t, &list)
	if len(list.Sandboxes) != 2 || !reflect.DeepEqual(list.Sandboxes[0].Progress, want) || list.Sandboxes[1].Progress.Tutorial != "" {
		t.Fatalf("GET /sandboxes: %+v", list.Sandboxes)
	}
	for _, token := range []string{ann.Token, instructorToken} {
		got = Progress{}
		if a := do(h, "GET", path, token, ""); a.code != http.StatusOK {
			t.Fatalf("GET as %s: %d %s", token, a.code, a.body)
		} else if a.decode(t, &got); !reflect.DeepEqual(got, want) {
			t.Fatalf("GET: %+v", got)
		}
	}
	if len(f.routed) != 0 {
		t.Fatalf("the core saw %v", f.routed)
	}

	// An exercises map left out is an empty one.
	got = Progress{}
	do(h, "PUT", "/s/"+bob.ID+ProgressPath, bob.Token, `{"tutorial":"watch","step":1,"steps":2}`).decode(t, &got)
	if got.Exercises == nil || len(got.Exercises) != 0 {
		t.Fatalf("exercises %#v", got.Exercises)
	}

	// Who may not, and what is refused.
	do(h, "PUT", path, instructorToken, `{}`).status(t, http.StatusForbidden, "Forbidden")
	do(h, "PUT", path, bob.Token, `{}`).status(t, http.StatusUnauthorized, "Unauthorized")
	do(h, "PUT", path, "", `{}`).status(t, http.StatusUnauthorized, "Unauthorized")
	do(h, "POST", path, ann.Token, `{}`).status(t, http.StatusMethodNotAllowed, "MethodNotAllowed")
	var bad struct{ Bad []string }
	if b, err := os.ReadFile("testdata/bad-progress.json"); err != nil {
		t.Fatal(err)
	} else if err := json.Unmarshal(b, &bad); err != nil || len(bad.Bad) == 0 {
		t.Fatalf("testdata/bad-progress.json: %v", err)
	}
	for _, body := range bad.Bad {
		if a := do(h, "PUT", path, ann.Token, body); a.code != http.StatusBadRequest {
			t.Errorf("PUT %.80s: %d %s", body, a.code, a.body)
		} else {
			a.status(t, http.StatusBadRequest, "BadRequest")
		}
	}
	do(h, "PUT", path, ann.Token, strings.Repeat(" ", MaxRequestBytes+1)).status(t, http.StatusRequestEntityTooLarge, "RequestEntityTooLarge")
	got = Progress{}
	do(h, "GET", path, ann.Token, "").decode(t, &got)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("bad input changed the progress: %+v", got)
	}
}

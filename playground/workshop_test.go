package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"kubeplay/internal/control"
)

const testInstructorToken = "instructor-token-for-tests"

// startWorkshop starts the command with TLS and a workshop, its sandboxes
// unloaded after idle.
func startWorkshop(t *testing.T, dir, data string, idle time.Duration) (*server, *http.Client) {
	t.Helper()
	return clientFor(startPlayground(t, options{data: data, tls: tlsOptions{on: true, dir: filepath.Join(dir, "tls")},
		workshop: workshopOptions{instructorToken: testInstructorToken, maxSandboxes: 5, idle: idle}}))
}

// clientFor is s and a client that trusts its CA.
func clientFor(s *server) (*server, *http.Client) {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(s.caPEM)
	return s, &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 20 * time.Second}
}

// call sends a request with a bearer token (and a body of contentType, JSON
// unless given) and decodes a JSON answer into out; safe from any goroutine.
func call(tb testing.TB, c *http.Client, method, url, token, body string, out any, contentType ...string) int {
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", append(contentType, "application/json")[0])
	}
	res, err := c.Do(req)
	if err != nil {
		tb.Errorf("%s %s: %v", method, url, err)
		return 0
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if out != nil && json.Unmarshal(b, out) != nil {
		tb.Errorf("%s %s: %d %s", method, url, res.StatusCode, b)
	}
	return res.StatusCode
}

func configMap(name string) string {
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"}}`
}

// configMaps are the names of the ConfigMaps in sandbox s's default namespace.
func configMaps(t *testing.T, c *http.Client, server, token string) []string {
	t.Helper()
	var list struct {
		Items []struct{ Metadata struct{ Name string } }
	}
	if code := call(t, c, "GET", server+"/api/v1/namespaces/default/configmaps", token, "", &list); code != 200 {
		t.Fatalf("list: %d", code)
	}
	var names []string
	for _, it := range list.Items {
		if it.Metadata.Name != "kube-root-ca.crt" {
			names = append(names, it.Metadata.Name)
		}
	}
	return names
}

func whoami(t *testing.T, c *http.Client, server, token string) string {
	t.Helper()
	var review struct {
		Status struct{ UserInfo struct{ Username string } }
	}
	if code := call(t, c, "POST", server+"/apis/authentication.k8s.io/v1/selfsubjectreviews", token,
		`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`, &review); code != 201 {
		t.Fatalf("whoami: %d", code)
	}
	return review.Status.UserInfo.Username
}

// TestWORK_1_NativeWorkshop: the command with an instructor token serves a
// workshop's sandboxes at /s/{id}/: each token opens its own sandbox as its
// attendee, none sees another's objects, a wrong token is 401, the
// instructor reads but does not write, the request log and recent errors are
// the sandbox's own, a reset empties one sandbox alone, a delete makes it 404,
// and the command's own sandbox is the instructor's, not the attendees'.
func TestWORK_1_NativeWorkshop(t *testing.T) {
	dir := t.TempDir()
	s, c := startWorkshop(t, dir, "", time.Hour)
	var ws control.WorkshopCreated
	if code := call(t, c, "POST", s.url+"/workshops", testInstructorToken, `{"cluster":{"mode":"api-only"},"labels":["ann","bob"]}`, &ws); code != 201 || len(ws.Sandboxes) != 2 {
		t.Fatalf("POST /workshops: %d %+v", code, ws)
	}
	ann, bob := ws.Sandboxes[0], ws.Sandboxes[1]
	if !strings.HasPrefix(ann.Server, s.url+"/s/") || !strings.Contains(ann.Kubeconfig, "certificate-authority-data: ") {
		t.Fatalf("created %+v", ann)
	}
	for _, sb := range ws.Sandboxes {
		if got := whoami(t, c, sb.Server, sb.Token); got != sb.Label {
			t.Errorf("whoami in %s's sandbox: %q", sb.Label, got)
		}
		if code := call(t, c, "POST", sb.Server+"/api/v1/namespaces/default/configmaps", sb.Token, configMap("of-"+sb.Label), nil); code != 201 {
			t.Fatalf("create: %d", code)
		}
	}
	if got := configMaps(t, c, ann.Server, ann.Token); len(got) != 1 || got[0] != "of-ann" {
		t.Errorf("ann sees %q", got)
	}
	if got := configMaps(t, c, bob.Server, bob.Token); len(got) != 1 || got[0] != "of-bob" {
		t.Errorf("bob sees %q", got)
	}
	var st struct{ Reason string }
	for _, token := range []string{bob.Token, "", "wrong", testInstructorToken + "x"} {
		if code := call(t, c, "GET", ann.Server+"/api/v1/namespaces", token, "", &st); code != 401 || st.Reason != "Unauthorized" {
			t.Errorf("token %q on ann's sandbox: %d %s", token, code, st.Reason)
		}
	}
	if code := call(t, c, "GET", s.url+"/s/"+control.NewID()+"/api", ann.Token, "", &st); code != 404 {
		t.Errorf("an unknown sandbox: %d", code)
	}
	// Path tricks never cross sandboxes: ann's token reaches ann's sandbox
	// or nothing.
	for _, path := range []string{"/s/" + ann.ID + "/../" + bob.ID + "/api/v1/namespaces/default/configmaps",
		"/s/" + ann.ID + "/../../s/" + bob.ID + "/api/v1/namespaces/default/configmaps",
		"/s/" + ann.ID + "%2F..%2F" + bob.ID + "/api/v1/namespaces/default/configmaps",
		"/s/" + ann.ID + "/s/" + bob.ID + "/api/v1/namespaces/default/configmaps",
		"/s/" + strings.ToUpper(bob.ID) + "/api/v1/namespaces/default/configmaps", "/s//api/v1/namespaces/default/configmaps", "/s/"} {
		req, _ := http.NewRequest("GET", s.url+"/", nil)
		req.URL.Opaque = path // sent as it is, uncleaned
		req.Header.Set("Authorization", "Bearer "+ann.Token)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode < 400 || bytes.Contains(b, []byte("of-bob")) {
			t.Errorf("GET %s with ann's token: %d %s", path, res.StatusCode, b)
		}
	}
	// The instructor reads a sandbox, its request log included, and writes nothing.
	if got := configMaps(t, c, ann.Server, testInstructorToken); len(got) != 1 || got[0] != "of-ann" {
		t.Errorf("the instructor sees %q in ann's sandbox", got)
	}
	if code := call(t, c, "POST", ann.Server+"/api/v1/namespaces/default/configmaps", testInstructorToken, configMap("x"), &st); code != 403 {
		t.Errorf("the instructor's write: %d", code)
	}
	call(t, c, "GET", ann.Server+"/api/v1/namespaces/default/configmaps/missing", ann.Token, "", nil)
	var reqs struct {
		Items []struct{ User, URI string }
	}
	if code := call(t, c, "GET", ann.Server+"/debug/kubeplay/requests", testInstructorToken, "", &reqs); code != 200 {
		t.Fatalf("request log: %d", code)
	}
	users := map[string]bool{}
	for _, e := range reqs.Items {
		users[e.User] = true
	}
	if !users["ann"] || users["bob"] {
		t.Errorf("ann's request log has users %v", users)
	}
	var info control.Info
	call(t, c, "GET", s.url+"/sandboxes/"+ann.ID, testInstructorToken, "", &info)
	// The path tricks' 404s and the missing ConfigMap's: the last five.
	if last := len(info.RecentErrors) - 1; info.Label != "ann" || info.Mode != "api-only" || info.Objects == 0 || info.Workshop != ws.Workshop ||
		last != control.RecentErrors-1 || info.RecentErrors[last].Code != 404 || info.RecentErrors[last].User != "ann" ||
		!strings.Contains(info.RecentErrors[last].Message, `configmaps "missing" not found`) || info.RecentErrors[last].Verb != "get" {
		t.Errorf("info %+v", info)
	}
	// The command's own sandbox takes the instructor token, not the default table's.
	if code := call(t, c, "GET", s.url+"/api/v1/namespaces/default/configmaps", "kubeplay", "", nil); code != 401 {
		t.Errorf("the default token on the server's own sandbox: %d", code)
	}
	if code := call(t, c, "GET", s.url+"/api/v1/namespaces/default/configmaps", testInstructorToken, "", nil); code != 200 {
		t.Errorf("the instructor token on the server's own sandbox: %d", code)
	}

	// A reset empties ann's sandbox and leaves bob's.
	if code := call(t, c, "POST", s.url+"/sandboxes/"+ann.ID+"/reset", testInstructorToken, "", &info); code != 200 {
		t.Fatalf("reset: %d", code)
	}
	if got := configMaps(t, c, ann.Server, ann.Token); len(got) != 0 {
		t.Errorf("ann sees %q after the reset", got)
	}
	if got := configMaps(t, c, bob.Server, bob.Token); len(got) != 1 {
		t.Errorf("bob sees %q after ann's reset", got)
	}
	// A new token for bob; the old one is refused.
	var issued control.TokenIssued
	call(t, c, "POST", s.url+"/sandboxes/"+bob.ID+"/token", testInstructorToken, "", &issued)
	if code := call(t, c, "GET", bob.Server+"/api", bob.Token, "", nil); code != 401 {
		t.Errorf("bob's old token: %d", code)
	}
	if got := whoami(t, c, bob.Server, issued.Token); got != "bob" {
		t.Errorf("whoami with bob's new token: %q", got)
	}
	if code := call(t, c, "DELETE", s.url+"/sandboxes/"+bob.ID, testInstructorToken, "", nil); code != 200 {
		t.Fatalf("delete: %d", code)
	}
	if code := call(t, c, "GET", bob.Server+"/api", issued.Token, "", nil); code != 404 {
		t.Errorf("a deleted sandbox: %d", code)
	}
	// The host's limit: 5 sandboxes, one left.
	var refused struct {
		Code            int
		Reason, Message string
	}
	call(t, c, "POST", s.url+"/workshops", testInstructorToken, `{"attendees":5}`, &refused)
	if refused.Code != 403 || !strings.Contains(refused.Message, "limit of 5 sandboxes (--max-sandboxes)") {
		t.Errorf("a workshop past the limit: %+v", refused)
	}
}

// TestWORK_1_UnloadedInMemory: without --data, an unloaded sandbox keeps its
// objects in memory (its snapshot) and its request log, and starts again
// from them, more than once.
func TestWORK_1_UnloadedInMemory(t *testing.T) {
	s, c := startWorkshop(t, t.TempDir(), "", 20*time.Millisecond)
	var ws control.WorkshopCreated
	call(t, c, "POST", s.url+"/workshops", testInstructorToken, `{"attendees":1,"cluster":{"mode":"api-only"}}`, &ws)
	a := ws.Sandboxes[0]
	for i, name := range []string{"first", "second", "third"} {
		if code := call(t, c, "POST", a.Server+"/api/v1/namespaces/default/configmaps", a.Token, configMap(name), nil); code != 201 {
			t.Fatalf("create %s: %d", name, code)
		}
		for deadline := time.Now().Add(10 * time.Second); s.fleet.running() > 0; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the idle sandbox was not unloaded")
			}
		}
		if got := configMaps(t, c, a.Server, a.Token); len(got) != i+1 {
			t.Fatalf("after unload %d: %q", i+1, got)
		}
	}
	var reqs struct {
		Items []struct{ Method, URI string }
	}
	call(t, c, "GET", a.Server+"/debug/kubeplay/requests?client=Go-http-client", a.Token, "", &reqs)
	posts := 0
	for _, e := range reqs.Items {
		if e.Method == "POST" && strings.HasSuffix(e.URI, "/configmaps") {
			posts++
		}
	}
	if posts != 3 {
		t.Errorf("the request log kept %d of the 3 creates across unloads: %+v", posts, reqs.Items)
	}
}

// TestWORK_1_NativeWorkshopKept: idle sandboxes are unloaded (nothing of
// theirs runs) and start again from their objects on the next request; with
// --data a restarted server keeps the workshop: its tokens, its objects, and
// the credentials the instructor downloads, sealed in files of mode 0600.
func TestWORK_1_NativeWorkshopKept(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	s, c := startWorkshop(t, dir, data, 20*time.Millisecond)
	var ws control.WorkshopCreated
	call(t, c, "POST", s.url+"/workshops", testInstructorToken, `{"attendees":2,"cluster":{"mode":"api-only"}}`, &ws)
	a := ws.Sandboxes[0]
	if code := call(t, c, "POST", a.Server+"/api/v1/namespaces/default/configmaps", a.Token, configMap("kept"), nil); code != 201 {
		t.Fatalf("create: %d", code)
	}
	for deadline := time.Now().Add(10 * time.Second); s.fleet.running() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the idle sandbox was not unloaded")
		}
	}
	if got := configMaps(t, c, a.Server, a.Token); len(got) != 1 || got[0] != "kept" {
		t.Fatalf("after an unload: %q", got)
	}
	rec := filepath.Join(data, "sandboxes", a.ID, "sandbox.json")
	for path, want := range map[string]os.FileMode{rec: 0o600, filepath.Dir(rec): 0o700, filepath.Join(data, "sandboxes"): 0o700} {
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want mode %v", path, st.Mode(), err, want)
		}
	}
	b, _ := os.ReadFile(rec)
	if bytes.Contains(b, []byte(a.Token)) || !bytes.Contains(b, []byte(control.TokenHash(a.Token))) {
		t.Errorf("sandbox.json holds the token in the clear, or not its hash:\n%s", b)
	}
	// The attendee's page reports progress (WORK-2): kept with the sandbox.
	progress := `{"tutorial":"pods","step":2,"steps":5,"exercises":{"first-pod":true}}`
	if code := call(t, c, "PUT", a.Server+control.ProgressPath, a.Token, progress, nil); code != 200 {
		t.Fatalf("PUT progress: %d", code)
	}
	var before struct{ Sandboxes []control.Credential }
	call(t, c, "GET", s.url+"/sandboxes/credentials", testInstructorToken, "", &before)
	if err := s.shutdown(); err != nil {
		t.Fatal(err)
	}

	s2, c2 := startWorkshop(t, dir, data, time.Hour)
	server := strings.Replace(a.Server, s.url, s2.url, 1)
	if got := configMaps(t, c2, server, a.Token); len(got) != 1 || got[0] != "kept" {
		t.Fatalf("after a restart: %q", got)
	}
	if got := whoami(t, c2, server, a.Token); got != a.Label {
		t.Errorf("whoami after a restart: %q", got)
	}
	var after struct{ Sandboxes []control.Credential }
	call(t, c2, "GET", s2.url+"/sandboxes/credentials", testInstructorToken, "", &after)
	if len(after.Sandboxes) != 2 || after.Sandboxes[0].Token != before.Sandboxes[0].Token || after.Sandboxes[1].Token != before.Sandboxes[1].Token ||
		after.Sandboxes[0].Label != a.Label {
		t.Errorf("credentials after a restart %+v, before %+v", after.Sandboxes, before.Sandboxes)
	}
	var in control.Info
	call(t, c2, "GET", s2.url+"/sandboxes/"+a.ID, testInstructorToken, "", &in)
	if want := (control.Progress{Tutorial: "pods", Step: 2, Steps: 5, Exercises: map[string]bool{"first-pod": true}}); !reflect.DeepEqual(in.Progress, want) {
		t.Errorf("progress after a restart %+v, want %+v", in.Progress, want)
	}
	// A reset sandbox starts again: its progress is gone, on disk too.
	var reset control.Info
	call(t, c2, "POST", s2.url+"/sandboxes/"+a.ID+"/reset", testInstructorToken, "", &reset)
	if reset.Progress.Tutorial != "" || len(reset.Progress.Exercises) != 0 {
		t.Errorf("progress after a reset %+v", reset.Progress)
	}
	if b, _ := os.ReadFile(rec); bytes.Contains(b, []byte(`"progress"`)) {
		t.Errorf("sandbox.json keeps the progress after a reset:\n%s", b)
	}
}

// running is how many sandboxes are loaded.
func (f *fleet) running() int {
	n := 0
	for _, a := range f.sorted() {
		a.mu.Lock()
		if a.core != nil {
			n++
		}
		a.mu.Unlock()
	}
	return n
}

// TestWORK_1_URLsOfEveryAddress: a server listening on every address writes
// kubeconfigs for 127.0.0.1 (which its certificate names, unlike 0.0.0.0)
// and announces itself at each of this machine's addresses.
func TestWORK_1_URLsOfEveryAddress(t *testing.T) {
	for in, want := range map[string]string{"https://0.0.0.0:8080": "https://127.0.0.1:8080", "https://[::]:8443": "https://127.0.0.1:8443",
		"https://192.0.2.1:8080": "https://192.0.2.1:8080", "http://127.0.0.1:1": "http://127.0.0.1:1"} {
		if got := localURL(in); got != want {
			t.Errorf("localURL(%s) = %s, want %s", in, got, want)
		}
	}
	if got := reachableURLs("https://192.0.2.1:8080"); len(got) != 1 || got[0] != "https://192.0.2.1:8080" {
		t.Errorf("reachableURLs of one address: %q", got)
	}
	all := reachableURLs("https://[::]:8080")
	if len(all) == 1 && all[0] == "https://[::]:8080" {
		return // a machine without an address beyond loopback
	}
	for _, u := range all {
		if strings.Contains(u, "[::]") || strings.Contains(u, "127.0.0.1") || !strings.HasSuffix(u, ":8080") {
			t.Errorf("reachableURLs of every address: %q", u)
		}
	}
}

package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// startPlayground serves a playground in memory on a loopback port for the
// test: the API only, so that what the tests write is all there is.
func startPlayground(t testing.TB, o options) *server {
	t.Helper()
	o.apiOnly = true
	if o.listen == "" {
		o.listen = "127.0.0.1:0"
	}
	if o.limits == (limits{}) {
		o.limits = defaultLimits
	}
	s, err := start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.shutdown(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// send makes one request to s with the given Host (empty: the URL's) and
// headers; it returns the status code, the headers and the body.
func send(t *testing.T, s *server, method, path, host string, header map[string]string, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header, string(b)
}

const cmPath = "/api/v1/namespaces/default/configmaps"

func configMapBody(name string) string {
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"}}`
}

// configMapNames lists the ConfigMaps in default, as kubectl would (no Origin).
func configMapNames(t *testing.T, s *server) []string {
	t.Helper()
	code, _, body := send(t, s, "GET", cmPath, "", nil, "")
	if code != http.StatusOK {
		t.Fatalf("list: %d %s", code, body)
	}
	var list struct {
		Items []struct {
			Metadata struct{ Name string }
		}
	}
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, i := range list.Items {
		names = append(names, i.Metadata.Name)
	}
	return names
}

// wantForbidden checks a refusal is kube-apiserver's 403 Status and mentions hint.
func wantForbidden(t *testing.T, what string, code int, body, hint string) {
	t.Helper()
	if code != http.StatusForbidden {
		t.Errorf("%s: got %d %s, want 403", what, code, body)
		return
	}
	var st struct {
		Kind, APIVersion, Status, Message, Reason string
		Code                                      int
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("%s: %v: %s", what, err, body)
	}
	if st.Kind != "Status" || st.APIVersion != "v1" || st.Status != "Failure" || st.Reason != "Forbidden" || st.Code != 403 {
		t.Errorf("%s: not a Forbidden Status: %s", what, body)
	}
	if !strings.Contains(st.Message, hint) {
		t.Errorf("%s: message %q does not mention %q", what, st.Message, hint)
	}
}

// A page on another origin (here another port of the same host) may not write
// through requests a browser sends without a preflight: a no-cors POST or
// sendBeacon carries its Origin, or at least Sec-Fetch-Site. The playground's
// own page (Origin equal to the server's), kubectl and curl (no Origin) write.
func TestPLAY_8_CrossOriginRefused(t *testing.T) {
	s := startPlayground(t, options{})
	u, _ := url.Parse(s.url)
	evil := "http://127.0.0.1:9" // another port of the same host
	for _, h := range []map[string]string{
		{"Origin": evil, "Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "no-cors"}, // fetch(no-cors) of a Blob: no Content-Type, read as JSON
		{"Origin": evil}, // a browser without Sec-Fetch-*
		{"Origin": "null", "Sec-Fetch-Site": "cross-site"},
		{"Sec-Fetch-Site": "cross-site"},
		{"Origin": "http://" + u.Host + ".evil.example"},
	} {
		code, _, body := send(t, s, "POST", cmPath, "", h, configMapBody("pwned"))
		wantForbidden(t, "POST with "+strings.Join(mapPairs(h), " "), code, body, "cross-origin")
	}
	// A preflight from a page this server does not allow gets no CORS grant.
	code, hdr, _ := send(t, s, "OPTIONS", cmPath, "", map[string]string{"Origin": evil, "Access-Control-Request-Method": "PUT"}, "")
	if hdr.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from %s: %d with Access-Control-Allow-Origin %q", evil, code, hdr.Get("Access-Control-Allow-Origin"))
	}
	if names := configMapNames(t, s); len(names) != 0 {
		t.Fatalf("cross-origin requests created %v", names)
	}

	for name, h := range map[string]map[string]string{
		"same-origin":  {"Origin": s.url, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"},
		"curl":         {"Content-Type": "application/json"},
		"no-type-curl": nil,
	} {
		if code, _, body := send(t, s, "POST", cmPath, "", h, configMapBody(name)); code != http.StatusCreated {
			t.Errorf("%s: %d %s", name, code, body)
		}
	}
	// Reads from another origin stay unreadable to it (no CORS grant) and are not refused.
	if code, hdr, _ := send(t, s, "GET", cmPath, "", map[string]string{"Origin": evil, "Sec-Fetch-Site": "same-site"}, ""); code != http.StatusOK || hdr.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("cross-origin GET: %d, Access-Control-Allow-Origin %q", code, hdr.Get("Access-Control-Allow-Origin"))
	}
}

func mapPairs(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}

// DNS rebinding: a page of evil.example whose name now resolves to this server
// is same-origin with itself, so it would read and write freely; the Host it
// sends gives it away. Loopback names, IP literals and --allowed-hosts pass.
func TestPLAY_8_DNSRebindingRefused(t *testing.T) {
	s := startPlayground(t, options{allowedHosts: "laptop.lan"})
	u, _ := url.Parse(s.url)
	port := u.Port()
	for _, method := range []string{"GET", "POST"} {
		for _, host := range []string{"evil.example:" + port, "evil.example", "localhost.evil.example:" + port} {
			code, _, body := send(t, s, method, cmPath, host, map[string]string{"Origin": "http://" + host, "Sec-Fetch-Site": "same-origin"}, configMapBody("rebound"))
			wantForbidden(t, method+" Host "+host, code, body, "--allowed-hosts")
		}
	}
	code, _, body := send(t, s, "GET", "/", "evil.example:"+port, nil, "")
	wantForbidden(t, "GET / Host evil.example", code, body, "--allowed-hosts")
	if names := configMapNames(t, s); len(names) != 0 {
		t.Fatalf("rebound requests created %v", names)
	}
	for i, host := range []string{u.Host, "localhost:" + port, "LOCALHOST", "[::1]:" + port, "192.168.1.20:" + port, "laptop.lan:" + port, "Laptop.LAN"} {
		name := "host-" + string(rune('a'+i))
		code, _, body := send(t, s, "POST", cmPath, host, map[string]string{"Origin": "http://" + host, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"}, configMapBody(name))
		if code != http.StatusCreated {
			t.Errorf("Host %s: %d %s", host, code, body)
		}
	}
}

// --cors-allowed-origins '*' lets any page call the API, without credentials,
// and never a null origin (sandboxed frames, file: pages); listed origins are
// echoed with credentials, as kube-apiserver does.
func TestPLAY_8_CORSAllowedOrigins(t *testing.T) {
	s := startPlayground(t, options{cors: "*"})
	preflight := map[string]string{"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,content-type"}
	with := func(m map[string]string, k, v string) map[string]string {
		out := map[string]string{k: v}
		for a, b := range m {
			out[a] = b
		}
		return out
	}
	code, hdr, _ := send(t, s, "OPTIONS", cmPath, "", with(preflight, "Origin", "https://elsewhere.example"), "")
	if code != http.StatusNoContent || hdr.Get("Access-Control-Allow-Origin") != "*" || hdr.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("'*' preflight: %d, Allow-Origin %q, Allow-Credentials %q", code, hdr.Get("Access-Control-Allow-Origin"), hdr.Get("Access-Control-Allow-Credentials"))
	}
	// The page's kubectl sends its User-Agent as X-Kubeplay-User-Agent
	// (a page's fetch may not set User-Agent): a remote target allows it.
	if allowed := strings.Split(hdr.Get("Access-Control-Allow-Headers"), ", "); !slices.Contains(allowed, "X-Kubeplay-User-Agent") {
		t.Errorf("'*' preflight allows the headers %q, without X-Kubeplay-User-Agent", allowed)
	}
	code, hdr, body := send(t, s, "POST", cmPath, "", map[string]string{"Origin": "https://elsewhere.example", "Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"}, configMapBody("from-elsewhere"))
	if code != http.StatusCreated || hdr.Get("Access-Control-Allow-Origin") != "*" || hdr.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("'*' POST: %d %s, Allow-Origin %q, Allow-Credentials %q", code, body, hdr.Get("Access-Control-Allow-Origin"), hdr.Get("Access-Control-Allow-Credentials"))
	}
	code, hdr, _ = send(t, s, "OPTIONS", cmPath, "", with(preflight, "Origin", "null"), "")
	if hdr.Get("Access-Control-Allow-Origin") != "" || hdr.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("'*' preflight from null: %d, Allow-Origin %q, Allow-Credentials %q", code, hdr.Get("Access-Control-Allow-Origin"), hdr.Get("Access-Control-Allow-Credentials"))
	}
	code, _, body = send(t, s, "POST", cmPath, "", map[string]string{"Origin": "null", "Sec-Fetch-Site": "cross-site"}, configMapBody("from-null"))
	wantForbidden(t, "'*' POST from null", code, body, "cross-origin")

	listed := startPlayground(t, options{cors: "https://a.example, https://b.example"})
	code, hdr, _ = send(t, listed, "OPTIONS", cmPath, "", with(preflight, "Origin", "https://b.example"), "")
	if code != http.StatusNoContent || hdr.Get("Access-Control-Allow-Origin") != "https://b.example" || hdr.Get("Access-Control-Allow-Credentials") != "true" {
		t.Errorf("listed preflight: %d, Allow-Origin %q, Allow-Credentials %q", code, hdr.Get("Access-Control-Allow-Origin"), hdr.Get("Access-Control-Allow-Credentials"))
	}
	code, _, body = send(t, listed, "POST", cmPath, "", map[string]string{"Origin": "https://c.example", "Sec-Fetch-Site": "cross-site"}, configMapBody("from-c"))
	wantForbidden(t, "unlisted origin", code, body, "--cors-allowed-origins")
}

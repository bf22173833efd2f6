// Package refapi is for tests that record kube-apiserver's answers as test
// data: it reaches a running kube-apiserver (the refapi kit, see
// ../shared/refapi) named by KUBEPLAY_REFAPI=https://127.0.0.1:PORT, with the
// bearer token KUBEPLAY_REFAPI_TOKEN (default the kit's). Recording tests skip
// without it, so `make test` never needs one.
package refapi

import (
	"bytes"
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"testing"
)

// Server is a kube-apiserver to record from.
type Server struct {
	t      testing.TB
	base   string
	token  string
	client *http.Client
}

// Connect returns the server KUBEPLAY_REFAPI names, or skips the test.
func Connect(t testing.TB) *Server {
	base := os.Getenv("KUBEPLAY_REFAPI")
	if base == "" {
		t.Skip("set KUBEPLAY_REFAPI to a kube-apiserver to record its answers")
	}
	token := os.Getenv("KUBEPLAY_REFAPI_TOKEN")
	if token == "" {
		token = "refapi-admin-token"
	}
	return &Server{t: t, base: base, token: token, client: &http.Client{
		// Its certificate is self-signed; answers are recorded as sent:
		// not decompressed, redirects not followed.
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Do sends a request (path with its query) and returns the answer and its
// body. header's values replace the request's; an empty one removes it (an
// empty Authorization sends no token: the request is anonymous).
func (s *Server) Do(method, path string, header map[string]string, body []byte) (*http.Response, []byte) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.base+path, bytes.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := s.client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return res, b
}

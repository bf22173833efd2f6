package auth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"kubeplay/core/user"
)

// FuzzAPF_12_Authenticate reads any token file and authenticates any
// Authorization and impersonation headers with it: nothing panics, a token
// file either reads or is refused, and a request is either refused (401 for a
// token, kube's 500 for impersonation without a user) or passed on with a user
// who is exactly the one impersonated, or the token's, or system:anonymous.
func FuzzAPF_12_Authenticate(f *testing.F) {
	f.Add(DefaultTokens, "Bearer kubeplay", "", "", "")
	f.Add("t,alice,1,\"a,b\"\n", "bearer t", "system:serviceaccount:ns:sa", "", "")
	f.Add("x,y\n", "", "", "g", "")
	f.Add(DefaultTokens, "Basic abc", "", "", "u-1")
	f.Add("\"t\nq\",u,1\n", "Bearer  t", "bob", "system:unauthenticated", "")
	f.Fuzz(func(t *testing.T, file, authorization, impersonate, group, uid string) {
		tokens, err := ParseTokens("fuzz.csv", strings.NewReader(file))
		if err != nil {
			return
		}
		var got user.User
		passed := false
		h := NewAuthenticator(Options{Tokens: tokens, Anonymous: true}).Filter(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got, passed = user.From(r.Context())
			if r.Header.Get("Impersonate-User") != "" || r.Header.Get("Impersonate-Group") != "" {
				t.Errorf("impersonation headers left in the request: %v", r.Header)
			}
		}))
		r := httptest.NewRequest("GET", "/api/v1/namespaces", nil)
		for k, v := range map[string]string{"Authorization": authorization, "Impersonate-User": impersonate, "Impersonate-Group": group, "Impersonate-Uid": uid} {
			if v != "" && !strings.ContainsAny(v, "\r\n") {
				r.Header.Set(k, v)
			}
		}
		impersonated := r.Header.Get("Impersonate-User")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		switch {
		case !passed:
			if w.Code != 401 && w.Code != 500 {
				t.Fatalf("refused with %d", w.Code)
			}
		case impersonated != "":
			if got.Name != impersonated {
				t.Fatalf("impersonating %q gave %q", impersonated, got.Name)
			}
		case got.Name != user.Anonymous && !got.InGroup(user.AllAuthenticated):
			t.Fatalf("%q authenticated without system:authenticated: %v", got.Name, got.Groups)
		}
	})
}

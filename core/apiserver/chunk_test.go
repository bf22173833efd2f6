package apiserver

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"kubeplay/core/clock"
	"kubeplay/core/object"
	"kubeplay/core/storage"
)

func TestK8S_CHUNK_1_Pages(t *testing.T) {
	s := newTestServer(t, testConfig{})
	var want []string
	for i := 0; i < 7; i++ {
		name := fmt.Sprintf("cm-%d", i)
		s.createCM("default", name, map[string]string{"even": fmt.Sprint(i%2 == 0)})
		want = append(want, name)
	}
	const coll = "/api/v1/namespaces/default/configmaps"
	var got []string
	listRV, token := "", ""
	for page := 0; ; page++ {
		q := coll + "?limit=3"
		if token != "" {
			q += "&continue=" + token
		}
		r := s.do("GET", q, nil).must(t, 200)
		got = append(got, r.names()...)
		if page == 0 {
			listRV = r.str("metadata", "resourceVersion")
			// Writes between pages do not show up: the list is a snapshot.
			s.createCM("default", "cm-late", nil)
		} else if r.str("metadata", "resourceVersion") != listRV {
			t.Fatalf("page %d has rv %s, list has %s", page, r.str("metadata", "resourceVersion"), listRV)
		}
		token = r.str("metadata", "continue")
		remaining, has := object.Path(r.Obj, "metadata", "remainingItemCount").(float64)
		if token == "" {
			if has {
				t.Fatalf("last page carries remainingItemCount: %s", r.Body)
			}
			break
		}
		if !has || int(remaining) != len(want)-len(got) {
			t.Fatalf("page %d: remainingItemCount %v, want %d", page, object.Path(r.Obj, "metadata", "remainingItemCount"), len(want)-len(got))
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("paged %v, want %v", got, want)
	}
	// With a selector the remaining count is unknown, so absent.
	r := s.do("GET", coll+"?limit=1&labelSelector=even%3Dtrue", nil).must(t, 200)
	if r.str("metadata", "continue") == "" || object.Path(r.Obj, "metadata", "remainingItemCount") != nil {
		t.Fatalf("selector page: %s", r.Body)
	}
	var sel []string
	for tok := ""; ; {
		q := coll + "?limit=1&labelSelector=even%3Dtrue"
		if tok != "" {
			q += "&continue=" + tok
		}
		r := s.do("GET", q, nil).must(t, 200)
		sel = append(sel, r.names()...)
		if tok = r.str("metadata", "continue"); tok == "" {
			break
		}
	}
	if !slices.Equal(sel, []string{"cm-0", "cm-2", "cm-4", "cm-6"}) {
		t.Fatalf("selected pages %v", sel)
	}
	// limit=0 and no limit list everything.
	if n := len(s.do("GET", coll+"?limit=0", nil).must(t, 200).items()); n != 8 {
		t.Fatalf("limit=0 gave %d", n)
	}
}

func TestK8S_CHUNK_2_ExpiredToken(t *testing.T) {
	s := newTestServer(t, testConfig{Storage: storage.Config{HistoryWindow: time.Hour, HistoryLimit: 3}})
	for i := 0; i < 4; i++ {
		s.createCM("default", fmt.Sprintf("cm-%d", i), nil)
	}
	const coll = "/api/v1/namespaces/default/configmaps"
	first := s.do("GET", coll+"?limit=2", nil).must(t, 200)
	for i := 0; i < 10; i++ {
		s.createCM("default", fmt.Sprintf("new-%d", i), nil)
	}
	if _, err := s.srv.Store().Compact(s.srv.Store().Revision()); err != nil {
		t.Fatal(err)
	}
	r := s.do("GET", coll+"?limit=2&continue="+first.str("metadata", "continue"), nil).wantStatus(t, 410, "Expired", inconsistentContinue)
	fresh := r.str("metadata", "continue")
	if fresh == "" {
		t.Fatalf("no fresh continue token: %s", r.Body)
	}
	// The fresh token continues after the last key, inconsistently, at the latest state.
	var rest []string
	for tok := fresh; tok != ""; {
		p := s.do("GET", coll+"?limit=5&continue="+tok, nil).must(t, 200)
		rest = append(rest, p.names()...)
		tok = p.str("metadata", "continue")
	}
	if !slices.Equal(rest, []string{"cm-2", "cm-3", "new-0", "new-1", "new-2", "new-3", "new-4", "new-5", "new-6", "new-7", "new-8", "new-9"}) {
		t.Fatalf("after expiry: %v", rest)
	}
}

// A token expires once the changes after its revision pass the history
// window, as etcd's periodic compaction expires it, however many changes
// wait to be dropped and whether or not anything was written since.
func TestK8S_CHUNK_2_TokenExpiresWithTheWindow(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	s := newTestServer(t, testConfig{Config: Config{Clock: clk}, Storage: storage.Config{HistoryWindow: 5 * time.Minute}})
	const coll = "/api/v1/namespaces/default/configmaps"
	for i := 0; i < 100; i++ {
		s.createCM("default", fmt.Sprintf("cm-%03d", i), nil)
	}
	first := s.do("GET", coll+"?limit=10", nil).must(t, 200)
	rv := first.str("metadata", "resourceVersion")
	s.createCM("default", "later", nil)
	clk.Step(4 * time.Minute)
	s.do("GET", coll+"?limit=10&continue="+first.str("metadata", "continue"), nil).must(t, 200)
	clk.Step(2 * time.Minute) // "later" is past the window; nothing written since
	s.do("GET", coll+"?limit=10&continue="+first.str("metadata", "continue"), nil).wantStatus(t, 410, "Expired", inconsistentContinue)
	if c := s.srv.Store().CompactedRevision(); strconv.FormatInt(c, 10) == rv || c < s.srv.Store().Revision()-1 {
		t.Fatalf("compacted revision %d: want the revision of the last change past the window (the first page's was %s)", c, rv)
	}
}

func TestK8S_CHUNK_3_TokenBoundAndTamperChecked(t *testing.T) {
	s := newTestServer(t, testConfig{})
	for i := 0; i < 3; i++ {
		s.createCM("default", fmt.Sprintf("cm-%d", i), map[string]string{"a": "b"})
		s.createCM("kube-system", fmt.Sprintf("cm-%d", i), map[string]string{"a": "b"})
	}
	tok := s.do("GET", "/api/v1/namespaces/default/configmaps?limit=1", nil).must(t, 200).str("metadata", "continue")
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		t.Fatalf("token is not base64url: %v", err)
	}
	// Another namespace, resource, or selector.
	for _, p := range []string{
		"/api/v1/namespaces/kube-system/configmaps?limit=1&continue=" + tok,
		"/api/v1/configmaps?limit=1&continue=" + tok,
		"/api/v1/namespaces/default/secrets?limit=1&continue=" + tok,
		"/api/v1/namespaces/default/configmaps?limit=1&labelSelector=a%3Db&continue=" + tok,
	} {
		s.do("GET", p, nil).wantStatus(t, 400, "BadRequest", "")
	}
	// A modified token.
	tampered := append([]byte(nil), raw...)
	tampered[len(tampered)/2] ^= 1
	for _, bad := range []string{base64.RawURLEncoding.EncodeToString(tampered), "not-a-token", "e30", tok + "x"} {
		s.do("GET", "/api/v1/namespaces/default/configmaps?limit=1&continue="+bad, nil).wantStatus(t, 400, "BadRequest", "")
	}
	// The genuine token still works.
	if names := s.do("GET", "/api/v1/namespaces/default/configmaps?limit=1&continue="+tok, nil).must(t, 200).names(); !slices.Equal(names, []string{"cm-1"}) {
		t.Fatalf("continue: %v", names)
	}
}

// inconsistentContinue is kube's message for a continue token whose revision
// was compacted.
const inconsistentContinue = "The provided continue parameter is too old to display a consistent list result. " +
	"You can start a new list without the continue parameter, or use the continue token in this response to " +
	"retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - " +
	"objects that were created, modified, or deleted between the time the first chunk was returned and now may " +
	"show up in the list."

package warning_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"kubeplay/core/warning"
)

// record returns the texts of the Warning headers a handler adding texts writes.
func record(t testing.TB, texts []string) []string {
	rec := httptest.NewRecorder()
	warning.Filter(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, text := range texts {
			warning.Add(r.Context(), text)
		}
		w.WriteHeader(http.StatusOK)
	})).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	var out []string
	for _, h := range rec.Header().Values("Warning") {
		q, ok := strings.CutPrefix(h, "299 - ")
		text, err := strconv.Unquote(q)
		if !ok || err != nil {
			t.Fatalf("header %q is not 299 - \"text\"", h)
		}
		out = append(out, text)
	}
	return out
}

// TestWarnings: kube-apiserver's recorder's rules (its tests and code in
// k8s.io/apiserver/pkg/endpoints/filters/warning.go; the field validation
// replay checks them against kube's answers too).
func TestWarnings(t *testing.T) {
	x := func(n int) string { return strings.Repeat("x", n) }
	for _, c := range []struct{ in, want []string }{
		{[]string{`unknown field "a"`, `duplicate field "b"`, `unknown field "a"`}, []string{`unknown field "a"`, `duplicate field "b"`}},
		{[]string{"", "a\nb", "\xff", "ü"}, []string{"a\nb", "ü"}},
		// Exactly at the limit: nothing cut.
		{[]string{x(4000), x(96)}, []string{x(4000), x(96)}},
		// Over it: everything cut to 256, and later warnings only while under it.
		{[]string{x(4000), x(97), x(300)}, []string{x(256), x(97), x(256)}},
		{append(repeatDistinct(17, 250), "late"), repeatDistinct(17, 250)},
	} {
		if got := record(t, c.in); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%.80q:\n got %.200q\nwant %.200q", c.in, got, c.want)
		}
	}
	if got := warning.Header(`unknown field "a"`); got != `299 - "unknown field \"a\""` {
		t.Errorf("Header: %s", got)
	}
}

// repeatDistinct is n distinct texts of size characters.
func repeatDistinct(n, size int) []string {
	var out []string
	for i := range n {
		s := strconv.Itoa(i)
		out = append(out, s+strings.Repeat("w", size-len(s)))
	}
	return out
}

// FuzzWarnings: whatever is added (the input split at NUL bytes), the headers
// are the distinct valid texts in order, whole while they fit in 4096
// characters, else each cut to 256 and stopping past the limit.
func FuzzWarnings(f *testing.F) {
	f.Add([]byte("unknown field \"a\"\x00duplicate field \"b\"\x00unknown field \"a\""))
	f.Add([]byte(strings.Repeat("x", 4000) + "\x00" + strings.Repeat("y", 300)))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := strings.Split(string(data), "\x00")
		var want []string
		seen := map[string]bool{}
		total := 0
		for _, s := range in {
			if s != "" && utf8.ValidString(s) && !seen[s] {
				seen[s] = true
				want = append(want, s)
				total += utf8.RuneCountInString(s)
			}
		}
		got := record(t, in)
		if total <= 4096 {
			if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
				t.Fatalf("got %q, want %q", got, want)
			}
			return
		}
		// Truncating: a prefix of the warnings, each cut to 256, holding at
		// least those that fitted whole and the one that did not.
		fitted := 0
		for n := 0; fitted < len(want) && n+utf8.RuneCountInString(want[fitted]) <= 4096; fitted++ {
			n += utf8.RuneCountInString(want[fitted])
		}
		if len(got) < fitted+1 || len(got) > len(want) {
			t.Fatalf("%d warnings of %d, %d fitted", len(got), len(want), fitted)
		}
		for i, g := range got {
			if r := []rune(want[i]); g != string(r[:min(len(r), 256)]) {
				t.Fatalf("warning %d: %q", i, g)
			}
		}
	})
}

//go:build js

package web

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"
)

// The stand-in must behave as the net/http it replaces; these run under
// GOOS=js (make test runs them with Go's wasm exec in Node) against net/http itself.

var headerNames = []string{
	"content-type", "CONTENT-TYPE", "Content-Type", "x-kubeplay-target", "accept",
	"if-none-match", "a", "-x-", "x--y", "1abc", "Foo Bar", "foo\x00", "ü-bad", "",
	"sec-ch-ua", "WWW-authenticate", "x_under_score", "x.dot",
}

func TestCanonicalHeaderKeyMatchesTextproto(t *testing.T) {
	for _, k := range headerNames {
		checkCanonical(t, k)
	}
}

func FuzzCanonicalHeaderKeyMatchesTextproto(f *testing.F) {
	for _, k := range headerNames {
		f.Add(k)
	}
	f.Fuzz(checkCanonical)
}

func checkCanonical(t *testing.T, k string) {
	if got, want := CanonicalHeaderKey(k), textproto.CanonicalMIMEHeaderKey(k); got != want {
		t.Errorf("CanonicalHeaderKey(%q) = %q, textproto says %q", k, got, want)
	}
}

func TestHeaderMatchesNetHTTP(t *testing.T) {
	ours, theirs := Header{}, http.Header{}
	for i, k := range headerNames {
		v := strings.Repeat("v", i)
		ours.Add(k, v)
		theirs.Add(k, v)
		if i%3 == 0 {
			ours.Set(k, v+"!")
			theirs.Set(k, v+"!")
		}
		if i%5 == 0 {
			ours.Del(strings.ToUpper(k))
			theirs.Del(strings.ToUpper(k))
		}
	}
	for _, k := range headerNames {
		if ours.Get(k) != theirs.Get(k) || strings.Join(ours.Values(k), ",") != strings.Join(theirs.Values(k), ",") {
			t.Errorf("%q: ours %q, net/http %q", k, ours.Values(k), theirs.Values(k))
		}
	}
	if len(ours) != len(theirs) {
		t.Errorf("%d keys, net/http has %d", len(ours), len(theirs))
	}
	clone := ours.Clone()
	clone.Add("Content-Type", "changed")
	if strings.Join(ours.Values("Content-Type"), ",") != strings.Join(theirs.Values("Content-Type"), ",") || Header(nil).Clone() != nil {
		t.Error("Clone shares values with the original, or a nil header's clone is not nil")
	}
}

func TestMaxBytesReaderMatchesNetHTTP(t *testing.T) {
	for _, limit := range []int64{-1, 0, 1, 5, 10, 11, 4096} {
		for _, size := range []int{0, 1, 5, 10, 11, 5000} {
			for _, chunk := range []int{1, 3, 512} {
				body := bytes.Repeat([]byte("x"), size)
				got, gotErr := readChunks(MaxBytesReader(nil, io.NopCloser(bytes.NewReader(body)), limit), chunk)
				want, wantErr := readChunks(http.MaxBytesReader(httptest.NewRecorder(), io.NopCloser(bytes.NewReader(body)), limit), chunk)
				var ours *MaxBytesError
				var theirs *http.MaxBytesError
				if got != want || errors.As(gotErr, &ours) != errors.As(wantErr, &theirs) || (ours != nil && (ours.Limit != theirs.Limit || ours.Error() != theirs.Error())) {
					t.Errorf("limit %d, size %d, chunk %d: read %d, %v; net/http %d, %v", limit, size, chunk, got, gotErr, want, wantErr)
				}
			}
		}
	}
}

func readChunks(r io.Reader, chunk int) (int, error) {
	n, buf := 0, make([]byte, chunk)
	for {
		k, err := r.Read(buf)
		n += k
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return n, err
		}
	}
}

type wrapped struct{ ResponseWriter }

func (w wrapped) Unwrap() ResponseWriter { return w.ResponseWriter }

type flushed struct {
	ResponseWriter
	flushes int
}

func (f *flushed) Flush() { f.flushes++ }

type plain struct{ ResponseWriter }

func TestFlushUnwraps(t *testing.T) {
	f := &flushed{}
	if err := Flush(wrapped{wrapped{f}}); err != nil || f.flushes != 1 {
		t.Fatalf("Flush through two wrappers: %v, %d flushes", err, f.flushes)
	}
	if err := Flush(plain{}); err == nil || err.Error() != http.ErrNotSupported.Error() {
		t.Fatalf("Flush of a writer that cannot: %v, want net/http's %v", err, http.ErrNotSupported)
	}
}

func TestNewRequest(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r, err := NewRequest(ctx, "POST", "http://127.0.0.1:8080/api/v1/namespaces?limit=1", []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r.Body)
	if r.Host != "127.0.0.1:8080" || r.RequestURI != "/api/v1/namespaces?limit=1" || r.ContentLength != 2 || string(b) != "{}" || r.URL.Query().Get("limit") != "1" {
		t.Fatalf("request %+v, body %q", r, b)
	}
	cancel()
	if r.Context().Err() == nil || r.WithContext(context.Background()).Context().Err() != nil {
		t.Fatal("context not carried")
	}
	empty, _ := NewRequest(context.Background(), "GET", "/version", nil)
	if n, err := empty.Body.Read(make([]byte, 1)); n != 0 || err != io.EOF || empty.ContentLength != 0 {
		t.Fatalf("empty body read %d, %v", n, err)
	}
	if _, err := NewRequest(ctx, "GET", "http://[::1", nil); err == nil {
		t.Fatal("a bad URL was accepted")
	}
}

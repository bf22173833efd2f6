package sandbox

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"kubeplay/core/export"
	"kubeplay/core/storage"
)

// BenchmarkLEARN_6_ExportImport10k: the export of a sandbox holding 10,000
// ConfigMaps (GET /debug/kubeplay/export), and what a host does to start
// from it (export.Read, which checks it whole, and a store opened from its
// snapshot), each as a ratio to the floor measured in the same run: a JSON
// list of the same 10,000 ConfigMaps (GET /api/v1/configmaps). Both answers
// are counted as a server writes them, not kept. The target is at most 2x.
func BenchmarkLEARN_6_ExportImport10k(b *testing.B) {
	const n = 10000
	sb, err := New(Config{APIOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	serve := func(method, path string, body []byte) *httptest.ResponseRecorder {
		return serveInProcess(sb, method, path, "application/json", body)
	}
	for i := range n {
		body := fmt.Appendf(nil, `{"metadata":{"name":"cm-%05d","labels":{"app":"bench"}},"data":{"key":"value %d"}}`, i, i)
		if w := serve("POST", "/api/v1/namespaces/default/configmaps", body); w.Code != http.StatusCreated {
			b.Fatalf("create %d: %d %s", i, w.Code, w.Body.Bytes())
		}
	}
	// The timed answers are counted, not kept: a server writes them to its
	// client, and keeping them would charge both phases for growing a buffer.
	count := func(path string) int64 {
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("Authorization", "Bearer kubeplay")
		w := &counter{header: http.Header{}}
		sb.ServeHTTP(w, r)
		if w.code != http.StatusOK {
			b.Fatalf("%s: %d", path, w.code)
		}
		return w.n
	}
	var list, exp, imp, expShort, impShort time.Duration
	file := serve("GET", export.Path, nil).Body.Bytes()
	short := serve("GET", export.Path+"?history=false", nil).Body.Bytes()
	importing := func(file []byte) time.Duration {
		runtime.GC()
		t := time.Now()
		h, snap, err := export.Read(bytes.NewReader(file), int64(len(file)))
		if err != nil {
			b.Fatal(err)
		}
		st, err := storage.Open(storage.Config{Persister: storage.NewCheckedMemoryPersister(snap)})
		if err != nil || st.Revision() != h.Revision {
			b.Fatalf("import: %v", err)
		}
		d := time.Since(t)
		st.Close()
		return d
	}
	// Each phase starts on a collected heap, so none pays for another's garbage.
	for b.Loop() {
		runtime.GC()
		t := time.Now()
		count("/api/v1/configmaps")
		list += time.Since(t)

		runtime.GC()
		t = time.Now()
		if n := count(export.Path); n != int64(len(file)) {
			b.Fatalf("export: %d bytes, then %d", len(file), n)
		}
		exp += time.Since(t)

		imp += importing(file)

		runtime.GC()
		t = time.Now()
		if n := count(export.Path + "?history=false"); n != int64(len(short)) {
			b.Fatalf("export without history: %d bytes, then %d", len(short), n)
		}
		expShort += time.Since(t)
		impShort += importing(short)
	}
	b.ReportMetric(float64(exp)/float64(list), "export/list")
	b.ReportMetric(float64(imp)/float64(list), "import/list")
	b.ReportMetric(float64(expShort)/float64(list), "export-nohistory/list")
	b.ReportMetric(float64(impShort)/float64(list), "import-nohistory/list")
	b.ReportMetric(float64(list.Milliseconds())/float64(b.N), "list-ms")
	b.ReportMetric(float64(len(file))/(1<<20), "export-MiB")
}

// counter is a ResponseWriter that counts what is written.
type counter struct {
	header http.Header
	code   int
	n      int64
}

func (c *counter) Header() http.Header { return c.header }
func (c *counter) WriteHeader(code int) {
	if c.code == 0 {
		c.code = code
	}
}
func (c *counter) Write(b []byte) (int, error) {
	c.WriteHeader(http.StatusOK)
	c.n += int64(len(b))
	return len(b), nil
}

// serveInProcess is sb's answer to a request as the sandbox's admin, with
// a body (nil: none) of contentType, served in process.
func serveInProcess(sb *Sandbox, method, path, contentType string, body []byte) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, bytes.NewReader(body))
	r.Header.Set("Authorization", "Bearer kubeplay")
	if body != nil {
		r.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	sb.ServeHTTP(w, r)
	return w
}

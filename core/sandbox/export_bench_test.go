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
// list of the same 10,000 ConfigMaps (GET /api/v1/configmaps). The target
// is at most 2x.
func BenchmarkLEARN_6_ExportImport10k(b *testing.B) {
	const n = 10000
	sb, err := New(Config{APIOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	serve := func(method, path string, body []byte) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, path, bytes.NewReader(body))
		r.Header.Set("Authorization", "Bearer kubeplay")
		if body != nil {
			r.Header.Set("Content-Type", "application/json")
		}
		w := httptest.NewRecorder()
		sb.ServeHTTP(w, r)
		return w
	}
	for i := range n {
		body := fmt.Appendf(nil, `{"metadata":{"name":"cm-%05d","labels":{"app":"bench"}},"data":{"key":"value %d"}}`, i, i)
		if w := serve("POST", "/api/v1/namespaces/default/configmaps", body); w.Code != http.StatusCreated {
			b.Fatalf("create %d: %d %s", i, w.Code, w.Body.Bytes())
		}
	}
	var list, exp, imp time.Duration
	var file []byte
	// Each phase starts on a collected heap, so none pays for another's garbage.
	for b.Loop() {
		runtime.GC()
		t := time.Now()
		if w := serve("GET", "/api/v1/configmaps", nil); w.Code != http.StatusOK {
			b.Fatalf("list: %d", w.Code)
		}
		list += time.Since(t)

		runtime.GC()
		t = time.Now()
		w := serve("GET", export.Path, nil)
		if w.Code != http.StatusOK {
			b.Fatalf("export: %d %s", w.Code, w.Body.Bytes())
		}
		exp += time.Since(t)
		file = w.Body.Bytes()

		runtime.GC()
		t = time.Now()
		h, snap, err := export.Read(bytes.NewReader(file), int64(len(file)))
		if err != nil {
			b.Fatal(err)
		}
		st, err := storage.Open(storage.Config{Persister: storage.NewMemoryPersister(snap)})
		if err != nil || st.Revision() != h.Revision {
			b.Fatalf("import: %v", err)
		}
		imp += time.Since(t)
		st.Close()
	}
	b.ReportMetric(float64(exp)/float64(list), "export/list")
	b.ReportMetric(float64(imp)/float64(list), "import/list")
	b.ReportMetric(float64(list.Milliseconds())/float64(b.N), "list-ms")
	b.ReportMetric(float64(len(file))/(1<<20), "export-MiB")
}

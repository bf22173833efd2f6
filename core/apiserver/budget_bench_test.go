package apiserver

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"
	"time"

	"kubeplay/core/budget"
	"kubeplay/core/storage"
)

// BenchmarkROB_2_BudgetAccounting creates Pods (the store's accounting and
// the Pod budget's admission) and lists 1,000 ConfigMaps on a server with the
// native budget and, interleaved in the same loop, on one without budgets;
// x-unbudgeted-create and x-unbudgeted-list are the budgeted server's times
// over the other's. Target: ≤ 1.03.
func BenchmarkROB_2_BudgetAccounting(b *testing.B) {
	plain := newBenchServer(b)
	limits := budget.Native
	limits.Pods, limits.Objects = 1<<40, 1<<40 // counted and checked, never reached however long it runs
	budgeted, err := newCore(testConfig{Storage: storage.Config{HistoryLimit: 1 << 20, WatchBuffer: 1 << 16}, Budget: limits})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { budgeted.Close() })
	w := &bufferWriter{h: http.Header{}}
	for _, srv := range []*testCore{plain, budgeted} {
		for i := range 1000 {
			serve(b, srv, w, "POST", "/api/v1/namespaces/default/configmaps", configMapBody(fmt.Sprintf("cm-%04d", i), 200))
		}
	}
	pod := func(i int) *http.Request {
		r, _ := http.NewRequest("POST", "/api/v1/namespaces/default/pods", bytes.NewReader([]byte(fmt.Sprintf(
			`{"metadata":{"name":"p-%08d"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`, i))))
		r.Header.Set("Content-Type", "application/json")
		return r
	}
	list, _ := http.NewRequest("GET", "/api/v1/namespaces/default/configmaps", nil)
	timed := func(srv *testCore, r *http.Request) time.Duration {
		start := time.Now()
		w.reset()
		srv.ServeHTTP(w, r)
		if w.code >= 300 {
			b.Fatalf("%s %s: %d %s", r.Method, r.URL, w.code, w.buf.Bytes())
		}
		return time.Since(start)
	}
	var create, createPlain, lists, listsPlain time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 { // either goes first as often
			create += timed(budgeted, pod(i))
			createPlain += timed(plain, pod(i))
			lists += timed(budgeted, list)
			listsPlain += timed(plain, list)
		} else {
			createPlain += timed(plain, pod(i))
			create += timed(budgeted, pod(i))
			listsPlain += timed(plain, list)
			lists += timed(budgeted, list)
		}
	}
	b.ReportMetric(float64(create)/float64(createPlain), "x-unbudgeted-create")
	b.ReportMetric(float64(lists)/float64(listsPlain), "x-unbudgeted-list")
}

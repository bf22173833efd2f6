package sandbox

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/timeline"
)

// BenchmarkLEARN_5_Scrub10k: scrubbing a sandbox whose history holds 10,000
// changes (100 ConfigMaps, each written 100 times): the list of the
// collection at the oldest revision in it and at the middle one
// (resourceVersionMatch=Exact, which undoes every later change), and the
// timeline's first page, each as a ratio to the floor measured in the same
// run: the plain list of the same collection. The browser's target is
// 100 ms (make bench-browser measures it there).
func BenchmarkLEARN_5_Scrub10k(b *testing.B) {
	const objects, writes = 100, 100
	sb, err := New(Config{APIOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	serve := func(method, path string, body []byte) *httptest.ResponseRecorder {
		if method == "PATCH" {
			return serveInProcess(sb, method, path, "application/merge-patch+json", body)
		}
		return serveInProcess(sb, method, path, "application/json", body)
	}
	const cms = "/api/v1/namespaces/default/configmaps"
	var middle int64
	for round := range writes {
		for i := range objects {
			var w *httptest.ResponseRecorder
			if round == 0 {
				w = serve("POST", cms, fmt.Appendf(nil, `{"metadata":{"name":"cm-%03d"},"data":{"round":"0"}}`, i))
			} else {
				w = serve("PATCH", fmt.Sprintf("%s/cm-%03d", cms, i), fmt.Appendf(nil, `{"data":{"round":"%d"}}`, round))
			}
			if w.Code >= 300 {
				b.Fatalf("write: %d %s", w.Code, w.Body.Bytes())
			}
			obj, _ := object.Decode(w.Body.Bytes())
			rev, _ := strconv.ParseInt(object.MetaString(obj, "resourceVersion"), 10, 64)
			if round == writes/2 && i == 0 {
				middle = rev
			}
		}
	}
	// History keeps 10,000 changes (storage's HistoryLimit): the oldest
	// revision served is a few rounds in.
	first := sb.Server.Storage().CompactedRevision()
	at := func(rev int64) string {
		return cms + "?resourceVersionMatch=Exact&resourceVersion=" + strconv.FormatInt(rev, 10)
	}
	var list, oldest, mid, page time.Duration
	for b.Loop() {
		for _, m := range []struct {
			path string
			d    *time.Duration
		}{{cms, &list}, {at(first), &oldest}, {at(middle), &mid}, {timeline.Path, &page}} {
			t := time.Now()
			if w := serve("GET", m.path, nil); w.Code != http.StatusOK {
				b.Fatalf("%s: %d %s", m.path, w.Code, w.Body.Bytes())
			}
			*m.d += time.Since(t)
		}
	}
	b.ReportMetric(float64(oldest)/float64(list), "oldest/list")
	b.ReportMetric(float64(mid)/float64(list), "middle/list")
	b.ReportMetric(float64(page)/float64(list), "timeline/list")
	b.ReportMetric(float64(oldest.Microseconds())/1000/float64(b.N), "oldest-ms")
	b.ReportMetric(float64(list.Microseconds())/1000/float64(b.N), "list-ms")
}

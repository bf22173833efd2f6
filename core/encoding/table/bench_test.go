package table

import (
	"encoding/json"
	"testing"
	"time"
)

// BenchmarkBuildPodList renders a Table of 500 pods (the fixtures, repeated) and
// reports the ratio to a floor measured in the same run: encoding/json of the
// finished metav1.Table with the same cells, the serializer step alone of what
// kube-apiserver does. Build also computes every cell, so a ratio near or below 1
// means the printers cost little next to encoding.
func BenchmarkBuildPodList(b *testing.B) {
	fixturePods := podItems(b)
	var items []Item
	for len(items) < 500 {
		items = append(items, fixturePods...)
	}
	items = items[:500]
	p := For("", "pods")
	opts := Options{Version: "v1", ListMeta: ListMeta{ResourceVersion: "1000"}, Now: goldenNow}
	table := kubeTable(b, p, items, opts)
	var buf []byte
	var build, floor time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		var err error
		if buf, err = Build(buf[:0], p, items, opts); err != nil {
			b.Fatal(err)
		}
		build += time.Since(start)
		start = time.Now()
		if _, err := json.Marshal(table); err != nil {
			b.Fatal(err)
		}
		floor += time.Since(start)
	}
	b.ReportMetric(float64(build)/float64(floor), "x-encoding-json-floor")
	b.ReportMetric(float64(len(buf)), "bytes")
}

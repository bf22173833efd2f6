package gc_test

import (
	"fmt"
	"testing"
	"time"

	"kubeplay/core/object"
)

// BenchmarkK8S_DEL_2_CollectOwnerOf1000 deletes an owner of 1,000
// ConfigMaps and waits until the garbage collector has deleted them all and,
// as the floor in the same loop, deletes 1,000 ConfigMaps one by one through
// the same client; x-plain-deletes is the collection's time over the
// floor's.
func BenchmarkK8S_DEL_2_CollectOwnerOf1000(b *testing.B) {
	const n = 1000
	c := newCluster(b)
	c.settle() // the collector has synced
	var tGC, tPlain time.Duration
	for i := 0; i < b.N; i++ {
		owner := c.create(cms, cm(fmt.Sprint("owner-", i)))
		for j := range n {
			c.create(cms, cm(fmt.Sprintf("dep-%d-%d", i, j), ref(owner, false)))
			c.create(cms, cm(fmt.Sprintf("plain-%d-%d", i, j)))
		}
		gone := c.deletions(cms, object.MetaString(owner, "resourceVersion"), 1+2*n)

		start := time.Now()
		for j := range n {
			c.del(cms+fmt.Sprintf("/plain-%d-%d", i, j), "")
		}
		mid := time.Now()
		c.del(cms+fmt.Sprint("/owner-", i), "")
		gone()
		tPlain += mid.Sub(start)
		tGC += time.Since(mid)
	}
	b.ReportMetric(float64(tGC)/float64(tPlain), "x-plain-deletes")
	b.ReportMetric(float64(tGC.Milliseconds())/float64(b.N), "gc-ms/op")
	b.ReportMetric(float64(tPlain.Milliseconds())/float64(b.N), "plain-ms/op")
}

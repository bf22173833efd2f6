package flowcontrol

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kubeplay/core/clock"
	"kubeplay/core/flowcontrol/fairqueuing"
	"kubeplay/core/request"
	"kubeplay/core/user"
	"kubeplay/core/web"
)

// nopWriter is a ResponseWriter that keeps nothing.
type nopWriter struct{ h http.Header }

func (w *nopWriter) Header() http.Header         { return w.h }
func (w *nopWriter) WriteHeader(int)             {}
func (w *nopWriter) Write(b []byte) (int, error) { return len(b), nil }

// BenchmarkAPF_DispatchOverhead is what API Priority and Fairness adds to an
// uncontended request (classification among kube's FlowSchemas, the work
// estimate, a dispatch through global-default's queues, the headers, the
// metrics): the same request through a handler that answers at once, with and
// without the filter, in one run. apf-overhead-µs is the difference per
// request (the budget is 5 µs); x-floor the ratio.
func BenchmarkAPF_DispatchOverhead(b *testing.B) {
	c := New(Config{ServerConcurrencyLimit: 600})
	c.digestBootstrap()
	answer := web.HandlerFunc(func(w web.ResponseWriter, _ *web.Request) { w.WriteHeader(200) })
	withAPF := c.Filter(answer)
	r, _ := web.NewRequest(context.Background(), "GET", "http://x/api/v1/namespaces/default/configmaps/c", nil)
	r = r.WithContext(user.WithUser(request.WithRequestInfo(r.Context(), request.ParseRequestInfo(r)),
		user.User{Name: "alice", Groups: []string{user.AllAuthenticated}}))
	w := &nopWriter{h: http.Header{}}
	run := func(h web.Handler) time.Duration {
		start := time.Now()
		for i := 0; i < b.N; i++ {
			h.ServeHTTP(w, r)
		}
		return time.Since(start)
	}
	b.ResetTimer()
	floor := run(answer)
	apf := run(withAPF)
	b.ReportMetric(float64(apf-floor)/float64(b.N)/1e3, "apf-overhead-µs")
	b.ReportMetric(float64(apf)/float64(max(floor, 1)), "x-floor")
}

// BenchmarkAPF_MouseUnderFlood: on a level of four seats (queues 64, hand 6,
// as kube's global-default), an elephant flow keeps 64 requests of 1 ms
// outstanding while a mouse sends one request at a time; mouse-p99-x-unloaded
// is the mouse's 99th percentile latency over its latency with no elephant,
// measured in the same run (the bound is 3).
func BenchmarkAPF_MouseUnderFlood(b *testing.B) {
	const service = time.Millisecond
	newLevel := func() *fairqueuing.QueueSet {
		qs := fairqueuing.NewQueueSet(clock.Real, newMetricSet(clock.Real).level(clock.Real, "global-default"))
		if err := qs.Configure(fairqueuing.QueuingConfig{Name: "global-default", Queues: 64, HandSize: 6, QueueLengthLimit: 100}, 4); err != nil {
			b.Fatal(err)
		}
		return qs
	}
	one := func(qs *fairqueuing.QueueSet, flow string) time.Duration {
		start := time.Now()
		req, _ := qs.StartRequest(context.Background(), fairqueuing.WorkEstimate{InitialSeats: 1}, fairqueuing.HashFlowID("global-default", flow), "global-default", flow, nil)
		if req == nil {
			return -1
		}
		req.Finish(time.Minute, func() { time.Sleep(service) })
		return time.Since(start)
	}
	p99 := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[(len(ds)*99)/100]
	}
	n := max(b.N, 50)
	b.ResetTimer()
	quiet := newLevel()
	var unloaded []time.Duration
	for i := 0; i < n; i++ {
		unloaded = append(unloaded, one(quiet, "mouse"))
	}
	flood := newLevel()
	var stop atomic.Bool
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				one(flood, "elephant")
			}
		}()
	}
	time.Sleep(20 * service) // the flood fills the elephant's queues
	var loaded []time.Duration
	for i := 0; i < n; i++ {
		if d := one(flood, "mouse"); d >= 0 {
			loaded = append(loaded, d)
		}
	}
	stop.Store(true)
	wg.Wait()
	b.ReportMetric(float64(p99(loaded))/float64(p99(unloaded)), "mouse-p99-x-unloaded")
	b.ReportMetric(float64(p99(unloaded).Microseconds()), "unloaded-p99-µs")
}

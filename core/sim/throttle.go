package sim

import (
	"golang.org/x/time/rate"

	"kubeplay/core/apierrors"
	"kubeplay/core/web"
)

// Client-side rate limits, as client-go's token bucket holds each
// component's requests: kube-controller-manager's controllers at
// --kube-api-qps 20 with bursts of --kube-api-burst 30, the scheduler and the
// kubelets at 50 and 100.
const (
	controllerQPS, controllerBurst = 20, 30
	schedulerQPS, schedulerBurst   = 50, 100
	kubeletQPS, kubeletBurst       = 50, 100
)

// throttled is h behind one component's client-side rate limit: a
// ReplicaSet of 100,000 replicas gets its Pods at that pace, as in a real
// cluster, and a host on one thread (WebAssembly: the browser's worker, an
// edge isolate) gets its turn between the component's bursts rather than
// serving the simulation alone. The limit is in real time, whatever the
// simulation's clock: it bounds the work, which is real.
func throttled(h web.Handler, qps float64, burst int) web.Handler {
	limiter := rate.NewLimiter(rate.Limit(qps), burst)
	return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		if err := limiter.Wait(r.Context()); err != nil {
			// The caller has gone: what it is answered is never read.
			apierrors.Write(w, apierrors.NewServiceUnavailable("client rate limiter Wait returned an error: "+err.Error()))
			return
		}
		h.ServeHTTP(w, r)
	})
}

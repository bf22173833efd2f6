package sim_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/object"
	"kubeplay/core/sandbox"
	"kubeplay/core/sim"
	"kubeplay/core/storage"
	"kubeplay/core/user"
)

// BenchmarkSIM_DeploymentReady: a Deployment of N replicas until all its Pods
// are Running and Ready and the Deployment says so (the simulation at full
// speed: no simulated waits), against the floor of the same core creating N
// Pods directly. x-floor is the ratio of the two times; writes/s is the
// store's revisions per second during the rollout (every controller's,
// scheduler's and kubelet's write, events included); heap-KB/pod is what the
// simulation holds per Pod once settled.
func BenchmarkSIM_DeploymentReady(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var rollout, floor time.Duration
			var writes int64
			var heap float64
			for range b.N {
				t, w, h := deploymentReady(b, n)
				rollout += t
				writes += w
				heap += h
				floor += createPods(b, n)
			}
			b.ReportMetric(float64(rollout)/float64(floor), "x-floor")
			b.ReportMetric(float64(writes)/rollout.Seconds(), "writes/s")
			b.ReportMetric(heap/float64(b.N)/1024, "heap-KB/pod")
			b.ReportMetric(float64(rollout.Milliseconds())/float64(b.N), "ms/rollout")
		})
	}
}

func admin(srv *sandbox.Server) *client.Client {
	return client.New(srv, user.User{Name: "admin", Groups: []string{user.SystemPrivileged, user.AllAuthenticated}}, "bench")
}

// deploymentReady rolls out a Deployment of n replicas on a fresh simulated
// cluster and returns how long it took, how many writes it made and the heap
// it left per Pod.
func deploymentReady(b *testing.B, n int) (time.Duration, int64, float64) {
	srv, err := sandbox.NewServer(sandbox.Config{Storage: storage.Config{HistoryLimit: 1 << 20, WatchBuffer: 1 << 16}})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	cl, err := sim.Start(srv, sim.Config{Nodes: 1 + (n+99)/100, Speed: 1e9})
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Stop()
	c := admin(srv)
	ctx := context.Background()
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	rev := srv.Storage().Revision()
	w, err := c.Watch(ctx, deployments, fmt.Sprint("resourceVersion=", rev))
	if err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	d, _ := object.Decode([]byte(webDeployment(n)))
	start := time.Now()
	if _, err := c.Create(ctx, deployments, d); err != nil {
		b.Fatal(err)
	}
	for {
		ev, err := w.Next()
		if err != nil {
			b.Fatal(err)
		}
		if num(ev.Object, "status", "availableReplicas") == int64(n) && num(ev.Object, "status", "updatedReplicas") == int64(n) {
			break
		}
	}
	took := time.Since(start)
	writes := srv.Storage().Revision() - rev
	for cl.Pending() > 0 {
		time.Sleep(time.Millisecond)
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	return took, writes, float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
}

// createPods is the floor: n Pods created one after another on a fresh core
// with no simulation.
func createPods(b *testing.B, n int) time.Duration {
	srv, err := sandbox.NewServer(sandbox.Config{Storage: storage.Config{HistoryLimit: 1 << 20, WatchBuffer: 1 << 16}})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	c := admin(srv)
	ctx := context.Background()
	start := time.Now()
	for i := range n {
		p, _ := object.Decode([]byte(podDoc(fmt.Sprint("pod-", i), `{"containers":[{"name":"nginx","image":"nginx"}]}`)))
		if _, err := c.Create(ctx, pods, p); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

// Package sim owns the simulated cluster behind a sandbox's API: a few Nodes
// named and sized as a kind cluster's, kube-scheduler, a kubelet per node
// (kwok's idea: Pods go through their phases, get IPs, become ready, crash
// and restart, without containers), and kube-controller-manager's controllers
// (core/controllers/...). Each is an API client of the core with its own
// identity, so everything it does shows in watches, in the request log and in
// API Priority and Fairness as a real cluster's does. Nothing ticks while
// nothing changes: the only timers are those of Pods on their way somewhere.
package sim

import (
	"context"
	"sync"

	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/controllers/cronjob"
	"kubeplay/core/controllers/daemonset"
	"kubeplay/core/controllers/deployment"
	"kubeplay/core/controllers/disruption"
	"kubeplay/core/controllers/endpoints"
	"kubeplay/core/controllers/job"
	"kubeplay/core/controllers/podautoscaler"
	"kubeplay/core/controllers/replicaset"
	"kubeplay/core/controllers/resourcequota"
	"kubeplay/core/controllers/serviceaccount"
	"kubeplay/core/controllers/statefulset"
	"kubeplay/core/controllers/tainteviction"
	"kubeplay/core/web"
)

// DefaultNodes is how many nodes a simulated cluster has unless told:
// a control plane and two workers.
const DefaultNodes = 3

// MaxNodes bounds the node count a sandbox may ask for.
const MaxNodes = 50

// Config configures a simulated cluster.
type Config struct {
	// Nodes is how many nodes the cluster has, the control plane included
	// (0: DefaultNodes). With one node, the control plane takes workloads, as
	// a one-node kind cluster's does.
	Nodes int
	// Speed divides the simulated durations (image pulls, container run
	// times, back-offs): 10 runs the simulation ten times faster (0: 1).
	Speed float64
	// Clock is the cluster's time (nil: the wall clock).
	Clock clock.Clock
}

// Cluster is a running simulated cluster.
type Cluster struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	parts  []part
}

// part is one of the cluster's controllers, kubelets or scheduler.
type part interface {
	Run(ctx context.Context)
	// Pending is how many keys it has to work on, now or later (a timer).
	Pending() int
}

// Start registers the nodes, creates kind's default StorageClass and
// registers metrics-server through h, and starts the scheduler, the kubelets and the controllers against it.
// Registration is done when Start returns.
func Start(h web.Handler, cfg Config) (*Cluster, error) {
	if cfg.Nodes <= 0 {
		cfg.Nodes = DefaultNodes
	}
	cfg.Nodes = min(cfg.Nodes, MaxNodes)
	if cfg.Speed <= 0 {
		cfg.Speed = 1
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real
	}
	ctx, cancel := context.WithCancel(context.Background())
	cl := &Cluster{cancel: cancel}
	lifecycle := controllers.NewClient(h, "node-controller")
	for i := range cfg.Nodes {
		if err := register(ctx, nodeClient(h, NodeName(i)), lifecycle, i, cfg.Nodes, cfg.Clock.Now()); err != nil {
			cancel()
			return nil, err
		}
		cl.parts = append(cl.parts, newKubelet(throttled(h, kubeletQPS, kubeletBurst), cfg.Clock, i, cfg.Speed))
	}
	if err := removeNodes(ctx, h, lifecycle, cfg.Nodes); err != nil {
		cancel()
		return nil, err
	}
	if err := createStandardClass(ctx, h); err != nil {
		cancel()
		return nil, err
	}
	if err := installMetricsServer(ctx, h); err != nil {
		cancel()
		return nil, err
	}
	kcm := func() web.Handler { return throttled(h, controllerQPS, controllerBurst) } // each controller's own client
	cl.parts = append(cl.parts, newScheduler(throttled(h, schedulerQPS, schedulerBurst), cfg.Clock), newVolumes(kcm(), cfg.Clock),
		replicaset.New(kcm(), cfg.Clock),
		replicaset.NewReplicationManager(kcm(), cfg.Clock),
		deployment.New(kcm(), cfg.Clock),
		endpoints.New(kcm(), cfg.Clock),
		job.New(kcm(), cfg.Clock),
		cronjob.New(kcm(), cfg.Clock),
		daemonset.New(kcm(), cfg.Clock),
		statefulset.New(kcm(), cfg.Clock),
		serviceaccount.NewRootCAPublisher(kcm(), cfg.Clock),
		resourcequota.New(kcm(), cfg.Clock),
		disruption.New(kcm(), cfg.Clock),
		podautoscaler.New(kcm(), cfg.Clock),
		tainteviction.New(kcm(), cfg.Clock))
	for _, p := range cl.parts {
		cl.wg.Add(1)
		go func() {
			defer cl.wg.Done()
			p.Run(ctx)
		}()
	}
	return cl, nil
}

// Pending is how much work the cluster has in hand: keys its parts are to
// sync, now or later. Zero is a settled cluster, which schedules no timer.
func (cl *Cluster) Pending() int {
	n := 0
	for _, p := range cl.parts {
		n += p.Pending()
	}
	return n
}

// Stop stops everything and waits for it.
func (cl *Cluster) Stop() {
	cl.cancel()
	cl.wg.Wait()
}

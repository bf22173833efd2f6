// Package sandbox assembles the core as every host runs it: the API server
// (core/apiserver) with authentication (core/auth) and API Priority and
// Fairness (core/flowcontrol) in its filter chain, APF's configuration
// controller running against it, the `kubernetes` Service kube-apiserver
// keeps, and, unless the sandbox is API-only, the simulated cluster
// (core/sim: nodes, kubelets, scheduler, controllers).
// Hosts only add I/O (persistence, transport).
package sandbox

import (
	"context"
	"sync/atomic"
	"time"

	"kubeplay/core/apiserver"
	"kubeplay/core/auth"
	"kubeplay/core/controllers"
	"kubeplay/core/flowcontrol"
	"kubeplay/core/registry"
	"kubeplay/core/sim"
)

// DefaultSeats is the sandbox's server concurrency limit: 60 seats shared by the
// priority levels (kube's default is 600, --max-requests-inflight 400 plus
// --max-mutating-requests-inflight 200), so that queues, borrowing and 429s can
// be seen; global-default gets 5 of them.
const DefaultSeats = 60

// Config configures a Sandbox.
type Config struct {
	API apiserver.Config
	// Tokens is the bearer token table; nil is auth.Defaults().
	Tokens auth.Tokens
	// DenyAnonymous answers requests without a bearer token 401 Unauthorized,
	// as kube-apiserver does with --anonymous-auth=false (and by itself with
	// a token file under the AlwaysAllow authorizer).
	DenyAnonymous bool
	// Seats is APF's server concurrency limit; 0 is DefaultSeats.
	Seats int
	// APIOnly serves the API alone: no nodes, no kubelets, no scheduler, no
	// controllers but the API server's own (namespaces, APF). The browser's
	// build always does (see cluster_js.go).
	APIOnly bool
	// Cluster configures the simulated cluster (node count, speed); its clock
	// is the API's.
	Cluster sim.Config
}

// Sandbox is a running core.
type Sandbox struct {
	*apiserver.Server
	APF     *flowcontrol.Controller
	cluster *sim.Cluster // nil when API-only
}

// New starts a sandbox. Filters already in cfg.API run after authentication and
// APF.
func New(cfg Config) (*Sandbox, error) {
	if cfg.Tokens == nil {
		cfg.Tokens = auth.Defaults()
	}
	if cfg.Seats <= 0 {
		cfg.Seats = DefaultSeats
	}
	s := &Sandbox{}
	// The server's own controllers send requests while it starts: until it is
	// there, lists count no objects.
	var started atomic.Pointer[apiserver.Server]
	s.APF = flowcontrol.New(flowcontrol.Config{
		ServerConcurrencyLimit: cfg.Seats,
		Clock:                  cfg.API.Clock,
		ObjectCount: func(group, resource string) int64 {
			if api := started.Load(); api != nil {
				return api.ObjectCount(group, resource)
			}
			return 0
		},
	})
	if !cfg.APIOnly && cfg.API.PodLogs == nil {
		cfg.API.PodLogs = podLogs(cfg.API.Clock)
	}
	cfg.API.Filters = append([]apiserver.Filter{auth.NewAuthenticator(cfg.Tokens, !cfg.DenyAnonymous).Filter, s.APF.Filter}, cfg.API.Filters...)
	// The controllers start once the sandbox serves (below): on one thread
	// their first lists would otherwise hold up its start.
	cfg.API.DeferControllers = true
	api, err := apiserver.New(cfg.API)
	if err != nil {
		return nil, err
	}
	s.Server = api
	started.Store(api)
	s.APF.Start(api)
	// As kube-apiserver becomes ready only once its APF configuration exists,
	// the sandbox starts serving with it in effect (a few milliseconds).
	select {
	case <-s.APF.Ready():
	case <-time.After(readyTimeout):
	}
	serviceRange := cfg.API.ServiceIPRange
	if serviceRange == "" {
		serviceRange = registry.DefaultServiceIPRange
	}
	if err := controllers.EnsureKubernetesService(context.Background(), api, registry.FirstServiceIP(serviceRange), sim.ControlPlaneIP); err != nil {
		s.Close()
		return nil, err
	}
	api.StartControllers()
	if !cfg.APIOnly {
		cfg.Cluster.Clock = cfg.API.Clock
		if s.cluster, err = startCluster(api, cfg.Cluster); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// readyTimeout bounds how long New waits for APF's configuration; past it the
// sandbox serves with the mandatory levels until the rest arrives.
const readyTimeout = 10 * time.Second

// Close stops the simulated cluster and APF's controller, then the server.
func (s *Sandbox) Close() error {
	if s.cluster != nil {
		s.cluster.Stop()
	}
	s.APF.Stop()
	return s.Server.Close()
}

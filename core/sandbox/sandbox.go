// Package sandbox is the one place that assembles the core as every host
// runs it, in order: storage and the registry over it (core/registry), the
// API's handler (core/apiserver) behind authentication (core/auth) and API
// Priority and Fairness (core/flowcontrol), the controllers that run in
// kube-apiserver's own process (namespaces, the garbage collector,
// CustomResourceDefinitions, the Events' time to live, APF's configuration,
// the `kubernetes` Service), and, unless the sandbox is API-only, the
// simulated cluster (core/sim: nodes, kubelets, scheduler, controllers).
// Hosts only add I/O (persistence, transport).
package sandbox

import (
	"context"
	"kubeplay/core/admission"
	"kubeplay/core/aggregator"
	"kubeplay/core/requestlog"
	"kubeplay/core/share"
	"kubeplay/core/timeline"
	"sync"
	"sync/atomic"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/apiserver"
	"kubeplay/core/apply"
	"kubeplay/core/auth"
	"kubeplay/core/budget"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/controllers/gc"
	"kubeplay/core/controllers/policystatus"
	"kubeplay/core/controllers/serviceaccount"
	"kubeplay/core/crd"
	"kubeplay/core/export"
	"kubeplay/core/flowcontrol"
	"kubeplay/core/flowcontrol/bootstrap"
	"kubeplay/core/health"
	"kubeplay/core/kinds"
	"kubeplay/core/metricsserver"
	"kubeplay/core/rbac"
	"kubeplay/core/registry"
	"kubeplay/core/sim"
	"kubeplay/core/storage"
	"kubeplay/core/user"
	"kubeplay/core/web"
)

// DefaultSeats is the sandbox's server concurrency limit: 60 seats shared by the
// priority levels (kube's default is 600, --max-requests-inflight 400 plus
// --max-mutating-requests-inflight 200), so that queues, borrowing and 429s can
// be seen; global-default gets 5 of them.
const DefaultSeats = 60

// Config configures a Sandbox.
type Config struct {
	// Storage is what storage keeps and for how long, and where it persists
	// (core/storage); its budget is Budget's.
	Storage storage.Config
	// API configures the handler: its own filters (after authentication and
	// APF), limits, clock (every part's), the kubelets' logs.
	API apiserver.Config
	// Resources are kinds served beside the built-ins: the xDS group
	// (api.XDS), with the host's check of Envoy resources.
	Resources []*api.Resource
	// Budget bounds what the sandbox holds and opens (core/budget); the zero
	// value bounds nothing.
	Budget budget.Limits
	// ServiceIPRange is kube-apiserver's --service-cluster-ip-range (default
	// registry.DefaultServiceIPRange, 10.96.0.0/12).
	ServiceIPRange string
	// FreshnessWait is how long a read waits for a newer resourceVersion than
	// storage has before 504 "Too large resource version" (default 3s, as
	// kube).
	FreshnessWait time.Duration
	// EventTTL is how long an Event lives after its last write (default 1h,
	// kube-apiserver's --event-ttl).
	EventTTL time.Duration
	// Tokens is the bearer token table; nil is auth.Defaults().
	Tokens auth.Tokens
	// DenyAnonymous answers requests without a bearer token 401 Unauthorized,
	// as kube-apiserver does with --anonymous-auth=false (and by itself with
	// a token file under the AlwaysAllow authorizer).
	DenyAnonymous bool
	// Tokenless, when set, is who a request without a bearer token acts as,
	// in place of system:anonymous: the sandbox's own user (auth.Admin) where
	// only its owner reaches the sandbox and kubectl sends no token (the
	// native command's plain-HTTP loopback listener, the browser).
	Tokenless *user.User
	// Authorization is kube-apiserver's --authorization-mode: auth.ModeRBAC
	// (the default: the bootstrap policy, and the roles and bindings stored)
	// or auth.ModeAlwaysAllow.
	Authorization string
	// Seats is APF's server concurrency limit; 0 is DefaultSeats.
	Seats int
	// APIOnly serves the API alone: no nodes, no kubelets, no scheduler, no
	// controllers but the API server's own (namespaces, APF). The browser's
	// build always does (see cluster_js.go).
	APIOnly bool
	// CEL evaluates the Common Expression Language (CustomResourceDefinitions'
	// rules); nil is core/cel's natively and in the edge's core (-tags cel),
	// none in the browser's, whose host gives the CEL module's.
	CEL api.CEL
	// Cluster configures the simulated cluster (node count, speed); its clock
	// is the API's.
	Cluster sim.Config
	// Webhooks reaches the admission webhooks configured with a url
	// (admission.HTTP natively); nil: none is reachable.
	Webhooks admission.Caller
	// Requests is the request log to write to: a host's that outlives the
	// sandbox (the native workshop's, across its unloads); nil: a new one.
	Requests *requestlog.Log
	// DeferStart: a new sandbox too answers its first request before it
	// writes its bootstrap RBAC policy and the kubernetes Service and starts
	// its controllers (a sandbox started again always does), its /readyz
	// failing those post-start hooks meanwhile, as kube-apiserver's does
	// while they run. For the browser, where a first visit runs the core's
	// code still unoptimized: half a second less before its first answer.
	DeferStart bool
	// ExportCluster says what the sandbox runs beside its API, for its
	// export's header, where the host runs it outside the core (the
	// browser's simulation module); nil: the core's own (APIOnly, Cluster).
	ExportCluster func() export.Cluster
}

// Server is kube-apiserver as the core runs it: the handler, the registry
// and storage under it, and the controllers of its own process.
type Server struct {
	*apiserver.Server
	// Registry is the objects' store (core/registry).
	Registry *registry.Store

	definitions *crd.Controller
	ctx         context.Context
	cancel      context.CancelFunc
	wg          sync.WaitGroup
}

// Storage is the storage under the registry: its revision, its restore
// errors, compaction.
func (s *Server) Storage() *storage.Store { return s.Registry.Storage() }

// Close stops the controllers and closes storage (ending every watch).
func (s *Server) Close() error {
	s.cancel()
	err := s.Registry.Close()
	s.wg.Wait()
	return err
}

// Sandbox is a running core.
type Sandbox struct {
	*Server
	APF *flowcontrol.Controller
	// Requests is the sandbox's request log (core/requestlog): every
	// request its API answered lately, its controllers' included; served at
	// /debug/kubeplay/requests.
	Requests *requestlog.Log
	cluster  *sim.Cluster // nil when API-only

	// What a sandbox started again from its store does only once it has
	// answered its first request (background): its controllers, APF's
	// configuration controller, the kubernetes Service's check.
	background     func()
	backgroundOnce sync.Once
	// unready is the post-start hooks that wait for background (health).
	unready atomic.Pointer[[]string]
	closeMu sync.Mutex
	closed  bool
}

// New starts a sandbox. Filters already in cfg.API run after authentication and
// APF.
func New(cfg Config) (*Sandbox, error) {
	if cfg.API.Clock == nil {
		cfg.API.Clock = clock.Real
	}
	if cfg.Tokens == nil {
		cfg.Tokens = auth.Defaults()
	}
	if cfg.Seats <= 0 {
		cfg.Seats = DefaultSeats
	}
	if cfg.Authorization == "" {
		cfg.Authorization = auth.ModeRBAC
	}
	// What the sandbox writes as it starts (its bootstrap objects, for a new
	// one) is made durable at once before it answers anyone: one IndexedDB
	// transaction or fsync, not one per object (Settle, below).
	cfg.Storage.Settling = true
	policy := registry.PolicyLateIfHeld
	if cfg.DeferStart {
		policy = registry.PolicyLate
	}
	store, err := openRegistry(cfg, !cfg.APIOnly, policy)
	if err != nil {
		return nil, err
	}
	s := &Sandbox{Requests: cfg.Requests}
	if s.Requests == nil {
		s.Requests = requestlog.New(cfg.API.Clock, 0, 0, requestlog.IsPath)
	}
	cfg.API.RequestLog = s.Requests
	cfg.API.Unready = func() []string {
		if p := s.unready.Load(); p != nil {
			return *p
		}
		return nil
	}
	cfg.API.Debug = map[string]web.Handler{
		export.Path:   export.Handler(store.Storage(), exportCluster(cfg), cfg.API.Clock.Now),
		timeline.Path: timeline.Handler(timeline.New(store, s.Requests)),
		share.Path:    share.Handler(store),
	}
	s.APF = flowcontrol.New(flowcontrol.Config{
		ServerConcurrencyLimit: cfg.Seats,
		Clock:                  cfg.API.Clock,
		ObjectCount:            store.ObjectCount,
	})
	if !cfg.APIOnly && cfg.API.PodLogs == nil {
		cfg.API.PodLogs = podLogs(cfg.API.Clock)
	}
	authz := store.Authorizer()
	authn := auth.NewAuthenticator(auth.Options{Tokens: cfg.Tokens, Anonymous: !cfg.DenyAnonymous, Tokenless: cfg.Tokenless, Authorizer: authz,
		ServiceAccounts: authz})
	// kube-apiserver's order: authentication and impersonation, API
	// Priority and Fairness, then authorization.
	cfg.API.Filters = append([]apiserver.Filter{authn.Filter, s.APF.Filter, auth.Authorization(authz)}, cfg.API.Filters...)
	s.Server = newServer(store, cfg)
	serviceRange := cfg.ServiceIPRange
	if serviceRange == "" {
		serviceRange = registry.DefaultServiceIPRange
	}
	ensureService := func() error {
		return controllers.EnsureKubernetesService(context.Background(), s.Server, registry.FirstServiceIP(serviceRange), sim.ControlPlaneIP, cfg.API.Clock.Now())
	}
	// A sandbox started again has its APF configuration in its store: in
	// effect at once, as it was before. A new one that answers first
	// (DeferStart) has kube's built-in configuration in effect at once, its
	// ensurer writing it after the first answer (until then the answers'
	// X-Kubernetes-PF-*-UID headers are empty, as kube-apiserver's are while
	// its in-memory mandatory objects classify requests).
	kinds := store.Schema()
	pls := store.Decoded(kinds.ByGroupResource("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations"))
	fss := store.Decoded(kinds.ByGroupResource("flowcontrol.apiserver.k8s.io", "flowschemas"))
	if len(pls) == 0 && len(fss) == 0 && cfg.DeferStart {
		pls = append(bootstrap.Mandatory(bootstrap.PriorityLevelConfiguration), bootstrap.Suggested(bootstrap.PriorityLevelConfiguration)...)
		fss = append(bootstrap.Mandatory(bootstrap.FlowSchema), bootstrap.Suggested(bootstrap.FlowSchema)...)
	}
	s.APF.Prime(pls, fss)
	// Everything else waits for the first answer (Sandbox.ServeHTTP): on
	// one thread (WebAssembly) the controllers' first lists, APF's own and
	// the checks would otherwise run before it. Until then /readyz names
	// the post-start hooks that wait.
	later := func(apf bool) {
		hooks := []string{health.BootstrapRoles, health.BootstrapController}
		if apf {
			hooks = append(hooks, health.FlowControlBootstrap)
		}
		s.unready.Store(&hooks)
		s.background = func() {
			_ = s.Registry.CreateBootstrapPolicy() // what of it is missing, as kube's post-start hook
			if apf {
				s.APF.Start(s.Server)
			}
			_ = ensureService() // or a check, when the store holds it, as kube's controller's
			s.startControllers(cfg)
			if apf {
				<-s.APF.Produced()
			}
			s.unready.Store(nil)
		}
		// A sandbox nobody asks anything still runs its controllers.
		time.AfterFunc(backgroundAtLatest, s.afterFirstAnswer)
	}
	select {
	case <-s.APF.Ready():
		later(true)
	default:
		// A new sandbox: as kube-apiserver becomes ready only once its APF
		// configuration exists, it starts serving with it in effect (a few
		// milliseconds); then the rest, as above (DeferStart) or at once.
		s.APF.Start(s.Server)
		select {
		case <-s.APF.Ready():
		case <-time.After(readyTimeout):
		}
		if cfg.DeferStart {
			later(false)
			break
		}
		if err := ensureService(); err != nil {
			s.Close()
			return nil, err
		}
		s.startControllers(cfg)
	}
	if !cfg.APIOnly {
		cfg.Cluster.Clock = cfg.API.Clock
		if s.cluster, err = startCluster(s.Server, cfg.Cluster); err != nil {
			s.Close()
			return nil, err
		}
	}
	if err := store.Storage().Settle(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// NewServer starts kube-apiserver alone: storage, the registry, the handler
// with cfg.API's filters only, and the controllers of its own process; no
// authentication, no APF, no simulated cluster (cfg's Tokens, DenyAnonymous,
// Seats, APIOnly and Cluster say nothing). Tests of the core's parts run
// against it.
func NewServer(cfg Config) (*Server, error) {
	if cfg.API.Clock == nil {
		cfg.API.Clock = clock.Real
	}
	store, err := openRegistry(cfg, false, registry.PolicyAtOpen)
	if err != nil {
		return nil, err
	}
	s := newServer(store, cfg)
	s.startControllers(cfg)
	return s, nil
}

// openRegistry opens storage and the registry over it, serving the
// built-in kinds and cfg.Resources; controlPlane: a simulated cluster's
// scheduler and controllers run beside it (its componentstatuses say so),
// here or, in the browser and at the edge, in the module the host runs
// beside the core; policy: when the bootstrap RBAC policy is written.
func openRegistry(cfg Config, controlPlane bool, policy registry.BootstrapPolicy) (*registry.Store, error) {
	sc := cfg.Storage
	sc.Budget = storage.Budget{Objects: cfg.Budget.Objects, Bytes: cfg.Budget.Bytes, Watchers: cfg.Budget.Watches}
	served := api.NewRegistry(append(kinds.All(), cfg.Resources...)...)
	return registry.Open(registry.Config{
		BootstrapPolicy: policy,
		Storage:         sc,
		Schema:          served,
		Clock:           cfg.API.Clock,
		Fields:          apply.FieldManager{Kinds: served},
		Pods:            cfg.Budget.Pods,
		ServiceIPRange:  cfg.ServiceIPRange,
		FreshnessWait:   cfg.FreshnessWait,
		Authorization:   cfg.Authorization,
		CEL:             hostCEL(cfg.CEL),
		Webhooks:        cfg.Webhooks,
		ControlPlane:    func() bool { return controlPlane },
	})
}

// newServer is the handler over store, serving the custom resources of the
// stored CustomResourceDefinitions; no controller runs yet.
func newServer(store *registry.Store, cfg Config) *Server {
	s := &Server{Server: apiserver.New(store, cfg.API), Registry: store}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	kinds := store.Schema()
	s.definitions = crd.NewController(s.Server, kinds, s.Clock())
	s.definitions.Restore(store.Decoded(kinds.ByGroupResource("apiextensions.k8s.io", "customresourcedefinitions")))
	return s
}

// startControllers starts the controllers that run inside kube-apiserver's
// process: namespaces, the garbage collector, CustomResourceDefinitions, and
// the Events' time to live, and the aggregator's registration of the local
// APIServices (and, unless API-only, the simulated metrics-server it proxies
// to once the simulated cluster registers it); and those of kube-controller-manager's that every sandbox
// needs: the clusterrole aggregation (for admin, edit and view to mean
// something), the ServiceAccount controller (for the `default` account
// ServiceAccount admission requires of a Pod) and the
// ValidatingAdmissionPolicies' status (their type checking). (The root CA publisher is the
// simulated cluster's, as its kubelets are what reads the CA.)
func (s *Server) startControllers(cfg Config) {
	clk := s.Clock()
	// The simulated cluster's metrics-server answers for its APIService,
	// which only the simulated cluster registers.
	backends := map[string]aggregator.Backend{metricsserver.APIService: metricsserver.New(s.Server, clk)}
	if cfg.APIOnly {
		backends = nil
	}
	for _, run := range []func(context.Context){controllers.NewNamespace(s.Server, clk).Run, gc.New(s.Server, clk).Run, s.definitions.Run,
		rbac.NewAggregationController(s.Server, clk).Run, aggregator.New(s.Server, s.Registry.Schema(), clk, backends).Run,
		s.Registry.EventTTL(cfg.EventTTL).Run,
		serviceaccount.NewServiceAccounts(s.Server, clk).Run, policystatus.New(s.Server, hostCEL(cfg.CEL), clk).Run} {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			run(s.ctx)
		}()
	}
}

// exportCluster is what the sandbox's export says it runs beside its API.
func exportCluster(cfg Config) func() export.Cluster {
	if cfg.ExportCluster != nil {
		return cfg.ExportCluster
	}
	c := export.Cluster{Mode: "api-only"}
	if !cfg.APIOnly {
		c = export.Cluster{Mode: "simulated", Nodes: cfg.Cluster.Nodes}
		if c.Nodes == 0 {
			c.Nodes = sim.DefaultNodes
		}
	}
	return func() export.Cluster { return c }
}

// readyTimeout bounds how long New waits for APF's configuration; past it the
// sandbox serves with the mandatory levels until the rest arrives.
const readyTimeout = 10 * time.Second

// ServeHTTP answers r; the first answer starts what a sandbox started
// again left for after it (its controllers), a moment later, so that a
// single-threaded host (WebAssembly) hands the answer over first.
func (s *Sandbox) ServeHTTP(w web.ResponseWriter, r *web.Request) {
	s.Server.ServeHTTP(w, r)
	if s.background != nil {
		s.afterFirstAnswer()
	}
}

// afterFirstAnswer starts, a moment later and once, what waited for the
// first answer.
func (s *Sandbox) afterFirstAnswer() {
	s.backgroundOnce.Do(func() { time.AfterFunc(backgroundDelay, s.startBackground) })
}

// backgroundDelay is how long after its first answer a sandbox started
// again starts its controllers: long enough for a host's event loop to
// deliver the answer. backgroundAtLatest is when they start anyway.
const (
	backgroundDelay    = time.Millisecond
	backgroundAtLatest = 500 * time.Millisecond
)

// startBackground starts what waited for the first answer, unless the
// sandbox closed first.
func (s *Sandbox) startBackground() {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if !s.closed {
		s.background()
	}
}

// Close stops the simulated cluster and APF's controller, then the server.
func (s *Sandbox) Close() error {
	s.closeMu.Lock()
	s.closed = true
	s.closeMu.Unlock()
	if s.cluster != nil {
		s.cluster.Stop()
	}
	s.APF.Stop()
	return s.Server.Close()
}

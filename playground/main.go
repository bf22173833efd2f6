// Command playground is kubeplay's native host: it serves the core API server on
// a local address for kubectl and client libraries, optionally durable on disk,
// and the built playground. The API has no authentication, so the command
// refuses what web pages could send it behind the user's back (guard.go) and
// bounds what idle and slow clients can hold of it (limits.go).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"kubeplay/core/admission"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"

	"kubeplay/core/api"
	"kubeplay/core/auth"
	"kubeplay/core/budget"
	"kubeplay/core/registry"
	"kubeplay/core/requestlog"
	"kubeplay/core/sandbox"
	"kubeplay/core/sim"
	"kubeplay/core/storage"
	"kubeplay/core/xds"
	"kubeplay/core/xds/xdsgrpc"
	"kubeplay/internal/control"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "address to serve the API on")
	data := flag.String("data", "", "directory to persist the store in (fsync on every write); empty keeps it in memory")
	kubeconfigOut := flag.String("kubeconfig-out", "", "write a kubeconfig for this server to this file")
	logRequests := flag.String("log-requests", "clients", logRequestsHelp)
	quiet := flag.Bool("quiet", false, "print no request (--log-requests=none)")
	site := flag.String("site", "build/site", "directory of the built playground (served at /); empty serves only the API")
	cors := flag.String("cors-allowed-origins", "", "comma-separated origins whose pages may call the API (the playground's remote target), e.g. http://localhost:5173; * for every origin, without credentials")
	allowedHosts := flag.String("allowed-hosts", "", "comma-separated host names that may name this server in requests besides localhost, IP literals and --listen's host (a guard against DNS rebinding), e.g. laptop.lan")
	tokenFile := flag.String("token-file", "", "bearer tokens in kube-apiserver's --token-file format (token,user,uid,\"group1,group2\"); default: the sandbox's own table (see README)")
	authzMode := flag.String("authorization-mode", auth.ModeRBAC, "who may do what (kube-apiserver's flag): RBAC (kube's bootstrap policy and the roles and bindings you store; the sandbox's user, kubernetes-admin, is a cluster-admin) or AlwaysAllow")
	anonymousAuth := flag.Bool("anonymous-auth", true, "serve requests without a bearer token as system:anonymous (kube-apiserver's flag); with --token-file it is false unless given (kube-apiserver turns it off under its AlwaysAllow authorizer): requests without a token are then 401")
	maxInflight := flag.Int("max-requests-inflight", sandbox.DefaultSeats*2/3, "with --max-mutating-requests-inflight, the seats API Priority and Fairness shares among priority levels (kube-apiserver's flags; their sum is the server's concurrency limit)")
	xdsListen := flag.String("xds-listen", "", "address to serve the xDS discovery service on over gRPC (ADS, LDS, RDS, CDS, EDS, SDS), e.g. 127.0.0.1:18000; empty: none (REST-JSON polling and the playground's stream are served on --listen always)")
	maxMutating := flag.Int("max-mutating-requests-inflight", sandbox.DefaultSeats/3, "see --max-requests-inflight")
	cluster := flag.String("cluster", "simulated", "what serves besides the API: simulated (nodes, kubelets, scheduler and controllers, as a kind cluster's) or api-only")
	nodes := flag.Int("nodes", sim.DefaultNodes, "the simulated cluster's node count, its control plane included")
	speed := flag.Float64("sim-speed", 1, "how much faster than real time the simulated cluster runs (image pulls, container run times, back-offs)")
	useTLS := flag.Bool("tls", false, "serve HTTPS (HTTP/2) with a certificate of this server's own CA, which every kubeconfig it writes embeds, so kubectl verifies it and sends its token; on by default when --listen reaches beyond this machine")
	tlsDir := flag.String("tls-dir", "", "where the CA and the serving certificate are kept (default: DIR/tls with --data, else the user's configuration directory's kubeplay/tls)")
	tlsCert := flag.String("tls-cert", "", "serve this certificate (PEM, its chain after it) instead of one of the kept CA's; with --tls-key")
	tlsKey := flag.String("tls-key", "", "the private key of --tls-cert (PEM)")
	eventTTL := flag.Duration("event-ttl", registry.DefaultEventTTL, "how long an Event lives after its last write (kube-apiserver's --event-ttl)")
	importFile := flag.String("import", "", "start from a kubeplay export (a .kubeplay file, as GET /debug/kubeplay/export of any host writes it): its objects with their uids, resourceVersions and managedFields, its revision, and its cluster kind unless --cluster is given; with --data, only into a directory that holds no sandbox yet")
	instructorTokenFile := flag.String("instructor-token-file", "", "run a workshop (many sandboxes, one per attendee, made at /workshops) for the instructor token in this file; the environment variable "+instructorTokenEnv+" gives it too")
	w := workshopOptions{maxSandboxes: 100, idle: 2 * time.Minute}
	flag.IntVar(&w.maxSandboxes, "max-sandboxes", w.maxSandboxes, "in a workshop, the attendees' sandboxes the server holds at most; a workshop past it is refused")
	flag.DurationVar(&w.idle, "sandbox-idle", w.idle, "in a workshop, how long a sandbox runs unused before it is unloaded (its objects kept: the next request starts it again)")
	b := budget.Native
	flag.Int64Var(&b.Objects, "budget-objects", b.Objects, "objects the sandbox may store at once (0: no limit); past it a create is 403 exceeded quota")
	flag.Int64Var(&b.Bytes, "budget-bytes", b.Bytes, "bytes of objects the sandbox may store (0: no limit)")
	flag.Int64Var(&b.Pods, "budget-pods", b.Pods, "Pods that may exist at once (0: no limit)")
	flag.Int64Var(&b.Watches, "budget-watches", b.Watches, "watches open at once, the sandbox's own controllers' included (0: no limit)")
	l := defaultLimits
	flag.DurationVar(&l.requestTimeout, "request-timeout", l.requestTimeout, "how long a client may take to send a request's body, as kube-apiserver's --request-timeout (watches have none and are not cut)")
	flag.IntVar(&l.maxConnections, "max-connections", l.maxConnections, "open connections at most, the API's and --xds-listen's together; past it the connection idle longest is closed (keep it below the open-file limit)")
	flag.Int64Var(&b.XDSStreams, "xds-max-streams", b.XDSStreams, "xDS streams open at once at most, over gRPC and HTTP; past it a new one is refused (gRPC ResourceExhausted, HTTP 403) (0: no limit)")
	flag.Int64Var(&b.XDSNames, "xds-max-names", b.XDSNames, "resource names one xDS stream may subscribe to at most, over its types and requests; past it the request is refused (gRPC ResourceExhausted, HTTP 403) (0: no limit)")
	flag.Parse()
	if *authzMode != auth.ModeRBAC && *authzMode != auth.ModeAlwaysAllow {
		fmt.Fprintf(os.Stderr, "playground: --authorization-mode is %s or %s\n", auth.ModeRBAC, auth.ModeAlwaysAllow)
		os.Exit(2)
	}
	if *cluster != "simulated" && *cluster != "api-only" {
		fmt.Fprintln(os.Stderr, "playground: --cluster is simulated or api-only")
		os.Exit(2)
	}
	if *quiet {
		*logRequests = "none"
	}
	printed, err := requestMatch(*logRequests)
	if err != nil {
		fmt.Fprintln(os.Stderr, "playground:", err)
		os.Exit(2)
	}
	o := options{listen: *listen, data: *data, kubeconfigOut: *kubeconfigOut, logRequests: printed, site: *site, cors: *cors,
		allowedHosts: *allowedHosts, tokenFile: *tokenFile, authorization: *authzMode, seats: *maxInflight + *maxMutating, limits: l, xdsListen: *xdsListen,
		apiOnly: *cluster == "api-only", cluster: sim.Config{Nodes: *nodes, Speed: *speed}, eventTTL: *eventTTL, budget: b, importFile: *importFile}
	o.tls = tlsOptions{on: !loopback(*listen) || *tlsCert != "", dir: *tlsDir, certFile: *tlsCert, keyFile: *tlsKey}
	flag.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "anonymous-auth":
			o.anonymousAuth = anonymousAuth
		case "tls":
			o.tls.on = *useTLS
		case "cluster", "nodes":
			o.clusterGiven = true
		}
	})
	if o.workshop, err = readWorkshopOptions(w, *instructorTokenFile); err != nil {
		fmt.Fprintln(os.Stderr, "playground:", err)
		os.Exit(2)
	}
	if o.tls.dir == "" {
		o.tls.dir = defaultTLSDir(*data)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "playground:", err)
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	listen, data, kubeconfigOut, site string
	xdsListen                         string
	cors, allowedHosts                string // comma-separated
	tokenFile                         string
	authorization                     string // --authorization-mode
	anonymousAuth                     *bool  // --anonymous-auth when given
	eventTTL                          time.Duration
	budget                            budget.Limits
	seats                             int
	logRequests                       func(requestlog.Entry) bool // which requests to print; nil: none
	tls                               tlsOptions
	limits                            limits
	apiOnly                           bool       // no simulated cluster
	cluster                           sim.Config // the simulated cluster's nodes and speed
	clusterGiven                      bool       // --cluster or --nodes given (over an import's)
	importFile                        string     // --import: an export to start from
	workshop                          workshopOptions
}

// run serves until SIGINT or SIGTERM.
func run(o options) error {
	s, err := start(o)
	if err != nil {
		return err
	}
	log.Printf("kubeplay API at %s (store: %s)", s.url, storeName(o.data))
	if s.xdsAddr != "" {
		log.Printf("xDS over gRPC at %s", s.xdsAddr)
	}
	if s.fleet != nil {
		for _, u := range reachableURLs(s.url) {
			log.Printf("workshop: the instructor page is %s/instructor (it asks for the instructor token)", u)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	select {
	case err := <-s.errc:
		s.stopXDS()
		s.api.Close()
		return err
	case <-ctx.Done():
	}
	log.Printf("shutting down")
	return s.shutdown()
}

// server is a running playground: the core behind an HTTP server on a listener.
type server struct {
	url   string
	api   *core // the server's own sandbox
	http  *http.Server
	conns *connLimiter // the budget of open connections, the API's and gRPC's
	errc  chan error   // what Serve returned

	xdsAddr string       // where gRPC is served, when it is
	xds     *grpc.Server // nil without --xds-listen
	stopXDS func()       // ends the discovery service
	stopLog func()       // ends the terminal's request log; nil without one
	caPEM   []byte       // the CA a kubeconfig embeds, when serving TLS
	fleet   *fleet       // the workshop's sandboxes; nil without an instructor token
}

// start opens the store, listens and serves in the background.
func start(o options) (*server, error) {
	cfg := sandboxConfig(o)
	cfg.APIOnly, cfg.Cluster, cfg.DenyAnonymous = o.apiOnly, o.cluster, o.tokenFile != ""
	// kubectl sends no token over plain HTTP: on a plain-HTTP loopback
	// listener, which only this machine reaches, a request without one is
	// the sandbox's own user, kubernetes-admin. With a token file, TLS (where
	// kubectl sends the kubeconfig's token), or listening beyond this
	// machine, kube's rules apply (system:anonymous, or 401).
	if o.tokenFile == "" && loopback(o.listen) && !o.tls.on {
		admin := auth.Admin()
		cfg.Tokenless = &admin
	}
	if o.anonymousAuth != nil {
		cfg.DenyAnonymous = !*o.anonymousAuth
	}
	if o.workshop.instructorToken != "" && o.tokenFile == "" {
		// The server's own sandbox is the instructor's: the attendees know
		// the default table's tokens.
		cfg.Tokens = auth.Tokens{o.workshop.instructorToken: auth.Admin()}
	}
	if o.tokenFile != "" {
		f, err := os.Open(o.tokenFile)
		if err != nil {
			return nil, err
		}
		cfg.Tokens, err = auth.ParseTokens(o.tokenFile, f)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	if o.data != "" {
		p, err := storage.OpenFilePersister(o.data)
		if err != nil {
			return nil, err
		}
		cfg.Storage.Persister = p
	}
	if o.importFile != "" {
		if err := importExport(&cfg, o); err != nil {
			if cfg.Storage.Persister != nil {
				cfg.Storage.Persister.Close()
			}
			return nil, fmt.Errorf("--import %s: %w", o.importFile, err)
		}
	}
	// A sandbox of the --data directory holds what earlier runs wrote: an
	// import then needs ?replace=true, as over what clients wrote since.
	heldBefore := false
	if p, ok := cfg.Storage.Persister.(*storage.FilePersister); ok && o.importFile == "" {
		empty, err := p.Empty()
		heldBefore = err != nil || !empty
	}
	first, err := sandbox.New(cfg)
	if err != nil {
		if cfg.Storage.Persister != nil {
			cfg.Storage.Persister.Close() // and with it the data directory's lock
		}
		if gap := (*storage.GapError)(nil); errors.As(err, &gap) {
			err = fmt.Errorf("--data %s: %w", o.data, err)
		}
		return nil, err
	}
	for _, e := range first.Storage().RestoreErrors() {
		log.Printf("restore: %v", e)
	}
	// A sandbox an import starts keeps the same request log.
	cfg.Requests = first.Requests
	api := &core{o: o, cfg: cfg, api: first}
	api.written.Store(heldBefore || o.importFile != "")
	// The discovery service is a client of the API, as control planes are.
	xs, stopXDS := xds.Start(api.inProcess(), xds.Config{Logf: log.Printf, Limits: xds.Limits{Streams: int(o.budget.XDSStreams), Names: int(o.budget.XDSNames)}})
	var sv *serving
	if o.tls.on {
		if sv, err = loadTLS(o.tls, servingNames(o.listen, strings.Split(o.allowedHosts, ",")), time.Now()); err != nil {
			stopXDS()
			api.Close()
			return nil, err
		}
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		stopXDS()
		api.Close()
		return nil, err
	}
	conns := o.limits.connections()
	s := &server{url: "http://" + ln.Addr().String(), api: api, conns: conns, errc: make(chan error, 1), stopXDS: stopXDS}
	if sv != nil {
		s.url, s.caPEM = "https://"+ln.Addr().String(), sv.caPEM
	}
	if o.xdsListen != "" {
		xln, err := net.Listen("tcp", o.xdsListen)
		if err != nil {
			ln.Close()
			stopXDS()
			api.Close()
			return nil, err
		}
		g, gln := o.limits.grpcServer(func(opts ...grpc.ServerOption) *grpc.Server { return xdsgrpc.NewServer(xs, opts...) }, xln, conns)
		s.xdsAddr, s.xds = xln.Addr().String(), g
		go func() { _ = g.Serve(gln) }()
	}
	var ctl http.Handler
	if o.workshop.instructorToken != "" {
		if s.fleet, err = newFleet(o, o.logRequests); err == nil {
			ctl = &control.Handler{Fleet: s.fleet, InstructorToken: func() string { return o.workshop.instructorToken }, CA: s.caPEM,
				MaxAttendees: o.workshop.maxSandboxes}
		}
	}
	if err == nil && o.kubeconfigOut != "" {
		token := "kubeplay"
		if o.workshop.instructorToken != "" && o.tokenFile == "" {
			token = o.workshop.instructorToken
		}
		err = os.WriteFile(o.kubeconfigOut, []byte(control.Kubeconfig("kubeplay", localURL(s.url), token, s.caPEM)), 0o600)
	}
	if err != nil {
		if s.fleet != nil {
			s.fleet.close()
		}
		ln.Close()
		if s.xds != nil {
			s.xds.Stop()
		}
		stopXDS()
		api.Close()
		return nil, err
	}
	if o.logRequests != nil {
		stop := make(chan struct{})
		s.stopLog = func() { close(stop) }
		go printRequests(first.Requests, o.logRequests, stop)
	}
	s.http = o.limits.httpServer(newHandler(withXDS(api, xs), ctl, o), conns)
	if sv != nil {
		s.http.TLSConfig = sv.config
		go func() { s.errc <- s.http.ServeTLS(ln, "", "") }()
		return s, nil
	}
	go func() { s.errc <- s.http.Serve(ln) }()
	return s, nil
}

// sandboxConfig is what every sandbox of the command shares: its kinds,
// webhooks, budgets, APF seats, authorization mode, Events' time to live.
func sandboxConfig(o options) sandbox.Config {
	return sandbox.Config{Seats: o.seats, Authorization: o.authorization, Resources: api.XDS(xds.Validate), Webhooks: admission.HTTP,
		EventTTL: o.eventTTL, Budget: o.budget}
}

// shutdown stops serving and closes the store. Watches never finish on their
// own: they end with the store after a grace.
func (s *server) shutdown() error {
	defer s.api.Close()
	defer s.stopXDS()
	if s.fleet != nil {
		defer s.fleet.close()
	}
	if s.stopLog != nil {
		defer s.stopLog()
	}
	if s.xds != nil {
		s.xds.Stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.http.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

func storeName(data string) string {
	if data == "" {
		return "in memory"
	}
	return data
}

// localURL is serverURL as this machine reaches it: a server listening on
// every address (0.0.0.0, ::) is reached at 127.0.0.1, which its
// certificate names.
func localURL(serverURL string) string {
	scheme, hostport, _ := strings.Cut(serverURL, "://")
	if host, port, err := net.SplitHostPort(hostport); err == nil && net.ParseIP(host).IsUnspecified() {
		return scheme + "://" + net.JoinHostPort("127.0.0.1", port)
	}
	return serverURL
}

// loopback says whether the address to listen on is this machine's alone
// (localhost, 127.0.0.0/8, ::1).
func loopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Package aggregator owns what kube-apiserver's aggregator says of the
// group versions it serves itself: an APIService for each (apiregistration
// .k8s.io/v1), registered as kube's autoregistration does, with kube's
// priorities: one for every built-in group version when the server starts
// (labelled kube-aggregator.kubernetes.io/automanaged=onstart, made again if
// deleted) and one for every served version of every
// CustomResourceDefinition while it exists (automanaged=true). They are
// local, so available at once (the kind's strategy, core/kinds), and kept
// so; one that names a Service is judged as kube's availability controller
// judges it: its Service, the port, the endpoints, and (no server behind
// them answering here) the discovery check that fails, unless the sandbox
// runs the API server behind it in-process (a Backend: the simulated
// metrics-server), whose resources are served while its APIService exists,
// and which passes the check. The controllers are clients of the API, as
// kube's run on a loopback client.
package aggregator

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"sort"

	"kubeplay/core/api"
	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/object"
	"kubeplay/core/user"
	"kubeplay/core/version"
	"kubeplay/core/web"
)

// priority is an APIService's group priority minimum and version priority.
type priority struct{ group, version int64 }

// builtinPriorities are kube-apiserver 1.32.13's (recorded from it) for the
// group versions it serves; a group version without one gets no APIService.
var builtinPriorities = map[string]priority{
	"v1":                              {18000, 1},
	"apps/v1":                         {17800, 15},
	"events.k8s.io/v1":                {17750, 15},
	"authentication.k8s.io/v1":        {17700, 15},
	"authorization.k8s.io/v1":         {17600, 15},
	"autoscaling/v1":                  {17500, 15},
	"autoscaling/v2":                  {17500, 30},
	"batch/v1":                        {17400, 15},
	"certificates.k8s.io/v1":          {17300, 15},
	"networking.k8s.io/v1":            {17200, 15},
	"policy/v1":                       {17100, 15},
	"rbac.authorization.k8s.io/v1":    {17000, 15},
	"storage.k8s.io/v1":               {16800, 15},
	"apiextensions.k8s.io/v1":         {16700, 15},
	"admissionregistration.k8s.io/v1": {16700, 15},
	"scheduling.k8s.io/v1":            {16600, 15},
	"coordination.k8s.io/v1":          {16500, 15},
	"node.k8s.io/v1":                  {16300, 15},
	"discovery.k8s.io/v1":             {16200, 15},
	"flowcontrol.apiserver.k8s.io/v1": {16100, 21},
}

// customPriority is every custom resource version's, as kube's CRD
// registration gives it.
var customPriority = priority{1000, 100}

const (
	managedLabel = "kube-aggregator.kubernetes.io/automanaged"
	apiServices  = "/apis/apiregistration.k8s.io/v1/apiservices"
	definitions  = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
)

// AutoRegistration keeps the local APIServices.
type AutoRegistration struct {
	c        *client.Client
	clock    clock.Clock
	builtins []api.GroupVersion
	kinds    *api.Registry
	backends map[string]Backend
	running  map[string]context.CancelFunc // the backends serving, by APIService
}

// Backend is an aggregated API server the sandbox runs in-process, by the
// name of the APIService that makes kube-apiserver proxy to it.
type Backend interface {
	// Resources are what it serves, each with Remote set.
	Resources() []*api.Resource
	// Run serves until ctx is done.
	Run(ctx context.Context)
}

// New registers the built-in group versions kinds serves (those of custom
// resources aside), acting through h as kube-apiserver, and serves each of
// backends while its APIService exists.
func New(h web.Handler, kinds *api.Registry, clk clock.Clock, backends map[string]Backend) *AutoRegistration {
	var builtins []api.GroupVersion
	for _, gv := range kinds.GroupVersions() {
		custom := false
		for _, r := range kinds.Resources(gv) {
			custom = custom || r.Custom != nil
		}
		if _, ok := builtinPriorities[apiVersion(gv.Group, gv.Version)]; ok && !custom {
			builtins = append(builtins, gv)
		}
	}
	return &AutoRegistration{c: client.New(h, user.APIServer, "kube-apiserver/"+version.Kubernetes+" (kubeplay) autoregister"), clock: clk, builtins: builtins,
		kinds: kinds, backends: backends, running: map[string]context.CancelFunc{}}
}

func apiVersion(group, v string) string {
	if group == "" {
		return v
	}
	return group + "/" + v
}

// Run works until ctx is done.
func (a *AutoRegistration) Run(ctx context.Context) {
	wake := make(chan struct{}, 1)
	poke := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	h := client.Handler{Add: func(object.Object) { poke() }, Update: func(_, _ object.Object) { poke() }, Delete: func(object.Object) { poke() }}
	crds := client.NewInformer(a.c, definitions, h, nil, a.clock)
	services := client.NewInformer(a.c, apiServices, h, nil, a.clock)
	svcs := client.NewInformer(a.c, "/api/v1/services", h, nil, a.clock)
	endpoints := client.NewInformer(a.c, "/api/v1/endpoints", h, nil, a.clock)
	informers := []*client.Informer{crds, services, svcs, endpoints}
	for _, inf := range informers {
		go inf.Run(ctx)
	}
	for _, inf := range informers {
		select {
		case <-ctx.Done():
			return
		case <-inf.Synced():
		}
	}
	poke()
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
		}
		a.sync(ctx, crds.List(), services.List())
		a.serve(ctx, services.List())
		for _, s := range services.List() {
			a.judge(ctx, s, svcs, endpoints)
		}
	}
}

// judge writes s's Available condition when it is not what kube's
// availability controllers would say: a local APIService is available; a
// Service's is not (no Service, no such port, no endpoints, or no server
// behind them to answer the discovery check).
func (a *AutoRegistration) judge(ctx context.Context, s object.Object, svcs, endpoints *client.Informer) {
	status, reason, message := "True", "Local", "Local APIServices are always available"
	if ref, ok := object.Path(s, "spec", "service").(map[string]any); ok {
		status, reason, message = available(s, ref, svcs, endpoints)
		if a.running[object.MetaString(s, "name")] != nil {
			status, reason, message = "True", "Passed", "all checks passed"
		}
	}
	conds := object.Objects(object.Child(s, "status"), "conditions")
	var cur map[string]any
	for _, c := range conds {
		if c["type"] == "Available" {
			cur = c
		}
	}
	if cur != nil && cur["status"] == status && cur["reason"] == reason && cur["message"] == message {
		return
	}
	cond := map[string]any{"type": "Available", "status": status, "reason": reason, "message": message,
		"lastTransitionTime": object.Timestamp(a.clock.Now())}
	if cur != nil && cur["status"] == status {
		cond["lastTransitionTime"] = cur["lastTransitionTime"] // kube keeps the time while the status holds
	}
	var out []any
	for _, c := range conds {
		if c["type"] != "Available" {
			out = append(out, c)
		}
	}
	out = append(out, cond)
	updated := maps.Clone(s)
	updated["status"] = map[string]any{"conditions": out}
	body, err := json.Marshal(updated)
	if err != nil {
		return
	}
	_, _ = a.c.Do(ctx, web.MethodPut, apiServices+"/"+url.PathEscape(object.MetaString(s, "name"))+"/status", "application/json", body)
}

// serve starts the backends whose APIService (naming a Service) exists, and
// serves their resources; it stops those whose APIService is gone.
func (a *AutoRegistration) serve(ctx context.Context, have []object.Object) {
	present := map[string]bool{}
	for _, s := range have {
		if _, remote := object.Path(s, "spec", "service").(map[string]any); remote {
			present[object.MetaString(s, "name")] = true
		}
	}
	for name, b := range a.backends {
		cancel, running := a.running[name]
		switch {
		case present[name] && !running:
			bctx, cancel := context.WithCancel(ctx)
			a.running[name] = cancel
			go b.Run(bctx)
			for _, r := range b.Resources() {
				a.kinds.Add(r)
			}
		case !present[name] && running:
			cancel()
			delete(a.running, name)
			for _, r := range b.Resources() {
				a.kinds.Remove(r.Group, r.Version, r.Plural)
			}
		}
	}
}

// available is kube's remote availability check of an APIService served
// by the Service ref names.
func available(s object.Object, ref map[string]any, svcs, endpoints *client.Informer) (status, reason, message string) {
	ns, name := object.String(ref["namespace"]), object.String(ref["name"])
	port := int64(443)
	if ref["port"] != nil {
		port = object.Int(ref["port"])
	}
	svc, ok := svcs.Get(ns + "/" + name)
	if !ok {
		return "False", "ServiceNotFound", fmt.Sprintf("service/%s in %q is not present", name, ns)
	}
	spec := object.Child(svc, "spec")
	if t := object.String(spec["type"]); t == "" || t == "ClusterIP" {
		portName, found := "", false
		for _, p := range object.Objects(spec, "ports") {
			if object.Int(p["port"]) == port {
				found, portName = true, object.String(p["name"])
				break
			}
		}
		if !found {
			return "False", "ServicePortError", fmt.Sprintf("service/%s in %q is not listening on port %d", name, ns, port)
		}
		ep, ok := endpoints.Get(ns + "/" + name)
		if !ok {
			return "False", "EndpointsNotFound", fmt.Sprintf("cannot find endpoints for service/%s in %q", name, ns)
		}
		if !hasAddressOn(ep, portName) {
			return "False", "MissingEndpoints", fmt.Sprintf("endpoints for service/%s in %q have no addresses with port name %q", name, ns, portName)
		}
	}
	// The discovery check goes where kube-apiserver's service resolver sends
	// it (the Service's cluster IP, or its external name), and nothing here
	// answers it: no process runs behind a simulated Pod.
	host := object.String(spec["clusterIP"])
	if object.String(spec["type"]) == "ExternalName" {
		host = object.String(spec["externalName"])
	}
	address := fmt.Sprintf("%s:%d", host, port)
	u := "https://" + address + "/apis/" + object.String(object.Path(s, "spec", "group")) + "/" + object.String(object.Path(s, "spec", "version"))
	return "False", "FailedDiscoveryCheck", fmt.Sprintf("failing or missing response from %s: Get %q: dial tcp %s: connect: connection refused", u, u, address)
}

// hasAddressOn says whether Endpoints ep has an address serving the port
// named portName, as kube's availability check asks.
func hasAddressOn(ep object.Object, portName string) bool {
	for _, subset := range object.Objects(ep, "subsets") {
		if len(object.Objects(subset, "addresses")) == 0 {
			continue
		}
		for _, p := range object.Objects(subset, "ports") {
			if object.String(p["name"]) == portName {
				return true
			}
		}
	}
	return false
}

// wanted is one APIService the server should have.
type wanted struct {
	group, version, managed string
	priority
}

// sync creates the APIServices wanted and missing, and deletes those of
// custom resource versions no longer served. A failure is retried at the
// next change.
func (a *AutoRegistration) sync(ctx context.Context, crds, have []object.Object) {
	want := map[string]wanted{}
	for _, gv := range a.builtins {
		want[gv.Version+"."+gv.Group] = wanted{gv.Group, gv.Version, "onstart", builtinPriorities[apiVersion(gv.Group, gv.Version)]}
	}
	for _, crd := range crds {
		group := object.String(object.Path(crd, "spec", "group"))
		for _, v := range object.Objects(object.Child(crd, "spec"), "versions") {
			if v["served"] == true {
				name := object.String(v["name"])
				if _, builtin := want[name+"."+group]; !builtin {
					want[name+"."+group] = wanted{group, name, "true", customPriority}
				}
			}
		}
	}
	existing := map[string]object.Object{}
	for _, s := range have {
		existing[object.MetaString(s, "name")] = s
	}
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, ok := existing[name]; ok {
			continue
		}
		w := want[name]
		body, err := json.Marshal(map[string]any{"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
			"metadata": map[string]any{"name": name, "labels": map[string]any{managedLabel: w.managed}},
			"spec":     map[string]any{"group": w.group, "version": w.version, "groupPriorityMinimum": w.priority.group, "versionPriority": w.priority.version}})
		if err != nil {
			continue
		}
		_, _ = a.c.Do(ctx, web.MethodPost, apiServices, "application/json", body)
	}
	for name, s := range existing {
		if _, ok := want[name]; !ok && object.Labels(s)[managedLabel] == "true" {
			_, _ = a.c.Do(ctx, web.MethodDelete, apiServices+"/"+url.PathEscape(name), "", nil)
		}
	}
}

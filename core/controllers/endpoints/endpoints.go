// Package endpoints is kube-controller-manager's EndpointSlice controller
// (system:serviceaccount:kube-system:endpointslice-controller), Endpoints
// controller (...:endpoint-controller) and EndpointSlice mirroring controller
// (...:endpointslicemirroring-controller) as API clients of the core: for
// every Service with a selector the first two publish the addresses of the
// Pods it selects, with their readiness, as discovery.k8s.io/v1
// EndpointSlices (owned by the Service, named after it, at most 100
// endpoints each, terminating Pods marked so) and as the core/v1 Endpoints of
// the Service's name (ready and not-ready addresses, by port); for a Service
// without a selector, the third mirrors the Endpoints someone wrote for it
// into EndpointSlices. They read Services, Pods and Endpoints through shared
// informers, as kube-controller-manager shares its informers.
package endpoints

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/user"
	"kubeplay/core/web"
)

type (
	service = controllers.Service
	pod     = controllers.Pod
)

// shared is the Service, Pod and Endpoints informers the controllers read.
type shared struct {
	services  *client.TypedInformer[*service]
	pods      *client.TypedInformer[*pod]
	endpoints *client.TypedInformer[*endpointsObject]
	queues    []*controllers.Queue // those of the Pods' Services
}

// Controllers are the three controllers.
type Controllers struct {
	*shared
	slices    *sliceController
	endpoints *endpointsController
	mirror    *mirrorController
}

// New is the three controllers, acting through h.
func New(h web.Handler, clk clock.Clock) *Controllers {
	// The informers are kube-controller-manager's own, as its shared ones are.
	c := client.New(h, user.User{Name: "system:kube-controller-manager", Groups: []string{user.AllAuthenticated}}, controllers.UserAgent+" shared-informers")
	s := &shared{}
	cs := &Controllers{shared: s, slices: newSliceController(h, clk, s), endpoints: newEndpointsController(h, clk, s), mirror: newMirrorController(h, clk, s)}
	s.queues = []*controllers.Queue{cs.slices.queue, cs.endpoints.queue}
	enqueue := func(svc *service) {
		for _, q := range s.queues {
			q.Add(svc.Metadata.Key())
		}
	}
	s.services = client.NewTypedInformer(c, "/api/v1/services", controllers.Codec[service](), client.TypedHandler[*service]{
		Add:    func(svc *service) { enqueue(svc); cs.mirror.serviceChanged(nil, svc) },
		Update: func(old, svc *service) { enqueue(svc); cs.mirror.serviceChanged(old, svc) },
		Delete: func(svc *service) { enqueue(svc); cs.mirror.serviceChanged(nil, svc) },
	}, map[string]func(*service) []string{"namespace": func(svc *service) []string { return []string{svc.Metadata.Namespace} }}, clk)
	s.endpoints = client.NewTypedInformer(c, "/api/v1/endpoints", controllers.Codec[endpointsObject](), client.TypedHandler[*endpointsObject]{
		Add: func(ep *endpointsObject) {
			cs.endpoints.written(ep)
			cs.mirror.endpointsChanged(nil, ep)
		},
		Update: func(old, ep *endpointsObject) {
			cs.endpoints.written(ep)
			cs.mirror.endpointsChanged(old, ep)
		},
		Delete: func(ep *endpointsObject) {
			cs.endpoints.queue.Add(ep.Metadata.Key())
			cs.mirror.endpointsChanged(nil, ep)
		},
	}, nil, clk)
	selecting := func(p *pod) {
		for _, svc := range s.services.ByIndex("namespace", p.Metadata.Namespace) {
			if selects(svc, p) {
				enqueue(svc)
			}
		}
	}
	s.pods = client.NewTypedInformer(c, "/api/v1/pods", controllers.Codec[pod](),
		client.TypedHandler[*pod]{Add: selecting, Update: func(old, cur *pod) { selecting(old); selecting(cur) }, Delete: selecting},
		map[string]func(*pod) []string{"namespace": func(p *pod) []string { return []string{p.Metadata.Namespace} }}, clk)
	return cs
}

// Run works until ctx is done.
func (cs *Controllers) Run(ctx context.Context) {
	go cs.services.Run(ctx)
	go cs.pods.Run(ctx)
	go cs.shared.endpoints.Run(ctx)
	go cs.slices.run(ctx)
	go cs.mirror.run(ctx)
	cs.endpoints.run(ctx)
}

// Pending is how many keys wait to be synced: none once all have settled.
func (cs *Controllers) Pending() int {
	return cs.slices.queue.Pending() + cs.endpoints.queue.Pending() + cs.mirror.queue.Pending()
}

// selects says whether a Service with a selector selects a Pod.
func selects(svc *service, p *pod) bool {
	if len(svc.Spec.Selector) == 0 {
		return false
	}
	for k, v := range svc.Spec.Selector {
		if got, ok := p.Metadata.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// selected are the Pods a Service selects that have an address and are not
// finished, by name.
func (s *shared) selected(svc *service) []*pod {
	var out []*pod
	for _, p := range s.pods.ByIndex("namespace", svc.Metadata.Namespace) {
		if selects(svc, p) && p.Status.PodIP != "" && p.Status.Phase != "Succeeded" && p.Status.Phase != "Failed" {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *pod) int { return strings.Compare(a.Metadata.Name, b.Metadata.Name) })
	return out
}

// port is a Service port as a Pod serves it.
type port struct {
	Name        string  `json:"name"`
	Port        int64   `json:"port"`
	Protocol    string  `json:"protocol"`
	AppProtocol *string `json:"appProtocol,omitempty"`
}

// ports are the Service's ports as Pod p serves them: a target port by
// number, or by the name of one of p's container ports (a port p does not
// name is left out).
func ports(svc *service, p *pod) []port {
	var out []port
	for _, sp := range svc.Spec.Ports {
		target, err := strconv.ParseInt(string(sp.TargetPort), 10, 64)
		if err != nil {
			var name string
			_ = json.Unmarshal(sp.TargetPort, &name)
			target = 0
			for _, c := range p.Spec.Containers {
				for _, cp := range c.Ports {
					if cp.Name == name && (cp.Protocol == sp.Protocol || cp.Protocol == "" && sp.Protocol == "TCP") {
						target = cp.ContainerPort
					}
				}
			}
			if target == 0 {
				continue
			}
		}
		out = append(out, port{Name: sp.Name, Port: target, Protocol: sp.Protocol, AppProtocol: sp.AppProtocol})
	}
	return out
}

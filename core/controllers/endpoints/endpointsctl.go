package endpoints

import (
	"cmp"
	"context"
	"maps"
	"slices"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/web"
)

// endpointsObject is core/v1 Endpoints.
type endpointsObject struct {
	controllers.Object
	Subsets []subset `json:"subsets,omitempty"`
}

// subset is an EndpointSubset: addresses that serve the same ports.
type subset struct {
	Addresses         []address `json:"addresses,omitempty"`
	NotReadyAddresses []address `json:"notReadyAddresses,omitempty"`
	Ports             []port    `json:"ports,omitempty"`
}

// address is an EndpointAddress.
type address struct {
	IP        string     `json:"ip"`
	Hostname  string     `json:"hostname,omitempty"`
	NodeName  string     `json:"nodeName,omitempty"`
	TargetRef *targetRef `json:"targetRef,omitempty"`
}

// endpointsController is the Endpoints controller. Only a deletion of
// Endpoints is news to it (its Service's may have to come back), and its own
// writes it waits for: Endpoints written by others are left as they are
// until their Service or its Pods change, as kube's controller leaves them.
type endpointsController struct {
	*shared
	c      *client.Client
	queue  *controllers.Queue
	expect *controllers.Expectations
}

func newEndpointsController(h web.Handler, clk clock.Clock, s *shared) *endpointsController {
	return &endpointsController{shared: s, c: controllers.NewClient(h, "endpoint-controller"),
		queue: controllers.NewQueue(clk), expect: controllers.NewExpectations()}
}

func (ec *endpointsController) run(ctx context.Context) {
	if controllers.Synced(ctx, ec.services, ec.pods, ec.endpoints) {
		ec.leftovers()
		ec.queue.Run(ctx, ec.sync)
	}
}

// written queues the key of Endpoints the controller waits to see its own
// write of (news of the Service or its Pods while it waited were put off).
func (ec *endpointsController) written(ep *endpointsObject) {
	if key := ep.Metadata.Key(); ec.expect.Waiting(key) {
		ec.queue.Add(key)
	}
}

// leaderAnnotation marks the Endpoints a leader election holds
// (resourcelock.LeaderElectionRecordAnnotationKey), which have no Service.
const leaderAnnotation = "control-plane.alpha.kubernetes.io/leader"

// leftovers queues every Endpoints found at start, so that those whose
// Service went while the controller was not running go too (kube's
// checkLeftoverEndpoints); a leader election's are not touched.
func (ec *endpointsController) leftovers() {
	for _, ep := range ec.endpoints.List() {
		if _, ok := ep.Metadata.Annotations[leaderAnnotation]; !ok {
			ec.queue.Add(ep.Metadata.Key())
		}
	}
}

// sync makes the Endpoints of the Service key list the Pods it selects, the
// ready ones apart from the others, as kube's endpoints controller does (a
// terminating Pod is left out, unless the Service publishes addresses that
// are not ready); a Service that is gone takes its Endpoints with it.
func (ec *endpointsController) sync(ctx context.Context, key string) error {
	if !ec.expect.Satisfied(key) {
		return nil
	}
	cur, exists := ec.endpoints.Get(key)
	svc, ok := ec.services.Get(key)
	if !ok {
		if exists {
			if _, err := ec.c.Delete(ctx, "/api/v1/namespaces/"+cur.Metadata.Namespace+"/endpoints/"+cur.Metadata.Name); err != nil && !client.IsNotFound(err) {
				return err
			}
		}
		return nil
	}
	if len(svc.Spec.Selector) == 0 || svc.Spec.Type == "ExternalName" { // an ExternalName Service has no endpoints
		return nil
	}
	var subsets []subset
	for _, p := range ec.selected(svc) {
		if p.Metadata.DeletionTimestamp != "" && !svc.Spec.PublishNotReadyAddresses {
			continue
		}
		a := address{IP: p.Status.PodIP, NodeName: p.Spec.NodeName,
			TargetRef: &targetRef{Kind: "Pod", Namespace: p.Metadata.Namespace, Name: p.Metadata.Name, UID: p.Metadata.UID}}
		ps := ports(svc, p)
		i := slices.IndexFunc(subsets, func(s subset) bool { return controllers.MustJSON(s.Ports) == controllers.MustJSON(ps) })
		if i < 0 {
			subsets = append(subsets, subset{Ports: ps})
			i = len(subsets) - 1
		}
		if p.Ready() || svc.Spec.PublishNotReadyAddresses {
			subsets[i].Addresses = append(subsets[i].Addresses, a)
		} else {
			subsets[i].NotReadyAddresses = append(subsets[i].NotReadyAddresses, a)
		}
	}
	byIP := func(a, b address) int {
		return cmp.Or(cmp.Compare(a.IP, b.IP), cmp.Compare(a.TargetRef.UID, b.TargetRef.UID))
	}
	for i := range subsets {
		slices.SortFunc(subsets[i].Addresses, byIP)
		slices.SortFunc(subsets[i].NotReadyAddresses, byIP)
	}
	labels := maps.Clone(svc.Metadata.Labels)
	if svc.Spec.ClusterIP == "None" {
		if labels == nil {
			labels = map[string]string{}
		}
		labels[headlessLabel] = ""
	}
	want := endpointsObject{Subsets: subsets}
	want.Metadata = controllers.ObjectMeta{Name: svc.Metadata.Name, Namespace: svc.Metadata.Namespace, Labels: labels}
	path := "/api/v1/namespaces/" + svc.Metadata.Namespace + "/endpoints"
	method := web.MethodPost
	if exists {
		if controllers.MustJSON(cur.Subsets) == controllers.MustJSON(want.Subsets) && maps.Equal(cur.Metadata.Labels, want.Metadata.Labels) {
			return nil
		}
		next := *cur
		next.Subsets, next.Metadata.Labels = want.Subsets, want.Metadata.Labels
		want, method, path = next, web.MethodPut, path+"/"+svc.Metadata.Name
	}
	data, err := controllers.Send(ctx, ec.c, method, path, &want)
	if client.IsConflict(err) || client.IsNotFound(err) {
		return nil // our informer is behind: it brings the key back
	}
	if err == nil {
		ec.expect.Written(key, ec.endpoints, controllers.Version(data))
	}
	return err
}

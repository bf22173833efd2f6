package endpoints

import (
	"context"
	"maps"
	"slices"
	"sort"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/web"
)

// The labels of the EndpointSlices this controller manages.
const (
	serviceNameLabel = "kubernetes.io/service-name"
	managedByLabel   = "endpointslice.kubernetes.io/managed-by"
	managedBy        = "endpointslice-controller.k8s.io"
	headlessLabel    = "service.kubernetes.io/headless"
	// maxEndpoints is --max-endpoints-per-slice's default.
	maxEndpoints = 100
)

// endpointSlice is discovery.k8s.io/v1 EndpointSlice.
type endpointSlice struct {
	controllers.Object
	AddressType string     `json:"addressType"`
	Endpoints   []endpoint `json:"endpoints"`
	Ports       []port     `json:"ports"`
}

// endpoint is an EndpointSlice's endpoint: one Pod.
type endpoint struct {
	Addresses  []string `json:"addresses"`
	Conditions struct {
		Ready       bool `json:"ready"`
		Serving     bool `json:"serving"`
		Terminating bool `json:"terminating"`
	} `json:"conditions"`
	NodeName  string     `json:"nodeName,omitempty"`
	TargetRef *targetRef `json:"targetRef,omitempty"`
}

// targetRef is an endpoint's reference to its Pod (an ObjectReference).
type targetRef struct {
	Kind            string `json:"kind,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	Name            string `json:"name,omitempty"`
	UID             string `json:"uid,omitempty"`
	APIVersion      string `json:"apiVersion,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	FieldPath       string `json:"fieldPath,omitempty"`
}

// sliceController is the EndpointSlice controller.
type sliceController struct {
	*shared
	c      *client.Client
	slices *client.TypedInformer[*endpointSlice]
	queue  *controllers.Queue
	expect *controllers.Expectations
}

func newSliceController(h web.Handler, clk clock.Clock, s *shared) *sliceController {
	sc := &sliceController{shared: s, c: controllers.NewClient(h, "endpointslice-controller"),
		queue: controllers.NewQueue(clk), expect: controllers.NewExpectations()}
	owner := func(es *endpointSlice) {
		if name := es.Metadata.Labels[serviceNameLabel]; name != "" {
			sc.queue.Add(es.Metadata.Namespace + "/" + name)
		}
	}
	sc.slices = client.NewTypedInformer(sc.c, "/apis/discovery.k8s.io/v1/endpointslices?labelSelector="+managedByLabel+"%3D"+managedBy,
		controllers.Codec[endpointSlice](),
		client.TypedHandler[*endpointSlice]{Add: func(es *endpointSlice) {
			if sc.expect.Waiting(es.Metadata.Namespace + "/" + es.Metadata.Labels[serviceNameLabel]) { // its own creation
				owner(es)
			}
		}, Update: func(_, es *endpointSlice) { owner(es) }, Delete: owner},
		map[string]func(*endpointSlice) []string{"service": func(es *endpointSlice) []string {
			return []string{es.Metadata.Namespace + "/" + es.Metadata.Labels[serviceNameLabel]}
		}}, clk)
	return sc
}

func (sc *sliceController) run(ctx context.Context) {
	go sc.slices.Run(ctx)
	if controllers.Synced(ctx, sc.services, sc.pods, sc.slices) {
		sc.queue.Run(ctx, sc.sync)
	}
}

// sync makes the Service key's EndpointSlices list the Pods it selects:
// one group of slices per way the Pods serve its ports, at most 100
// endpoints a slice; existing slices are updated in place, the rest created
// or deleted.
func (sc *sliceController) sync(ctx context.Context, key string) error {
	svc, ok := sc.services.Get(key)
	if !ok || len(svc.Spec.Selector) == 0 || svc.Spec.Type == "ExternalName" || !sc.expect.Satisfied(key) {
		return nil // a Service gone takes its slices (the garbage collector)
	}
	groups := map[string][]endpoint{}
	groupPorts := map[string][]port{}
	for _, p := range sc.selected(svc) {
		ps := ports(svc, p)
		g := portsKey(ps)
		groupPorts[g] = ps
		e := endpoint{Addresses: []string{p.Status.PodIP}, NodeName: p.Spec.NodeName,
			TargetRef: &targetRef{Kind: "Pod", Namespace: p.Metadata.Namespace, Name: p.Metadata.Name, UID: p.Metadata.UID}}
		terminating := p.Metadata.DeletionTimestamp != ""
		e.Conditions.Serving = p.Ready() || svc.Spec.PublishNotReadyAddresses
		e.Conditions.Ready = e.Conditions.Serving && !terminating
		e.Conditions.Terminating = terminating
		groups[g] = append(groups[g], e)
	}
	if len(groups) == 0 { // a Service with no endpoints still has its placeholder: no endpoints, no ports
		groups[""], groupPorts[""] = nil, nil
	}
	existing := sc.slices.ByIndex("service", key)
	var stale []*endpointSlice
	byGroup := map[string][]*endpointSlice{}
	for _, es := range existing {
		if g := portsKey(es.Ports); slices.Contains(slices.Collect(maps.Keys(groups)), g) {
			byGroup[g] = append(byGroup[g], es)
		} else {
			stale = append(stale, es)
		}
	}
	keys := slices.Sorted(maps.Keys(groups))
	for _, g := range keys {
		eps := groups[g]
		have := byGroup[g]
		sort.Slice(have, func(i, j int) bool { return have[i].Metadata.Name < have[j].Metadata.Name })
		for i := 0; i == 0 || i*maxEndpoints < len(eps); i++ {
			chunk := eps[i*maxEndpoints : min((i+1)*maxEndpoints, len(eps))]
			want := sc.slice(svc, groupPorts[g], chunk)
			if i < len(have) {
				if err := sc.update(ctx, key, have[i], want); err != nil {
					return err
				}
				continue
			}
			if len(stale) > 0 {
				// kube turns a create beside a delete into an update of the
				// slice it would delete (the placeholder, when the first
				// endpoint comes): watchers see it MODIFIED.
				reused := stale[0]
				stale = stale[1:]
				if err := sc.update(ctx, key, reused, want); err != nil {
					return err
				}
				continue
			}
			data, err := controllers.Send(ctx, sc.c, web.MethodPost, "/apis/discovery.k8s.io/v1/namespaces/"+svc.Metadata.Namespace+"/endpointslices", want)
			if err != nil {
				return err
			}
			sc.expect.Written(key, sc.slices, controllers.Version(data))
		}
		if n := max((len(eps)+maxEndpoints-1)/maxEndpoints, 1); n < len(have) {
			stale = append(stale, have[n:]...)
		}
	}
	for _, es := range stale {
		if _, err := sc.c.Delete(ctx, "/apis/discovery.k8s.io/v1/namespaces/"+es.Metadata.Namespace+"/endpointslices/"+es.Metadata.Name); err != nil && !client.IsNotFound(err) {
			return err
		}
		controllers.Deleted(sc.expect, key, sc.slices, es)
	}
	return nil
}

// portsKey groups the endpoints that serve the same ports ("": none, as a
// placeholder slice has, whether stored as null or []).
func portsKey(ps []port) string {
	if len(ps) == 0 {
		return ""
	}
	return controllers.MustJSON(ps)
}

// slice is a new EndpointSlice of svc's.
func (sc *sliceController) slice(svc *service, ps []port, eps []endpoint) *endpointSlice {
	es := &endpointSlice{AddressType: "IPv4", Endpoints: eps, Ports: ps}
	labels := maps.Clone(svc.Metadata.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[serviceNameLabel], labels[managedByLabel] = svc.Metadata.Name, managedBy
	if svc.Spec.ClusterIP == "None" {
		labels[headlessLabel] = ""
	}
	es.Metadata = controllers.ObjectMeta{GenerateName: svc.Metadata.Name + "-", Namespace: svc.Metadata.Namespace, Labels: labels,
		OwnerReferences: []controllers.OwnerReference{controllers.OwnerRef(&svc.Metadata, "v1", "Service")}}
	return es
}

// update writes want's content into the existing slice es, if it differs.
func (sc *sliceController) update(ctx context.Context, key string, es, want *endpointSlice) error {
	if controllers.MustJSON(es.Endpoints) == controllers.MustJSON(want.Endpoints) && portsKey(es.Ports) == portsKey(want.Ports) &&
		maps.Equal(es.Metadata.Labels, want.Metadata.Labels) {
		return nil
	}
	next := *es
	next.Endpoints, next.Ports, next.Metadata.Labels = want.Endpoints, want.Ports, want.Metadata.Labels
	data, err := controllers.Send(ctx, sc.c, web.MethodPut, "/apis/discovery.k8s.io/v1/namespaces/"+es.Metadata.Namespace+"/endpointslices/"+es.Metadata.Name, &next)
	if client.IsNotFound(err) {
		return nil
	}
	if err == nil {
		sc.expect.Written(key, sc.slices, controllers.Version(data))
	}
	return err
}

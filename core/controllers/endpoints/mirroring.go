package endpoints

import (
	"cmp"
	"context"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/web"
)

// What the mirroring controller marks, and what it leaves alone.
const (
	mirroredBy = "endpointslicemirroring-controller.k8s.io"
	// skipMirrorLabel set to "true" keeps an Endpoints from being mirrored.
	skipMirrorLabel = "endpointslice.kubernetes.io/skip-mirror"
	// maxMirrored is --mirroring-max-endpoints-per-subset's default: the
	// addresses of a subset mirrored, the ready first.
	maxMirrored = 1000
	// The annotations of Endpoints a mirrored slice does not copy.
	lastChangeTrigger = "endpoints.kubernetes.io/last-change-trigger-time"
	lastApplied       = "kubectl.kubernetes.io/last-applied-configuration"
)

// mirroredEndpoint is an endpoint mirrored from an Endpoints address: its
// readiness is all it says of its conditions.
type mirroredEndpoint struct {
	Addresses  []string `json:"addresses"`
	Conditions struct {
		Ready bool `json:"ready"`
	} `json:"conditions"`
	Hostname  string     `json:"hostname,omitempty"`
	NodeName  string     `json:"nodeName,omitempty"`
	TargetRef *targetRef `json:"targetRef,omitempty"`
}

// mirroredSlice is an EndpointSlice of the mirroring controller's.
type mirroredSlice struct {
	controllers.Object
	AddressType string             `json:"addressType"`
	Endpoints   []mirroredEndpoint `json:"endpoints"`
	Ports       []port             `json:"ports"`
}

// mirrorController is the EndpointSlice mirroring controller: the Endpoints
// of a Service without a selector (written by someone else, not skipped by
// the skip-mirror label, not a leader election's) are mirrored into
// EndpointSlices, one per address type and set of ports; when the Endpoints,
// the Service or its lack of a selector go, so do the slices.
type mirrorController struct {
	*shared
	c      *client.Client
	slices *client.TypedInformer[*mirroredSlice]
	queue  *controllers.Queue
	expect *controllers.Expectations
}

func newMirrorController(h web.Handler, clk clock.Clock, s *shared) *mirrorController {
	mc := &mirrorController{shared: s, c: controllers.NewClient(h, "endpointslicemirroring-controller"),
		queue: controllers.NewQueue(clk), expect: controllers.NewExpectations()}
	owner := func(es *mirroredSlice) {
		if name := es.Metadata.Labels[serviceNameLabel]; name != "" {
			mc.queue.Add(es.Metadata.Namespace + "/" + name)
		}
	}
	mc.slices = client.NewTypedInformer(mc.c, "/apis/discovery.k8s.io/v1/endpointslices?labelSelector="+managedByLabel+"%3D"+mirroredBy,
		controllers.Codec[mirroredSlice](), client.TypedHandler[*mirroredSlice]{Add: owner, Update: func(old, es *mirroredSlice) {
			owner(old)
			owner(es)
		}, Delete: owner},
		map[string]func(*mirroredSlice) []string{"service": func(es *mirroredSlice) []string {
			return []string{es.Metadata.Namespace + "/" + es.Metadata.Labels[serviceNameLabel]}
		}}, clk)
	return mc
}

func (mc *mirrorController) run(ctx context.Context) {
	go mc.slices.Run(ctx)
	if controllers.Synced(ctx, mc.services, mc.endpoints, mc.slices) {
		mc.queue.Run(ctx, mc.sync)
	}
}

// mirrored says whether ep is one to mirror.
func mirrored(ep *endpointsObject) bool {
	if ep == nil || ep.Metadata.Labels[skipMirrorLabel] == "true" {
		return false
	}
	_, leader := ep.Metadata.Annotations[leaderAnnotation]
	return !leader
}

// endpointsChanged queues Endpoints (old is nil unless updated) that are,
// or were, to be mirrored.
func (mc *mirrorController) endpointsChanged(old, ep *endpointsObject) {
	if mirrored(ep) || mirrored(old) {
		mc.queue.Add(ep.Metadata.Key())
	}
}

// serviceChanged queues the Endpoints of a Service without a selector that
// comes or goes, or of one whose selector came or went (old is nil unless
// updated).
func (mc *mirrorController) serviceChanged(old, svc *service) {
	if old == nil && len(svc.Spec.Selector) == 0 || old != nil && (len(old.Spec.Selector) == 0) != (len(svc.Spec.Selector) == 0) {
		mc.queue.Add(svc.Metadata.Key())
	}
}

// sync makes the mirrored EndpointSlices of the Endpoints key what its
// addresses are.
func (mc *mirrorController) sync(ctx context.Context, key string) error {
	if !mc.expect.Satisfied(key) {
		return nil
	}
	existing := mc.slices.ByIndex("service", key)
	ep, ok := mc.endpoints.Get(key)
	svc, hasService := mc.services.Get(key)
	if !ok || !mirrored(ep) || !hasService || len(svc.Spec.Selector) != 0 {
		return mc.delete(ctx, key, existing)
	}
	desired := desiredMirror(ep)
	byKey := map[string][]*mirroredSlice{}
	for _, es := range existing {
		k := es.AddressType + "-" + portsKey(es.Ports)
		byKey[k] = append(byKey[k], es)
	}
	var create, update, remove []*mirroredSlice
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		if _, ok := desired[k]; !ok {
			remove = append(remove, byKey[k]...)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(desired)) {
		want, have := desired[k], byKey[k]
		slices.SortFunc(have, func(a, b *mirroredSlice) int { return strings.Compare(a.Metadata.Name, b.Metadata.Name) })
		es := mirrorSlice(ep, want)
		if len(have) == 0 {
			create = append(create, es)
			continue
		}
		remove = append(remove, have[1:]...)
		if sameMirror(have[0], es) {
			continue
		}
		es.Metadata.Name, es.Metadata.GenerateName = have[0].Metadata.Name, ""
		update = append(update, es)
	}
	// A slice to create takes the name of one of the same address type to
	// delete, as kube's reconciler recycles them.
	for i := 0; i < len(create); i++ {
		j := slices.IndexFunc(remove, func(es *mirroredSlice) bool { return es.AddressType == create[i].AddressType })
		if j < 0 {
			continue
		}
		create[i].Metadata.Name, create[i].Metadata.GenerateName = remove[j].Metadata.Name, ""
		update = append(update, create[i])
		create = slices.Delete(create, i, i+1)
		remove = slices.Delete(remove, j, j+1)
		i--
	}
	at := "/apis/discovery.k8s.io/v1/namespaces/" + ep.Metadata.Namespace + "/endpointslices"
	if ep.Metadata.DeletionTimestamp == "" {
		for _, es := range create {
			data, err := controllers.Send(ctx, mc.c, web.MethodPost, at, es)
			if err != nil {
				return err
			}
			mc.expect.Written(key, mc.slices, controllers.Version(data))
		}
	}
	for _, es := range update {
		data, err := controllers.Send(ctx, mc.c, web.MethodPut, at+"/"+es.Metadata.Name, es)
		if err != nil {
			return err
		}
		mc.expect.Written(key, mc.slices, controllers.Version(data))
	}
	return mc.delete(ctx, key, remove)
}

// delete deletes the slices of key.
func (mc *mirrorController) delete(ctx context.Context, key string, ess []*mirroredSlice) error {
	for _, es := range ess {
		if _, err := mc.c.Delete(ctx, "/apis/discovery.k8s.io/v1/namespaces/"+es.Metadata.Namespace+"/endpointslices/"+es.Metadata.Name); err != nil && !client.IsNotFound(err) {
			return err
		}
		controllers.Deleted(mc.expect, key, mc.slices, es)
	}
	return nil
}

// mirror is what one mirrored slice holds: an address type, ports and
// endpoints.
type mirror struct {
	addressType string
	ports       []port
	endpoints   []mirroredEndpoint
}

// desiredMirror is what ep's subsets mirror to, by address type and ports:
// the addresses repacked as kube's RepackSubsets does (each address served
// on every port any subset gives it, ready if it is ready anywhere on that
// port, the addresses offered on the same ports together), then at most
// maxMirrored of each set of ports, the ready first; an address that is no
// IP is skipped.
func desiredMirror(ep *endpointsObject) map[string]*mirror {
	type addrKey struct{ ip, uid string }
	type portAddrs struct {
		port  port
		ready map[addrKey]bool
		order []addrKey
	}
	addrs := map[addrKey]address{}
	var byPort []*portAddrs
	add := func(p port, a address, ready bool) {
		k := addrKey{ip: a.IP}
		if a.TargetRef != nil {
			k.uid = a.TargetRef.UID
		}
		if _, ok := addrs[k]; !ok {
			addrs[k] = a
		}
		i := slices.IndexFunc(byPort, func(pa *portAddrs) bool { return controllers.MustJSON(pa.port) == controllers.MustJSON(p) })
		if i < 0 {
			byPort = append(byPort, &portAddrs{port: p, ready: map[addrKey]bool{}})
			i = len(byPort) - 1
		}
		pa := byPort[i]
		if was, ok := pa.ready[k]; !ok || !was {
			if !ok {
				pa.order = append(pa.order, k)
			}
			pa.ready[k] = ready
		}
	}
	for _, s := range ep.Subsets {
		ps := s.Ports
		if len(ps) == 0 {
			ps = []port{{Port: -1}} // kube's sentinel: addresses without ports are kept
		}
		for _, p := range ps {
			for _, a := range s.Addresses {
				add(p, a, true)
			}
			for _, a := range s.NotReadyAddresses {
				add(p, a, false)
			}
		}
	}
	// The ports offered to the same addresses, with the same readiness, go
	// together.
	type group struct {
		ports []port
		pa    *portAddrs
	}
	var groups []*group
	same := func(a, b *portAddrs) bool { return maps.Equal(a.ready, b.ready) }
	for _, pa := range byPort {
		i := slices.IndexFunc(groups, func(g *group) bool { return same(g.pa, pa) })
		if i < 0 {
			groups = append(groups, &group{pa: pa})
			i = len(groups) - 1
		}
		if pa.port.Port > 0 {
			groups[i].ports = append(groups[i].ports, pa.port)
		}
	}
	out := map[string]*mirror{}
	for _, g := range groups {
		slices.SortFunc(g.ports, func(a, b port) int {
			return cmp.Or(cmp.Compare(a.Port, b.Port), strings.Compare(a.Name, b.Name), strings.Compare(a.Protocol, b.Protocol))
		})
		keys := slices.Clone(g.pa.order)
		slices.SortStableFunc(keys, func(a, b addrKey) int { // the ready first
			ra, rb := g.pa.ready[a], g.pa.ready[b]
			switch {
			case ra == rb:
				return 0
			case ra:
				return -1
			}
			return 1
		})
		keys = keys[:min(len(keys), maxMirrored)]
		for _, k := range keys {
			ip, err := netip.ParseAddr(k.ip)
			if err != nil {
				continue
			}
			typ := "IPv4"
			if !ip.Unmap().Is4() {
				typ = "IPv6"
			}
			mk := typ + "-" + portsKey(g.ports)
			m := out[mk]
			if m == nil {
				m = &mirror{addressType: typ, ports: g.ports}
				out[mk] = m
			}
			a := addrs[k]
			e := mirroredEndpoint{Addresses: []string{a.IP}, Hostname: a.Hostname, NodeName: a.NodeName, TargetRef: a.TargetRef}
			e.Conditions.Ready = g.pa.ready[k]
			m.endpoints = append(m.endpoints, e)
		}
	}
	for _, m := range out {
		slices.SortFunc(m.endpoints, func(a, b mirroredEndpoint) int { return strings.Compare(a.Addresses[0], b.Addresses[0]) })
	}
	return out
}

// mirrorSlice is a new slice of ep's holding m: ep's labels and annotations
// (but the last change's time and kubectl's last applied configuration),
// the labels naming its Service and this controller, controlled by ep.
func mirrorSlice(ep *endpointsObject, m *mirror) *mirroredSlice {
	labels := maps.Clone(ep.Metadata.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[serviceNameLabel], labels[managedByLabel] = ep.Metadata.Name, mirroredBy
	annotations := withoutKeys(ep.Metadata.Annotations, lastChangeTrigger, lastApplied)
	es := &mirroredSlice{AddressType: m.addressType, Endpoints: m.endpoints, Ports: m.ports}
	if es.Endpoints == nil {
		es.Endpoints = []mirroredEndpoint{}
	}
	es.Metadata = controllers.ObjectMeta{GenerateName: ep.Metadata.Name + "-", Namespace: ep.Metadata.Namespace, Labels: labels,
		Annotations: annotations, OwnerReferences: []controllers.OwnerReference{controllers.OwnerRef(&ep.Metadata, "v1", "Endpoints")}}
	return es
}

// sameMirror says whether the existing slice have already holds what want
// does, for the same Endpoints.
func sameMirror(have, want *mirroredSlice) bool {
	if controllers.MustJSON(sortedEndpoints(have.Endpoints)) != controllers.MustJSON(want.Endpoints) ||
		!maps.Equal(have.Metadata.Labels, want.Metadata.Labels) ||
		!maps.Equal(have.Metadata.Annotations, want.Metadata.Annotations) {
		return false
	}
	for _, o := range have.Metadata.OwnerReferences {
		if o.Kind == "Endpoints" && o.Name == want.Metadata.OwnerReferences[0].Name && o.UID != want.Metadata.OwnerReferences[0].UID {
			return false // the Endpoints were made again: the slice is rebuilt
		}
	}
	return true
}

// sortedEndpoints are eps by address, as desiredMirror sorts them.
func sortedEndpoints(eps []mirroredEndpoint) []mirroredEndpoint {
	out := slices.Clone(eps)
	if out == nil {
		out = []mirroredEndpoint{}
	}
	slices.SortFunc(out, func(a, b mirroredEndpoint) int { return strings.Compare(a.Addresses[0], b.Addresses[0]) })
	return out
}

// withoutKeys is a copy of m without keys (nil when empty).
func withoutKeys(m map[string]string, keys ...string) map[string]string {
	var out map[string]string
	for k, v := range m {
		if slices.Contains(keys, k) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out
}

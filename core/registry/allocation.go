package registry

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"sync"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/storage"
)

// DefaultServiceIPRange is the sandbox's service-cluster-ip-range, as a
// kubeadm, kind or minikube cluster's: the `kubernetes` Service has its first
// address, 10.96.0.1.
const DefaultServiceIPRange = "10.96.0.0/12"

// The node port range, kube-apiserver's --service-node-port-range default.
const (
	nodePortBase = 30000
	nodePortSize = 2768
)

// serviceAllocation is what kube's Service registry allocates before it
// validates a Service (its BeginCreate and BeginUpdate): a cluster IP from
// the service range and node ports from the node port range, for the types
// that have them and did not ask for their own; an address or port asked for
// must be in range and free. Like kube's bitmap allocators it picks at random,
// from the upper part of each range first (the lower part is left for
// addresses asked for by name). What is allocated is what the stored
// Services hold, so a deleted Service frees its own; allocations not yet
// stored are held for a while so two creates at once never share one.
type serviceAllocation struct {
	store  *Store
	prefix netip.Prefix

	mu      sync.Mutex
	pending map[string]hold // allocated, perhaps not stored yet: "ip" or "port/N"
}

// hold is an allocation for a write in flight: when, and for which Service.
type hold struct {
	at    time.Time
	owner string
}

// pendingFor is how long an allocation is held for its write.
const pendingFor = 30 * time.Second

// SetServiceIPRange makes cidr (an IPv4 CIDR, kube-apiserver's
// --service-cluster-ip-range) the range cluster IPs come from.
func (s *Store) SetServiceIPRange(cidr string) error {
	a, err := newServiceAllocation(s, cidr)
	if err == nil {
		s.services.mu.Lock()
		s.services.prefix = a.prefix
		s.services.mu.Unlock()
	}
	return err
}

func newServiceAllocation(s *Store, cidr string) (*serviceAllocation, error) {
	prefix, err := netip.ParsePrefix(cidr)
	if err != nil || !prefix.Addr().Is4() || prefix.Bits() > 30 {
		return nil, fmt.Errorf("registry: service IP range %q is not an IPv4 CIDR of 4 addresses or more", cidr)
	}
	return &serviceAllocation{store: s, prefix: prefix.Masked(), pending: map[string]hold{}}, nil
}

// FirstServiceIP is the first address of a service range: the `kubernetes`
// Service's.
func FirstServiceIP(cidr string) string {
	prefix, err := netip.ParsePrefix(cidr)
	if err != nil {
		return ""
	}
	return prefix.Masked().Addr().Next().String()
}

func (a *serviceAllocation) Admit(op Operation, t Target, obj, old object.Object) error {
	if op == Delete || t.Sub != "" || t.Res.Group != "" || t.Res.Plural != "services" {
		return nil
	}
	spec := specOf(obj)
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.store.clock.Now()
	for k, h := range a.pending {
		if now.Sub(h.at) > pendingFor {
			delete(a.pending, k)
		}
	}
	used, err := a.used(t)
	if err != nil {
		return apierrors.NewInternal(err)
	}
	var errs field.ErrorList
	oldSpec, _ := old["spec"].(map[string]any)
	// An update keeps what was allocated (the Service rules refuse changes).
	if needsClusterIP(spec) && (old == nil || !needsClusterIP(oldSpec) || len(object.Strings(oldSpec, "clusterIPs")) == 0) {
		errs = append(errs, a.clusterIP(t, spec, used, now)...)
	}
	if needsNodePorts(spec) {
		errs = append(errs, a.nodePorts(t, spec, nodePorts(oldSpec), used, now)...)
	}
	if needsHealthCheck(spec) && spec["healthCheckNodePort"] == nil {
		if port, ok := a.freePort(used); ok {
			spec["healthCheckNodePort"] = port
			a.reserve(t, fmt.Sprint("port/", port), now)
		}
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid("", "Service", t.Name, errs)
	}
	return nil
}

// used is every address and port the stored Services but t's own hold, and
// those held for writes in flight.
func (a *serviceAllocation) used(t Target) (map[string]bool, error) {
	list, err := a.store.storage.List(storage.ListOptions{Prefix: CollectionPrefix(t.Res, "")})
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	self := t.key()
	for k, h := range a.pending {
		used[k] = h.owner != self
	}
	for _, item := range list.Items {
		if item.Key == self {
			continue
		}
		svc, err := object.Decode([]byte(item.Value))
		if err != nil {
			continue
		}
		spec, _ := svc["spec"].(map[string]any)
		for _, ip := range object.Strings(spec, "clusterIPs") {
			used[ip] = true
		}
		for _, p := range object.Objects(spec, "ports") {
			if p["nodePort"] != nil {
				used[fmt.Sprint("port/", p["nodePort"])] = true
			}
		}
		if spec["healthCheckNodePort"] != nil {
			used[fmt.Sprint("port/", spec["healthCheckNodePort"])] = true
		}
	}
	return used, nil
}

func (a *serviceAllocation) reserve(t Target, key string, now time.Time) {
	if !t.DryRun {
		a.pending[key] = hold{now, t.key()}
	}
}

// clusterIP allocates the Service's cluster IP, or checks the one it asks for.
func (a *serviceAllocation) clusterIP(t Target, spec map[string]any, used map[string]bool, now time.Time) field.ErrorList {
	ips := object.Strings(spec, "clusterIPs")
	ip, _ := spec["clusterIP"].(string)
	if len(ips) == 0 && ip != "" {
		ips = []string{ip}
	}
	if len(ips) > 0 && (ips[0] == "None" || ips[0] == "" || ip != "" && ips[0] != ip) {
		return nil // headless, or what the Service rules refuse first
	}
	if len(ips) == 0 {
		free, ok := a.freeIP(used)
		if !ok {
			return field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs"), []string{}, "failed to allocate a serviceIP: range is full")}
		}
		spec["clusterIP"], spec["clusterIPs"] = free, []any{free}
		a.reserve(t, free, now)
		return nil
	}
	addr, err := netip.ParseAddr(ips[0])
	if err != nil || !addr.Is4() {
		return nil // the Service rules and the IP families say what is wrong with it
	}
	var why string
	switch {
	case !a.prefix.Contains(addr) || addr == a.prefix.Addr() || addr == a.last():
		why = fmt.Sprintf("the provided IP (%s) is not in the valid range. The range of valid IPs is %s", addr, a.prefix)
	case used[addr.String()]:
		why = "provided IP is already allocated"
	default:
		a.reserve(t, addr.String(), now)
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs"), ips, fmt.Sprintf("failed to allocate IP %s: %s", addr, why))}
}

// last is the range's broadcast address, which is never allocated.
func (a *serviceAllocation) last() netip.Addr {
	b := a.prefix.Addr().As4()
	n := binary.BigEndian.Uint32(b[:]) | (1<<(32-a.prefix.Bits()) - 1)
	binary.BigEndian.PutUint32(b[:], n)
	return netip.AddrFrom4(b)
}

// freeIP is a free address, at random: from the upper band first, as kube's
// allocator (the band below min(max(16, size/16), 256) addresses is left).
func (a *serviceAllocation) freeIP(used map[string]bool) (string, bool) {
	size := uint32(1)<<(32-a.prefix.Bits()) - 2 // without the network and broadcast addresses
	base := a.prefix.Addr().As4()
	ip := func(n uint32) string {
		b := base
		binary.BigEndian.PutUint32(b[:], binary.BigEndian.Uint32(base[:])+1+n)
		return netip.AddrFrom4(b).String()
	}
	n, ok := pick(min(max(size/16, 16), 256), size, func(n uint32) bool { return !used[ip(n)] })
	return ip(n), ok
}

// freePort is a free node port, at random, from the upper band first
// (min(max(16, size/32), 128) ports are left).
func (a *serviceAllocation) freePort(used map[string]bool) (int, bool) {
	n, ok := pick(min(max(nodePortSize/32, 16), 128), nodePortSize, func(n uint32) bool {
		return !used[fmt.Sprint("port/", nodePortBase+n)]
	})
	return nodePortBase + int(n), ok
}

// pick finds a free one of size numbers: from a random start in [offset,
// size) onwards, then in [0, offset).
func pick(offset, size uint32, free func(n uint32) bool) (uint32, bool) {
	if offset >= size {
		offset = 0
	}
	start := rand.Uint32N(size - offset)
	for i := range size - offset {
		if n := offset + (start+i)%(size-offset); free(n) {
			return n, true
		}
	}
	for n := range offset {
		if free(n) {
			return n, true
		}
	}
	return 0, false
}

// nodePorts allocates the Service's node ports, or checks those it asks for
// (but those it had: kept).
func (a *serviceAllocation) nodePorts(t Target, spec map[string]any, kept, used map[string]bool, now time.Time) field.ErrorList {
	var errs field.ErrorList
	for i, p := range object.Objects(spec, "ports") {
		if p["nodePort"] == nil {
			if port, ok := a.freePort(used); ok {
				p["nodePort"] = port
				used[fmt.Sprint("port/", port)] = true
				a.reserve(t, fmt.Sprint("port/", port), now)
			}
			continue
		}
		n := object.Int(p["nodePort"])
		key := fmt.Sprint("port/", n)
		switch {
		case kept[fmt.Sprint(n)]:
		case n < nodePortBase || n >= nodePortBase+nodePortSize:
			errs = append(errs, field.Invalid(field.NewPath("spec", "ports").Index(i).Child("nodePort"), n,
				fmt.Sprintf("provided port is not in the valid range. The range of valid ports is %d-%d", nodePortBase, nodePortBase+nodePortSize-1)))
		case used[key]:
			errs = append(errs, field.Invalid(field.NewPath("spec", "ports").Index(i).Child("nodePort"), n, "provided port is already allocated"))
		default:
			used[key] = true
			a.reserve(t, key, now)
		}
	}
	return errs
}

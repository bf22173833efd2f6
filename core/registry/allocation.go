package registry

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strconv"
	"strings"
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
	store *Store
	base  uint32 // the range's network address
	bits  int

	mu      sync.Mutex
	pending map[slot]hold // allocated, perhaps not stored yet
}

// slot is an allocation: an IPv4 address, or nodePortSlot plus a port.
type slot uint64

const nodePortSlot slot = 1 << 32

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
		s.services.base, s.services.bits = a.base, a.bits
		s.services.mu.Unlock()
	}
	return err
}

func newServiceAllocation(s *Store, cidr string) (*serviceAllocation, error) {
	base, bits, ok := parseCIDR4(cidr)
	if !ok || bits > 30 {
		return nil, fmt.Errorf("registry: service IP range %q is not an IPv4 CIDR of 4 addresses or more", cidr)
	}
	return &serviceAllocation{store: s, base: base, bits: bits, pending: map[slot]hold{}}, nil
}

// parseCIDR4 is an IPv4 CIDR's network address and prefix length.
func parseCIDR4(cidr string) (base uint32, bits int, ok bool) {
	addr, length, _ := strings.Cut(cidr, "/")
	ip, ok := parseIP4(addr)
	bits, err := strconv.Atoi(length)
	if !ok || err != nil || bits < 0 || bits > 32 {
		return 0, 0, false
	}
	return ip &^ (1<<(32-bits) - 1), bits, true
}

// parseIP4 is an IPv4 address as a number.
func parseIP4(s string) (uint32, bool) {
	addr, err := netip.ParseAddr(s)
	if err != nil || !addr.Is4() {
		return 0, false
	}
	b := addr.As4()
	return binary.BigEndian.Uint32(b[:]), true
}

// ip4 is an IPv4 address's dotted form.
func ip4(n uint32) string {
	b := make([]byte, 0, 15)
	for shift := 24; shift >= 0; shift -= 8 {
		if shift < 24 {
			b = append(b, '.')
		}
		b = strconv.AppendUint(b, uint64(n>>shift&0xff), 10)
	}
	return string(b)
}

// FirstServiceIP is the first address of a service range: the `kubernetes`
// Service's.
func FirstServiceIP(cidr string) string {
	base, _, ok := parseCIDR4(cidr)
	if !ok {
		return ""
	}
	return ip4(base + 1)
}

func (a *serviceAllocation) Admit(op Operation, t Target, obj, old object.Object) error {
	if op == Delete || t.Sub != "" || t.Res.Group != "" || t.Res.Plural != "services" {
		return nil
	}
	spec := object.Child(obj, "spec")
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
		if port, ok := freePort(used); ok {
			spec["healthCheckNodePort"] = port
			a.reserve(t, nodePortSlot+slot(port), now)
		}
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid("", "Service", t.Name, errs)
	}
	return nil
}

// used is every address and port the stored Services but t's own hold, and
// those held for writes in flight.
func (a *serviceAllocation) used(t Target) (map[slot]bool, error) {
	list, err := a.store.storage.List(storage.ListOptions{Prefix: CollectionPrefix(t.Res, "")})
	if err != nil {
		return nil, err
	}
	used := map[slot]bool{}
	self := t.key()
	for k, h := range a.pending {
		used[k] = h.owner != self
	}
	port := func(p any) {
		if p != nil {
			used[nodePortSlot+slot(object.Int(p))] = true
		}
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
			if n, ok := parseIP4(ip); ok {
				used[slot(n)] = true
			}
		}
		for _, p := range object.Objects(spec, "ports") {
			port(p["nodePort"])
		}
		port(spec["healthCheckNodePort"])
	}
	return used, nil
}

func (a *serviceAllocation) reserve(t Target, s slot, now time.Time) {
	if !t.DryRun {
		a.pending[s] = hold{now, t.key()}
	}
}

// clusterIP allocates the Service's cluster IP, or checks the one it asks for.
func (a *serviceAllocation) clusterIP(t Target, spec map[string]any, used map[slot]bool, now time.Time) field.ErrorList {
	ips := object.Strings(spec, "clusterIPs")
	ip, _ := spec["clusterIP"].(string)
	if len(ips) == 0 && ip != "" {
		ips = []string{ip}
	}
	if len(ips) > 0 && (ips[0] == "None" || ips[0] == "" || ip != "" && ips[0] != ip) {
		return nil // headless, or what the Service rules refuse first
	}
	size := uint32(1)<<(32-a.bits) - 2 // without the network and broadcast addresses
	if len(ips) == 0 {
		// At random, from the upper band first, as kube's allocator (the
		// band below min(max(16, size/16), 256) addresses is left).
		n, ok := pick(min(max(size/16, 16), 256), size, func(n uint32) bool { return !used[slot(a.base+1+n)] })
		if !ok {
			return field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs"), []string{}, "failed to allocate a serviceIP: range is full")}
		}
		free := ip4(a.base + 1 + n)
		spec["clusterIP"], spec["clusterIPs"] = free, []any{free}
		a.reserve(t, slot(a.base+1+n), now)
		return nil
	}
	n, ok := parseIP4(ips[0])
	if !ok {
		return nil // the Service rules and the IP families say what is wrong with it
	}
	var why string
	switch {
	case n-a.base-1 >= size:
		why = fmt.Sprintf("the provided IP (%s) is not in the valid range. The range of valid IPs is %s/%d", ip4(n), ip4(a.base), a.bits)
	case used[slot(n)]:
		why = "provided IP is already allocated"
	default:
		a.reserve(t, slot(n), now)
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs"), ips, fmt.Sprintf("failed to allocate IP %s: %s", ip4(n), why))}
}

// freePort is a free node port, at random, from the upper band first
// (min(max(16, size/32), 128) ports are left).
func freePort(used map[slot]bool) (int, bool) {
	n, ok := pick(min(max(nodePortSize/32, 16), 128), nodePortSize, func(n uint32) bool {
		return !used[nodePortSlot+nodePortBase+slot(n)]
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
func (a *serviceAllocation) nodePorts(t Target, spec map[string]any, kept map[string]bool, used map[slot]bool, now time.Time) field.ErrorList {
	var errs field.ErrorList
	for i, p := range object.Objects(spec, "ports") {
		if p["nodePort"] == nil {
			if port, ok := freePort(used); ok {
				p["nodePort"] = port
				used[nodePortSlot+slot(port)] = true
				a.reserve(t, nodePortSlot+slot(port), now)
			}
			continue
		}
		n := object.Int(p["nodePort"])
		key := nodePortSlot + slot(n)
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

package registry

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/field"
	"kubeplay/core/kinds"
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
	a.mu.Lock()
	defer a.mu.Unlock()
	self := t.key()
	c := claim{a: a, now: a.store.clock.Now(), used: map[slot]bool{}, name: t.Name}
	if !t.DryRun {
		c.owner = self
	}
	if err := c.inUse(collectionPrefix(t.Res, ""), self); err != nil {
		return apierrors.NewInternal(err)
	}
	spec := object.Child(obj, "spec")
	oldSpec, _ := old["spec"].(map[string]any)
	// An update keeps what was allocated (the Service rules refuse changes).
	if kinds.ServiceNeedsClusterIP(spec) && (!kinds.ServiceNeedsClusterIP(oldSpec) || len(object.Strings(oldSpec, "clusterIPs")) == 0) {
		if err := c.clusterIP(spec); err != nil {
			return err
		}
	}
	if kinds.ServiceNeedsNodePorts(spec) {
		kept := kinds.ServiceNodePorts(oldSpec)
		for i, p := range object.Objects(spec, "ports") {
			if !kept[fmt.Sprint(p["nodePort"])] {
				if err := c.nodePort(p, "nodePort", i); err != nil {
					return err
				}
			}
		}
	}
	if kinds.ServiceNeedsHealthCheck(spec) && (!kinds.ServiceNeedsHealthCheck(oldSpec) || oldSpec["healthCheckNodePort"] == nil) {
		return c.nodePort(spec, "healthCheckNodePort", -1)
	}
	return nil
}

// claim is one write's allocations.
type claim struct {
	a     *serviceAllocation
	owner string // the Service's key; "" in a dry run, which holds nothing
	name  string // the Service's
	now   time.Time
	used  map[slot]bool
}

// inUse is every address and port the Services stored under prefix but self
// hold, and those held for other writes in flight (those older than
// pendingFor let go).
func (c *claim) inUse(prefix, self string) error {
	list, err := c.a.store.storage.List(storage.ListOptions{Prefix: prefix})
	if err != nil {
		return err
	}
	for k, h := range c.a.pending {
		if c.now.Sub(h.at) > pendingFor {
			delete(c.a.pending, k)
		} else {
			c.used[k] = h.owner != self
		}
	}
	for _, item := range list.Items {
		svc, err := object.Decode([]byte(item.Value))
		if err != nil || item.Key == self {
			continue
		}
		spec := object.Child(svc, "spec")
		for _, ip := range object.Strings(spec, "clusterIPs") {
			n, _ := parseIP4(ip)
			c.used[slot(n)] = true
		}
		for _, p := range append(object.Objects(spec, "ports"), spec) {
			for _, port := range [...]any{p["nodePort"], p["healthCheckNodePort"]} {
				if port != nil {
					c.used[nodePortSlot+slot(object.Int(port))] = true
				}
			}
		}
	}
	return nil
}

// Why take refuses.
var (
	errOutOfRange = errors.New("not in the valid range")
	errAllocated  = errors.New("already allocated")
	errFull       = errors.New("range is full")
)

// take allocates s, asked for: in the size numbers from first and free; or,
// not asked for, a free one at random, from the upper band first as kube's
// bitmap allocators pick (the numbers below band are left for those asked for).
func (c *claim) take(s slot, asked bool, first slot, size, band uint32) (slot, error) {
	switch {
	case !asked:
		if band >= size {
			band = 0
		}
		start, i := rand.Uint32N(size-band), uint32(0)
		for ; i < size; i++ {
			n := i - (size - band) // the lower band, once the upper one is done
			if i < size-band {
				n = band + (start+i)%(size-band)
			}
			if s = first + slot(n); !c.used[s] {
				break
			}
		}
		if i == size {
			return 0, errFull
		}
	case s-first >= slot(size):
		return s, errOutOfRange
	case c.used[s]:
		return s, errAllocated
	}
	c.used[s] = true
	if c.owner != "" {
		c.a.pending[s] = hold{c.now, c.owner}
	}
	return s, nil
}

// clusterIP allocates the Service's cluster IP, or checks the one it asks for.
func (c *claim) clusterIP(spec map[string]any) error {
	ips := object.Strings(spec, "clusterIPs")
	ip, _ := spec["clusterIP"].(string)
	if len(ips) == 0 && ip != "" {
		ips = []string{ip}
	}
	if len(ips) > 0 && (ips[0] == "None" || ips[0] == "" || ip != "" && ips[0] != ip) {
		return nil // headless, or what the Service rules refuse first
	}
	var asked uint32
	if len(ips) > 0 {
		var ok bool
		if asked, ok = parseIP4(ips[0]); !ok {
			return nil // the Service rules and the IP families say what is wrong with it
		}
	}
	a := c.a
	size := uint32(1)<<(32-a.bits) - 2 // without the network and broadcast addresses
	s, err := c.take(slot(asked), len(ips) > 0, slot(a.base+1), size, min(max(size/16, 16), 256))
	switch {
	case err == errFull:
		return apierrors.NewInternal(errors.New("failed to allocate a serviceIP: range is full"))
	case err == errOutOfRange:
		err = fmt.Errorf("the provided IP (%s) is not in the valid range. The range of valid IPs is %s/%d", ip4(asked), ip4(a.base), a.bits)
	case err != nil:
		err = errors.New("provided IP is already allocated")
	case len(ips) == 0:
		free := ip4(uint32(s))
		spec["clusterIP"], spec["clusterIPs"] = free, []any{free}
		return nil
	default:
		return nil
	}
	return apierrors.NewInvalid("", "Service", c.name, field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs"), ips, fmt.Sprintf("failed to allocate IP %s: %v", ips[0], err))})
}

// nodePort allocates m[key], a node port, or checks the one asked for: that
// of spec.ports[i], or (i < 0) the health check's.
func (c *claim) nodePort(m map[string]any, key string, i int) error {
	asked := m[key] != nil
	s, err := c.take(nodePortSlot+slot(object.Int(m[key])), asked, nodePortSlot+nodePortBase, nodePortSize, min(max(nodePortSize/32, 16), 128))
	switch {
	case err == nil:
		m[key] = int64(s - nodePortSlot)
		return nil
	case err == errFull:
		return apierrors.NewInternal(errors.New("failed to allocate a nodePort: range is full"))
	case err == errOutOfRange:
		err = fmt.Errorf("provided port is not in the valid range. The range of valid ports is %d-%d", nodePortBase, nodePortBase+nodePortSize-1)
	default:
		err = errors.New("provided port is already allocated")
	}
	if i < 0 {
		return apierrors.NewInternal(fmt.Errorf("failed to allocate requested HealthCheck NodePort %v: %v", m[key], err))
	}
	return apierrors.NewInvalid("", "Service", c.name, field.ErrorList{field.Invalid(field.NewPath("spec", "ports").Index(i).Child("nodePort"), m[key], err.Error())})
}

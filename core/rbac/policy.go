package rbac

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"kubeplay/core/auth"
	"kubeplay/core/object"
	"kubeplay/core/user"
)

// Policy is the RBAC objects of a cluster at one moment, read once: the
// roles' rules and the bindings' subjects.
type Policy struct {
	clusterRoles        map[string][]Rule
	roles               map[string][]Rule // namespace/name
	clusterRoleBindings bindings
	roleBindings        map[string]*bindings // by namespace
	// held caches what a subject holds in a namespace (the policy never
	// changes: a change of RBAC's objects makes a new one), so that a
	// decision scans a few rules instead of walking the bindings. Keyed by
	// name and namespace alone, as hashing every group would be most of a
	// decision's cost.
	heldMu   sync.RWMutex
	held     map[heldKey][]*heldRules
	heldSize int
	// last is the entry the last decision read: a sandbox's requests come
	// mostly from one user at a time, whose next one finds it without a
	// lock or a hash.
	last atomic.Pointer[heldRules]
}

// heldKey is a user's name and a namespace: the entries under it tell
// apart the group sets its requests came with.
type heldKey struct{ name, namespace string }

// heldRules are the rules a subject (a user of some groups) holds in a
// namespace, in the order kube visits them, and the errors met resolving
// its bindings.
type heldRules struct {
	heldKey
	groups []string
	rules  []Rule
	errs   []string
}

// of says whether h is what u holds in namespace.
func (h *heldRules) of(u user.User, namespace string) bool {
	return h.name == u.Name && h.namespace == namespace && slices.Equal(h.groups, u.Groups)
}

// maxHeld bounds the cache: past it, decisions walk the bindings.
const maxHeld = 4096

// holds is what u holds in namespace, cached.
func (p *Policy) holds(u user.User, namespace string) *heldRules {
	if h := p.last.Load(); h != nil && h.of(u, namespace) {
		return h
	}
	k := heldKey{u.Name, namespace}
	p.heldMu.RLock()
	for _, h := range p.held[k] {
		if h.of(u, namespace) {
			p.heldMu.RUnlock()
			p.last.Store(h)
			return h
		}
	}
	p.heldMu.RUnlock()
	h := p.collect(u, namespace)
	h.heldKey, h.groups = k, slices.Clone(u.Groups)
	p.heldMu.Lock()
	if p.heldSize < maxHeld {
		p.held[k] = append(p.held[k], h)
		p.heldSize++
	}
	p.heldMu.Unlock()
	p.last.Store(h)
	return h
}

func (p *Policy) collect(u user.User, namespace string) *heldRules {
	h := &heldRules{}
	p.visit(u, namespace, func(_ source, r *Rule, err error) bool {
		if r != nil {
			h.rules = append(h.rules, *r)
		}
		if err != nil {
			h.errs = append(h.errs, err.Error())
		}
		return true
	})
	return h
}

// bindings are bindings in kube's order, indexed by the subjects they
// name, so that a request looks only at those that may apply to its user.
type bindings struct {
	list []binding
	// bySubject: "u:NAME", "g:GROUP", "s:NAMESPACE:NAME" (a service
	// account, its namespace the binding's when it names none) → the
	// bindings naming it, in order.
	bySubject map[string][]int
}

func (bs *bindings) add(b binding) {
	i := len(bs.list)
	bs.list = append(bs.list, b)
	if bs.bySubject == nil {
		bs.bySubject = map[string][]int{}
	}
	for _, s := range b.subjects {
		var key string
		switch s.kind {
		case "User":
			key = "u:" + s.name
		case "Group":
			key = "g:" + s.name
		case "ServiceAccount":
			ns := s.namespace
			if ns == "" {
				ns = b.namespace
			}
			key = "s:" + ns + ":" + s.name
		default:
			continue
		}
		if l := bs.bySubject[key]; len(l) == 0 || l[len(l)-1] != i {
			bs.bySubject[key] = append(l, i)
		}
	}
}

// forUser are the indexes of the bindings that may apply to u, in order.
func (bs *bindings) forUser(u user.User) []int {
	if bs == nil {
		return nil
	}
	var out []int
	merge := func(l []int) {
		out = append(out, l...)
	}
	merge(bs.bySubject["u:"+u.Name])
	for _, g := range u.Groups {
		merge(bs.bySubject["g:"+g])
	}
	if rest, ok := strings.CutPrefix(u.Name, user.ServiceAccountPrefix); ok {
		merge(bs.bySubject["s:"+rest])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// binding is a RoleBinding or ClusterRoleBinding: its subjects and the role
// it grants.
type binding struct {
	name, namespace string
	roleKind        string // Role or ClusterRole
	roleName        string
	subjects        []subject
}

type subject struct{ kind, name, namespace string }

// NewPolicy reads the stored ClusterRoles, Roles, ClusterRoleBindings and
// RoleBindings.
func NewPolicy(clusterRoles, roles, clusterRoleBindings, roleBindings []object.Object) *Policy {
	p := &Policy{clusterRoles: map[string][]Rule{}, roles: map[string][]Rule{}, roleBindings: map[string]*bindings{}, held: map[heldKey][]*heldRules{}}
	for _, r := range clusterRoles {
		p.clusterRoles[object.MetaString(r, "name")] = RulesOf(r)
	}
	for _, r := range roles {
		p.roles[object.MetaString(r, "namespace")+"/"+object.MetaString(r, "name")] = RulesOf(r)
	}
	for _, b := range clusterRoleBindings {
		p.clusterRoleBindings.add(bindingOf(b))
	}
	for _, b := range roleBindings {
		rb := bindingOf(b)
		if p.roleBindings[rb.namespace] == nil {
			p.roleBindings[rb.namespace] = &bindings{}
		}
		p.roleBindings[rb.namespace].add(rb)
	}
	return p
}

func bindingOf(b object.Object) binding {
	ref, _ := b["roleRef"].(map[string]any)
	out := binding{name: object.MetaString(b, "name"), namespace: object.MetaString(b, "namespace"),
		roleKind: object.String(ref["kind"]), roleName: object.String(ref["name"])}
	for _, s := range object.Objects(b, "subjects") {
		out.subjects = append(out.subjects, subject{kind: object.String(s["kind"]), name: object.String(s["name"]), namespace: object.String(s["namespace"])})
	}
	return out
}

// source names the binding and subject a rule came from, as kube's reason
// for an allowed request does.
type source struct {
	b *binding
	s *subject
}

func (src source) String() string {
	name := src.b.name
	kind := "ClusterRoleBinding"
	if src.b.namespace != "" {
		name += "/" + src.b.namespace
		kind = "RoleBinding"
	}
	return kind + " " + strconv.Quote(name) + " of " + src.b.roleKind + " " + strconv.Quote(src.b.roleName) + " to " + describeSubject(src.s, src.b.namespace)
}

func describeSubject(s *subject, bindingNamespace string) string {
	if s.kind == "ServiceAccount" {
		ns := s.namespace
		if ns == "" {
			ns = bindingNamespace
		}
		return fmt.Sprintf("%s %q", s.kind, s.name+"/"+ns)
	}
	return fmt.Sprintf("%s %q", s.kind, s.name)
}

// visit calls fn with every rule u holds in namespace (cluster-wide ones
// first, then those of namespace's RoleBindings), and each error resolving
// a binding's role, until fn returns false.
func (p *Policy) visit(u user.User, namespace string, fn func(src source, r *Rule, err error) bool) {
	walk := func(bs *bindings, ns string) bool {
		for _, i := range bs.forUser(u) {
			b := &bs.list[i]
			s := b.appliesTo(u, ns)
			if s == nil {
				continue
			}
			rules, err := p.roleRules(b, ns)
			if err != nil {
				if !fn(source{}, nil, err) {
					return false
				}
				continue
			}
			for j := range rules {
				if !fn(source{b, s}, &rules[j], nil) {
					return false
				}
			}
		}
		return true
	}
	if walk(&p.clusterRoleBindings, "") && namespace != "" {
		walk(p.roleBindings[namespace], namespace)
	}
}

// roleRules are the rules of the role b grants, or kube's NotFound words.
func (p *Policy) roleRules(b *binding, namespace string) ([]Rule, error) {
	switch b.roleKind {
	case "Role":
		if rules, ok := p.roles[namespace+"/"+b.roleName]; ok {
			return rules, nil
		}
		return nil, fmt.Errorf("role.rbac.authorization.k8s.io %q not found", b.roleName)
	case "ClusterRole":
		if rules, ok := p.clusterRoles[b.roleName]; ok {
			return rules, nil
		}
		return nil, fmt.Errorf("clusterrole.rbac.authorization.k8s.io %q not found", b.roleName)
	}
	return nil, fmt.Errorf("unsupported role reference kind: %q", b.roleKind)
}

// appliesTo is the first of b's subjects that is u (in namespace, for a
// service account that names none), or nil.
func (b *binding) appliesTo(u user.User, namespace string) *subject {
	for i := range b.subjects {
		s := &b.subjects[i]
		switch s.kind {
		case "User":
			if u.Name == s.name {
				return s
			}
		case "Group":
			if u.InGroup(s.name) {
				return s
			}
		case "ServiceAccount":
			ns := s.namespace
			if ns == "" {
				ns = namespace
			}
			if ns != "" && u.Name == user.ServiceAccountPrefix+ns+":"+s.name {
				return s
			}
		}
	}
	return nil
}

// Authorize is kube's RBAC authorizer: a is allowed when a rule u holds in
// a's namespace allows it ("RBAC: allowed by …" says which, when a.Explain
// asks); otherwise the reason lists the errors met resolving u's bindings,
// if any.
func (p *Policy) Authorize(a *auth.Attributes) (bool, string) {
	if !a.Explain {
		h := p.holds(a.User, a.Namespace)
		for i := range h.rules {
			if h.rules[i].Allows(a) {
				return true, ""
			}
		}
		if len(h.errs) > 0 {
			return false, "RBAC: " + Errors(h.errs)
		}
		return false, ""
	}
	var reason string
	var errs []string
	allowed := false
	p.visit(a.User, a.Namespace, func(src source, r *Rule, err error) bool {
		if r != nil && r.Allows(a) {
			allowed = true
			if a.Explain {
				reason = "RBAC: allowed by " + src.String()
			}
			return false
		}
		if err != nil {
			errs = append(errs, err.Error())
		}
		return true
	})
	if allowed {
		return true, reason
	}
	if len(errs) > 0 {
		return false, "RBAC: " + Errors(errs)
	}
	return false, ""
}

// Errors words several errors as kube's utilerrors aggregate does: one
// alone, or "[a, b]" without repeats.
func Errors(errs []string) string {
	if len(errs) == 1 {
		return errs[0]
	}
	seen := map[string]bool{}
	var out []string
	for _, e := range errs {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// RulesFor is every rule u holds in namespace (cluster-wide ones included),
// and the errors met resolving u's bindings.
func (p *Policy) RulesFor(u user.User, namespace string) ([]Rule, []string) {
	h := p.collect(u, namespace)
	return h.rules, h.errs
}

// ConfirmNoEscalation is kube's check that u, writing a role or binding in
// namespace, holds every rule it grants: nil, or kube's words for what u
// lacks.
func (p *Policy) ConfirmNoEscalation(u user.User, namespace string, rules []Rule) error {
	owned, errs := p.RulesFor(u, namespace)
	ok, missing := Covers(owned, rules)
	if ok {
		return nil
	}
	msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s", u.Name, u.Groups, describeMissing(missing))
	if len(errs) > 0 {
		msg += "; resolution errors: [" + Errors(errs) + "]"
	}
	return escalation(msg)
}

type escalation string

func (e escalation) Error() string { return string(e) }

// RoleRules are the rules of the role a binding in namespace refers to
// (kind Role or ClusterRole), or kube's NotFound words.
func (p *Policy) RoleRules(kind, name, namespace string) ([]Rule, error) {
	return p.roleRules(&binding{roleKind: kind, roleName: name}, namespace)
}

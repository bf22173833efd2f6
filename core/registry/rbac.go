package registry

import (
	"sync"
	"sync/atomic"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/auth"
	"kubeplay/core/object"
	"kubeplay/core/rbac"
	"kubeplay/core/storage"
	"kubeplay/core/user"
)

// Authorization as kube-apiserver's authorizer chain decides it, over the
// RBAC objects stored here: system:masters is always allowed (kube's
// privileged-group authorizer comes first whatever the mode), then the
// mode's authorizer (RBAC, or AlwaysAllow). The Store is the chain's
// auth.Reviewer: core/auth's filters and reviews ask it.

// authorizer is the Store's authorizer chain.
type authorizer struct {
	store *Store
	mode  string
	// changes follows the RBAC collections' last change.
	changes storage.Changes

	mu     sync.Mutex // held while the policy is read again
	policy atomic.Pointer[builtPolicy]
}

// builtPolicy is the policy as of the RBAC collections' change changed.
type builtPolicy struct {
	*rbac.Policy
	changed int64
}

// rbacResources are the RBAC kinds' resources, in the order rbac.NewPolicy
// reads them.
var rbacResources = []string{"clusterroles", "roles", "clusterrolebindings", "rolebindings"}

// rbacCollections are their storage collections.
var rbacCollections = func() []string {
	out := make([]string, len(rbacResources))
	for i, r := range rbacResources {
		out[i] = groupSegment(rbac.Group) + "/" + r
	}
	return out
}()

// current is the policy as stored now: read again only when an RBAC object
// has changed since it was last read (a change is counted before its write
// is answered, so the next request sees it).
func (z *authorizer) current() *rbac.Policy {
	last := z.changes.Last()
	if p := z.policy.Load(); p != nil && p.changed == last {
		return p.Policy
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	// Counted before the objects are read: a change that lands meanwhile
	// makes the next request read them again.
	last = z.changes.Last()
	if p := z.policy.Load(); p != nil && p.changed == last {
		return p.Policy
	}
	s := z.store
	var lists [4][]object.Object
	for i, r := range rbacResources {
		if res := s.schema.ByGroupResource(rbac.Group, r); res != nil {
			lists[i] = s.Decoded(res)
		}
	}
	p := &builtPolicy{Policy: rbac.NewPolicy(lists[0], lists[1], lists[2], lists[3]), changed: last}
	z.policy.Store(p)
	return p.Policy
}

// Authorize decides a.
func (z *authorizer) Authorize(a *auth.Attributes) (bool, string) {
	if a.User.InGroup(user.SystemPrivileged) || z.mode == auth.ModeAlwaysAllow {
		return true, ""
	}
	return z.current().Authorize(a)
}

// RulesFor lists what u holds in namespace, as a SelfSubjectRulesReview
// shows it: RBAC's rules (each either a resource or a non-resource rule),
// or AlwaysAllow's everything.
func (z *authorizer) RulesFor(u user.User, namespace string) (resource, nonResource []any, evaluationError string) {
	if z.mode == auth.ModeAlwaysAllow {
		return []any{map[string]any{"verbs": []any{"*"}, "apiGroups": []any{"*"}, "resources": []any{"*"}}},
			[]any{map[string]any{"verbs": []any{"*"}, "nonResourceURLs": []any{"*"}}}, ""
	}
	rules, errs := z.current().RulesFor(u, namespace)
	resource, nonResource = []any{}, []any{}
	for _, r := range rules {
		if len(r.Resources) > 0 {
			resource = append(resource, rbac.Rule{Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames}.Object())
		}
		if len(r.NonResourceURLs) > 0 {
			nonResource = append(nonResource, rbac.Rule{Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs}.Object())
		}
	}
	if len(errs) > 0 {
		evaluationError = rbac.Errors(errs)
	}
	return resource, nonResource, evaluationError
}

// Authorizer is the Store's authorizer chain and its service account token
// authenticator, for core/auth's filters and reviews.
func (s *Store) Authorizer() auth.Reviewer { return s.authz }

// AuthenticateToken is the Store's (serviceaccounttoken.go).
func (z *authorizer) AuthenticateToken(token string, audiences []string) (user.User, []string, error) {
	return z.store.AuthenticateToken(token, audiences)
}

// rbacEscalation is the check kube's RBAC storage makes before it writes a
// role or a binding: a writer not in system:masters must hold every rule it
// grants (a role's rules, a binding's role's), unless it may escalate
// (roles) or bind (bindings) by the authorizer; under AlwaysAllow it always
// may. It runs after the mutating admission plugins, before validation.
type rbacEscalation struct{ store *Store }

func (e rbacEscalation) Admit(op Operation, t Target, obj, old object.Object) error {
	z := e.store.authz
	if op == Delete || t.Sub != "" || t.Res.Group != rbac.Group || z.mode == auth.ModeAlwaysAllow || t.User.Name == "" || t.User.InGroup(user.SystemPrivileged) {
		return nil
	}
	if op == Update && onlyGCFieldsChanged(obj, old) {
		return nil
	}
	name := object.MetaString(obj, "name")
	policy := z.current()
	var rules []rbac.Rule
	switch t.Res.Plural {
	case "roles", "clusterroles":
		a := &auth.Attributes{User: t.User, Verb: "escalate", ResourceRequest: true, APIGroup: rbac.Group, APIVersion: "*",
			Resource: t.Res.Plural, Name: name, Namespace: t.Namespace}
		if allowed, _ := z.Authorize(a); allowed {
			return nil
		}
		rules = rbac.RulesOf(obj)
	case "rolebindings", "clusterrolebindings":
		ref, _ := obj["roleRef"].(map[string]any)
		kind, roleName := object.String(ref["kind"]), object.String(ref["name"])
		resource := map[string]string{"Role": "roles", "ClusterRole": "clusterroles"}[kind]
		if resource != "" {
			a := &auth.Attributes{User: t.User, Verb: "bind", ResourceRequest: true, APIGroup: object.String(ref["apiGroup"]), APIVersion: "*",
				Resource: resource, Name: roleName, Namespace: t.Namespace}
			if allowed, _ := z.Authorize(a); allowed {
				return nil
			}
		}
		var err error
		if rules, err = policy.RoleRules(kind, roleName, t.Namespace); err != nil {
			// kube's storage hands the lister's NotFound on, which its
			// generic store words as its own resource's.
			return apierrors.NewNotFound(rbac.Group, t.Res.Plural, roleName)
		}
	default:
		return nil
	}
	if err := policy.ConfirmNoEscalation(t.User, t.Namespace, rules); err != nil {
		return apierrors.NewForbidden(rbac.Group, t.Res.Plural, name, err.Error())
	}
	return nil
}

// onlyGCFieldsChanged says whether an update changes nothing but the
// owner references and finalizers (kube's IsOnlyMutatingGCFields): the
// garbage collector's writes are never checked for escalation.
func onlyGCFieldsChanged(obj, old object.Object) bool {
	if old == nil {
		return false
	}
	strip := func(o object.Object) object.Object {
		c := object.DeepCopy(o)
		meta := object.Meta(c)
		delete(meta, "ownerReferences")
		delete(meta, "finalizers")
		delete(meta, "resourceVersion")
		delete(meta, "managedFields")
		return c
	}
	return object.Equal(strip(obj), strip(old))
}

// holdsBootstrapPolicy says whether the store holds the bootstrap policy
// (its cluster-admin ClusterRole, the first object it creates).
func (s *Store) holdsBootstrapPolicy() bool {
	res := s.schema.ByGroupResource(rbac.Group, "clusterroles")
	if res == nil {
		return false
	}
	_, ok := s.Current(res, "", "cluster-admin")
	return ok
}

// CreateBootstrapPolicy creates what of the bootstrap policy (core/rbac's)
// is missing, as kube-apiserver's RBAC post-start hook does: it leaves an
// object that exists as it is.
func (s *Store) CreateBootstrapPolicy() error {
	return s.createBootstrapPolicy(func(object.Object) bool { return true })
}

// adminPolicy is the part of the bootstrap policy the sandbox's
// administrators need (the cluster-admin ClusterRole and kubeadm's binding
// of its group to it): a store whose policy comes late (PolicyLate) holds it
// from the start, so its owner's first requests are authorized.
func adminPolicy(obj object.Object) bool {
	name := object.MetaString(obj, "name")
	return object.String(obj["kind"]) == "ClusterRole" && name == "cluster-admin" ||
		object.String(obj["kind"]) == "ClusterRoleBinding" && name == rbac.ClusterAdminsGroup
}

// createBootstrapPolicy creates the objects of the bootstrap policy that
// want selects and the store lacks.
func (s *Store) createBootstrapPolicy(want func(object.Object) bool) error {
	byKind := map[string]*api.Resource{}
	for _, r := range rbacResources {
		if res := s.schema.ByGroupResource(rbac.Group, r); res != nil {
			byKind[res.Kind] = res
		}
	}
	for _, obj := range rbac.Bootstrap() {
		res := byKind[object.String(obj["kind"])]
		if res == nil || !want(obj) {
			continue
		}
		ns := object.MetaString(obj, "namespace")
		if _, ok := s.Current(res, ns, object.MetaString(obj, "name")); ok {
			continue
		}
		if _, err := s.Create(Target{Res: res, Namespace: ns, Manager: "kube-apiserver", User: user.APIServer}, obj); err != nil && !apierrors.HasCode(err, 409) {
			return err
		}
	}
	return nil
}

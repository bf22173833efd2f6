package registry

import (
	"fmt"
	"sync"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/budget"
	"kubeplay/core/object"
)

// Admission judges a write against the rest of the cluster, as kube's admission
// plugins do, and may complete the object as kube's mutating plugins do (a Pod's
// tolerations); an error refuses it. It runs where kube's mutating admission
// does: after decoding and defaulting, before validation. obj is nil for a
// delete, old for a create.
type Admission interface {
	Admit(op Operation, t Target, obj, old object.Object) error
}

func (s *Store) admit(op Operation, t Target, obj, old object.Object) error {
	return runAdmission(s.admission, op, t, obj, old)
}

// validate runs the validating plugins of s.validating.
func (s *Store) validate(op Operation, t Target, obj, old object.Object) error {
	return runAdmission(s.validating, op, t, obj, old)
}

// runAdmission runs plugins in order; the first refusal is the answer.
func runAdmission(plugins []Admission, op Operation, t Target, obj, old object.Object) error {
	for _, a := range plugins {
		if err := a.Admit(op, t, obj, old); err != nil {
			return err
		}
	}
	return nil
}

// kindAdmission runs the kinds' own admission (api.Hooks.Admit: a Pod's
// service account, priority and tolerations, a Node's taint) on a create or
// an update of an object itself.
type kindAdmission struct{}

func (kindAdmission) Admit(op Operation, t Target, obj, old object.Object) error {
	h := t.Res.Hooks.Admit
	if h == nil || op == Delete || t.Sub != "" {
		return nil
	}
	if op == Create {
		old = nil
	}
	return h(t.Name, obj, old)
}

// immortalNamespaces may not be deleted.
var immortalNamespaces = map[string]bool{"default": true, "kube-public": true, "kube-system": true}

// namespaceLifecycle is kube's NamespaceLifecycle admission: content is created
// only in a namespace that exists and is not terminating, and the system
// namespaces are never deleted.
type namespaceLifecycle struct {
	store *Store
	// states caches whether a namespace, as stored, is terminating, so that
	// creating into it does not decode the namespace every time.
	states sync.Map // name → namespaceState
}

type namespaceState struct {
	stored      string
	terminating bool
}

func newNamespaceLifecycle(s *Store) *namespaceLifecycle { return &namespaceLifecycle{store: s} }

func (n *namespaceLifecycle) Admit(op Operation, t Target, _, _ object.Object) error {
	switch {
	case op == Delete && t.Res.Group == "" && t.Res.Plural == "namespaces" && immortalNamespaces[t.Name]:
		return apierrors.NewForbidden("", "namespaces", t.Name, "this namespace may not be deleted")
	case op != Create || !t.Res.Namespaced:
		return nil
	}
	ns := t.Namespace
	stored, ok := n.store.storage.Get(objectKey(n.store.namespaces(), "", ns))
	if !ok {
		n.states.Delete(ns)
		return apierrors.NewNotFound("", "namespaces", ns)
	}
	terminating, err := n.terminating(ns, stored)
	if err != nil {
		return apierrors.NewInternal(err)
	}
	if terminating {
		return apierrors.NewForbidden(t.Res.Group, t.Res.Plural, t.Name,
			fmt.Sprintf("unable to create new content in namespace %s because it is being terminated", ns),
			apierrors.StatusCause{Type: "NamespaceTerminating", Message: fmt.Sprintf("namespace %s is being terminated", ns), Field: "metadata.namespace"})
	}
	return nil
}

func (n *namespaceLifecycle) terminating(ns string, stored []byte) (bool, error) {
	if v, ok := n.states.Load(ns); ok {
		if st := v.(namespaceState); st.stored == string(stored) {
			return st.terminating, nil
		}
	}
	obj, err := object.Decode(stored)
	if err != nil {
		return false, err
	}
	terminating := object.Meta(obj)["deletionTimestamp"] != nil
	n.states.Store(ns, namespaceState{stored: string(stored), terminating: terminating})
	return terminating, nil
}

// systemNamespaces exist from the start, as on a new cluster.
var systemNamespaces = []string{"default", "kube-node-lease", "kube-public", "kube-system"}

func (s *Store) namespaces() *api.Resource { return s.schema.Lookup("", "v1", "namespaces") }

// CreateSystemNamespaces creates the system namespaces that are missing.
func (s *Store) CreateSystemNamespaces() error {
	res := s.namespaces()
	for _, name := range systemNamespaces {
		if _, ok := s.storage.Get(objectKey(res, "", name)); ok {
			continue
		}
		obj := object.Object{"metadata": map[string]any{"name": name}}
		if _, err := s.Create(Target{Res: res, Manager: "kube-apiserver"}, obj); err != nil && !apierrors.HasCode(err, 409) {
			return err
		}
	}
	return nil
}

// podBudget refuses a Pod past the sandbox's budget of them (0: none), as
// kube's ResourceQuota admission refuses one past a quota of pods.
type podBudget struct {
	store *Store
	limit int64
}

func (b podBudget) Admit(op Operation, t Target, _, _ object.Object) error {
	if b.limit <= 0 || op != Create || t.Res.Group != "" || t.Res.Plural != "pods" || t.Sub != "" {
		return nil
	}
	if used := b.store.Count(t.Res); used+1 > b.limit {
		return budget.Exceeded("", "pods", t.Name, budget.ResourcePods, 1, used, b.limit)
	}
	return nil
}

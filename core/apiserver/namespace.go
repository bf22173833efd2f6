package apiserver

import (
	"fmt"

	"kubeplay/core/apierrors"
	"kubeplay/core/object"
	"kubeplay/core/schema"
	"kubeplay/core/storage"
)

// systemNamespaces exist from the start, as on a new cluster.
var systemNamespaces = []string{"default", "kube-node-lease", "kube-public", "kube-system"}

// immortalNamespaces may not be deleted (kube's NamespaceLifecycle admission).
var immortalNamespaces = map[string]bool{"default": true, "kube-public": true, "kube-system": true}

func (s *Server) namespaces() *schema.Resource { return s.registry.Lookup("", "v1", "namespaces") }

// bootstrap creates the system namespaces that are missing.
func (s *Server) bootstrap() error {
	res := s.namespaces()
	for _, name := range systemNamespaces {
		if _, ok := s.store.Get(objectKey(res, "", name)); ok {
			continue
		}
		obj := object.Object{"metadata": map[string]any{"name": name}}
		t := target{res: res, name: name}
		if err := s.prepareNew(obj, t); err != nil {
			return err
		}
		_, _, err := s.store.Mutate(objectKey(res, "", name), func(cur []byte, rev int64) (storage.Change, error) {
			object.SetResourceVersion(obj, rev)
			b, err := object.Encode(obj)
			return storage.Change{Op: storage.Put, Value: b}, err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// checkNamespaceOpen is kube's NamespaceLifecycle admission for creates: the
// namespace must exist and not be terminating.
func (s *Server) checkNamespaceOpen(ns string, res *schema.Resource, name string) error {
	val, ok := s.store.Get(objectKey(s.namespaces(), "", ns))
	if !ok {
		s.nsStates.Delete(ns)
		return apierrors.NewNotFound("", "namespaces", ns)
	}
	terminating, err := s.namespaceTerminating(ns, val)
	if err != nil {
		return apierrors.NewInternal(err)
	}
	if terminating {
		return apierrors.NewForbidden(res.Group, res.Plural, name,
			fmt.Sprintf("unable to create new content in namespace %s because it is being terminated", ns),
			apierrors.StatusCause{Type: "NamespaceTerminating", Message: fmt.Sprintf("namespace %s is being terminated", ns), Field: "metadata.namespace"})
	}
	return nil
}

// namespaceState caches whether a namespace, as stored, is terminating, so that
// creating into it does not decode the namespace every time.
type namespaceState struct {
	stored      string
	terminating bool
}

func (s *Server) namespaceTerminating(ns string, stored []byte) (bool, error) {
	if v, ok := s.nsStates.Load(ns); ok {
		if st := v.(namespaceState); st.stored == string(stored) {
			return st.terminating, nil
		}
	}
	obj, err := object.Decode(stored)
	if err != nil {
		return false, err
	}
	terminating := object.Meta(obj)["deletionTimestamp"] != nil
	s.nsStates.Store(ns, namespaceState{stored: string(stored), terminating: terminating})
	return terminating, nil
}

package apiserver

import (
	"context"
	"fmt"
	"time"

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
		return errNotFound("", "namespaces", ns)
	}
	terminating, err := s.namespaceTerminating(ns, val)
	if err != nil {
		return errInternal(err)
	}
	if terminating {
		return errForbidden(res.Group, res.Plural, name,
			fmt.Sprintf("unable to create new content in namespace %s because it is being terminated", ns),
			StatusCause{Type: "NamespaceTerminating", Message: fmt.Sprintf("namespace %s is being terminated", ns), Field: "metadata.namespace"})
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

// runNamespaceController finishes namespace deletions, as kube's namespace
// controller does: it deletes everything in a terminating namespace, and once the
// namespace is empty removes the "kubernetes" finalizer and the namespace itself.
func (s *Server) runNamespaceController(ctx context.Context) {
	res := s.namespaces()
	w, err := s.store.Watch(storage.WatchOptions{Prefix: collectionPrefix(res, ""), Initial: true})
	if err != nil {
		return
	}
	defer w.Stop()
	// Content with finalizers can hold a namespace; look again every second while
	// one is terminating. With none, nothing ticks, so an idle host can sleep.
	var resync *time.Ticker
	defer func() {
		if resync != nil {
			resync.Stop()
		}
	}()
	events := make(chan *storage.Event)
	go func() {
		defer close(events)
		for {
			ev, err := w.Next(ctx)
			if err != nil {
				return
			}
			select {
			case events <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	terminating := map[string]bool{}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			obj, err := object.Decode(ev.Object)
			if err != nil {
				continue
			}
			name := object.MetaString(obj, "name")
			if ev.Type != storage.Deleted && object.Meta(obj)["deletionTimestamp"] != nil {
				terminating[name] = true
			} else {
				delete(terminating, name)
			}
		case <-tickOf(resync):
		}
		for name := range terminating {
			if s.finalizeNamespace(name) {
				delete(terminating, name)
			}
		}
		switch {
		case len(terminating) > 0 && resync == nil:
			resync = time.NewTicker(time.Second)
		case len(terminating) == 0 && resync != nil:
			resync.Stop()
			resync = nil
		}
	}
}

// tickOf is t's channel, or nil (never ready) without a ticker.
func tickOf(t *time.Ticker) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.C
}

// finalizeNamespace deletes the content of a terminating namespace and, when none
// is left, the namespace. It reports whether the namespace is gone.
func (s *Server) finalizeNamespace(ns string) bool {
	remaining := 0
	for _, res := range s.registry.All() {
		if !res.Namespaced {
			continue
		}
		list, err := s.store.List(storage.ListOptions{Prefix: collectionPrefix(res, ns)})
		if err != nil {
			remaining++
			continue
		}
		t := target{res: res, namespace: ns}
		for _, it := range list.Items {
			obj, err := object.Decode([]byte(it.Value))
			if err != nil {
				continue
			}
			if _, gone, err := s.deleteObject(t, object.MetaString(obj, "name"), &deleteOptions{}); err != nil || !gone {
				remaining++
			}
		}
	}
	if remaining > 0 {
		return false
	}
	res := s.namespaces()
	_, _, err := s.store.Mutate(objectKey(res, "", ns), func(cur []byte, rev int64) (storage.Change, error) {
		if cur == nil {
			return storage.Change{Op: storage.Keep}, nil
		}
		obj, err := object.Decode(cur)
		if err != nil {
			return storage.Change{}, err
		}
		spec, _ := obj["spec"].(map[string]any)
		held := len(object.Strings(object.Meta(obj), "finalizers")) > 0
		if held && len(object.Strings(spec, "finalizers")) == 0 {
			return storage.Change{Op: storage.Keep}, nil // waiting for metadata.finalizers
		}
		if spec != nil {
			delete(spec, "finalizers")
		}
		object.SetResourceVersion(obj, rev)
		b, err := object.Encode(obj)
		if err != nil {
			return storage.Change{}, err
		}
		if held {
			return storage.Change{Op: storage.Put, Value: b}, nil
		}
		return storage.Change{Op: storage.Delete, Value: b}, nil
	})
	return err == nil
}

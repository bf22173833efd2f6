package controllers

import (
	"sync"

	"kubeplay/core/client"
	"kubeplay/core/user"
	"kubeplay/core/web"
)

// NewClient is a client of h acting as kube-controller-manager's controller
// name does (--use-service-account-credentials): as the service account
// kube-system/name, e.g. system:serviceaccount:kube-system:deployment-controller.
func NewClient(h web.Handler, name string) *client.Client {
	return client.New(h, user.ServiceAccount("kube-system", name), UserAgent+" "+name)
}

// Expectations remember what a controller's own writes must look like in its
// informers before it acts on a key again, as kube's ControllerExpectations
// do: a ReplicaSet that has just created two Pods waits until its Pod informer
// has seen them, rather than counting them missing and creating two more.
type Expectations struct {
	mu sync.Mutex
	m  map[string][]func() bool
}

// NewExpectations is an empty set.
func NewExpectations() *Expectations { return &Expectations{m: map[string][]func() bool{}} }

// Seer is an informer, as far as Expectations need it.
type Seer interface{ Seen(rv string) bool }

// Written expects inf to reflect a write that stored resourceVersion rv
// before key is worked on.
func (e *Expectations) Written(key string, inf Seer, rv string) {
	e.Expect(key, func() bool { return inf.Seen(rv) })
}

// Deleted expects inf to have seen obj deleted, or being deleted, before key
// is worked on.
func Deleted[T any, P typed[T]](e *Expectations, key string, inf *client.TypedInformer[P], obj P) {
	meta := obj.object().Metadata
	e.Expect(key, func() bool {
		cur, ok := inf.Get(meta.Key())
		return !ok || cur.object().Metadata.UID != meta.UID || cur.object().Metadata.DeletionTimestamp != ""
	})
}

// Expect expects met to hold before key is worked on.
func (e *Expectations) Expect(key string, met func() bool) {
	e.mu.Lock()
	e.m[key] = append(e.m[key], met)
	e.mu.Unlock()
}

// Satisfied says whether everything expected for key has been seen.
func (e *Expectations) Satisfied(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	pending := e.m[key][:0]
	for _, met := range e.m[key] {
		if !met() {
			pending = append(pending, met)
		}
	}
	if len(pending) == 0 {
		delete(e.m, key)
		return true
	}
	e.m[key] = pending
	return false
}

// Waiting says whether something is expected for key, seen or not yet: an
// informer that brings news of key then brings the controller's own write,
// after which key is to be worked on again.
func (e *Expectations) Waiting(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.m[key]) > 0
}

// Forget drops what was expected for key (its object is gone).
func (e *Expectations) Forget(key string) {
	e.mu.Lock()
	delete(e.m, key)
	e.mu.Unlock()
}

package controllers

import (
	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/user"
	"kubeplay/core/web"
)

// Base is what each of kube-controller-manager's controllers here is built
// on: a client with its service account's identity, an event recorder, the
// clock, its work queue and its expectations.
type Base struct {
	C      *client.Client
	Events *Recorder
	Clock  clock.Clock
	Queue  *Queue
	Expect *Expectations
}

// NewBase is the base of a controller acting through h as the service
// account kube-system/account, its events from component.
func NewBase(h web.Handler, clk clock.Clock, account, component string) Base {
	c := NewClient(h, account)
	return Base{C: c, Events: NewRecorder(c, clk, component, ""), Clock: clk, Queue: NewQueue(clk), Expect: NewExpectations()}
}

// Pending is how many keys wait to be synced, now or later: none once the
// controller has settled.
func (b *Base) Pending() int { return b.Queue.Pending() }

// Owners is the informer of a controller's own objects at path (kube's
// "owner" informer): indexed by uid, each change queueing the object's key.
func Owners[T any, P typed[T]](b Base, path string) *client.TypedInformer[P] {
	return client.NewTypedInformer(b.C, path, Codec[T, P](), OnChange(QueueKey[T, P](b.Queue)),
		map[string]func(P) []string{"uid": ByUID[T, P]}, b.Clock)
}

// Owned is the informer of the objects at path that owners control: indexed by
// controller, each change queueing its controller's key.
func Owned[T any, P typed[T], O any, OP typed[O]](b Base, path string, owners *client.TypedInformer[OP]) *client.TypedInformer[P] {
	return client.NewTypedInformer(b.C, path, Codec[T, P](), OnChange(QueueController[T, P](b.Queue, owners)),
		map[string]func(P) []string{"controller": ByController[T, P]}, b.Clock)
}

// SharedInformerClient is the client of kube-controller-manager's shared
// informers: they list and watch as the controller manager itself
// (system:kube-controller-manager), whose role may list what a
// controller's own role may not.
func SharedInformerClient(h web.Handler) *client.Client {
	return client.New(h, user.User{Name: "system:kube-controller-manager", Groups: []string{user.AllAuthenticated}}, UserAgent+" shared-informers")
}

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
// "owner" informer): indexed by uid and namespace, each change queueing the
// object's key.
func Owners[T any, P typed[T]](b Base, path string) *client.TypedInformer[P] {
	return OwnersOf(b, path, Codec[T, P]())
}

// OwnersOf is Owners reading its objects with codec.
func OwnersOf[P interface{ object() *Object }](b Base, path string, codec client.Codec[P]) *client.TypedInformer[P] {
	return client.NewTypedInformer(b.C, path, codec, OnChange(func(p P) { b.Queue.Add(p.object().Metadata.Key()) }),
		map[string]func(P) []string{"uid": func(p P) []string { return []string{p.object().Metadata.UID} },
			"namespace": func(p P) []string { return []string{p.object().Metadata.Namespace} }}, b.Clock)
}

// Owned is the informer of the objects at path that owners control: indexed by
// controller, each change queueing its controller's key.
func Owned[T any, P typed[T], O any, OP typed[O]](b Base, path string, owners *client.TypedInformer[OP]) *client.TypedInformer[P] {
	return client.NewTypedInformer(b.C, path, Codec[T, P](), OnChange(QueueController[T, P](b.Queue, owners)),
		map[string]func(P) []string{"controller": ByController[T, P]}, b.Clock)
}

// Claimable is the informer of the objects at path that owners control or
// may adopt (kube's Pods of a ReplicaSet, ReplicaSets of a Deployment):
// indexed by controller and namespace, each change queueing its controller's
// key (the old controller's too when it changed), or for an orphan, the keys
// of the owners in its namespace that selects says select it.
func Claimable[T any, P typed[T], OP interface{ object() *Object }](b Base, path string, owners *client.TypedInformer[OP], selects func(owner OP, labels map[string]string) bool) *client.TypedInformer[P] {
	queue := func(p P) {
		meta := &p.object().Metadata
		if uid := meta.Controller(); uid != "" {
			for _, o := range owners.ByIndex("uid", uid) {
				b.Queue.Add(o.object().Metadata.Key())
			}
			return
		}
		if meta.DeletionTimestamp != "" {
			return
		}
		for _, o := range owners.ByIndex("namespace", meta.Namespace) {
			if selects(o, meta.Labels) {
				b.Queue.Add(o.object().Metadata.Key())
			}
		}
	}
	h := client.TypedHandler[P]{Add: queue, Delete: queue, Update: func(old, cur P) {
		if old.object().Metadata.Controller() != cur.object().Metadata.Controller() {
			queue(old)
		}
		queue(cur)
	}}
	return client.NewTypedInformer(b.C, path, Codec[T, P](), h, map[string]func(P) []string{"controller": ByController[T, P],
		"namespace": func(p P) []string { return []string{p.object().Metadata.Namespace} }}, b.Clock)
}

// SharedInformerClient is the client of kube-controller-manager's shared
// informers: they list and watch as the controller manager itself
// (system:kube-controller-manager), whose role may list what a
// controller's own role may not.
func SharedInformerClient(h web.Handler) *client.Client {
	return client.New(h, user.User{Name: "system:kube-controller-manager", Groups: []string{user.AllAuthenticated}}, UserAgent+" shared-informers")
}

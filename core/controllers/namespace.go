// Package controllers owns the simulated cluster's controllers. Each is an API
// client of the core (core/client) with its own identity, as kube-controller-
// manager's are: its reads and writes go through the handler, so they show in the
// request log, in watches and in API Priority and Fairness exactly as a real
// cluster's do. Nothing ticks when nothing needs doing, so an idle sandbox
// can sleep.
package controllers

import (
	"context"
	"slices"
	"strings"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/object"
	"kubeplay/core/user"
	"kubeplay/core/version"
	"kubeplay/core/web"
)

// UserAgent is how the controllers announce themselves, as kube-controller-manager
// does, with the controller's name after it.
const UserAgent = "kube-controller-manager/" + version.Kubernetes + " (kubeplay)"

// namespaceRetry is how soon a namespace whose content is not gone yet (held by
// finalizers) is looked at again.
const namespaceRetry = time.Second

// Namespace finishes namespace deletions, as kube's namespace controller does:
// once a namespace is terminating it deletes every namespaced resource in it (found
// through discovery), waits while finalizers hold some, then removes the
// "kubernetes" finalizer through the namespace's finalize subresource and deletes
// the namespace again, which removes it.
type Namespace struct {
	c     *client.Client
	clock clock.Clock
}

// NewNamespace is the namespace controller, acting through h as
// system:serviceaccount:kube-system:namespace-controller.
func NewNamespace(h web.Handler, clk clock.Clock) *Namespace {
	return &Namespace{c: client.New(h, user.ServiceAccount("kube-system", "namespace-controller"), UserAgent+" namespace-controller"), clock: clk}
}

// Run works until ctx is done.
func (n *Namespace) Run(ctx context.Context) {
	wake := make(chan struct{}, 1)
	poke := func(obj object.Object) {
		if object.Meta(obj)["deletionTimestamp"] != nil {
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	}
	inf := client.NewInformer(n.c, "/api/v1/namespaces", client.Handler{
		Add:    poke,
		Update: func(_, cur object.Object) { poke(cur) },
	}, nil, n.clock)
	go inf.Run(ctx)

	clock.Loop(ctx, n.clock, wake, namespaceRetry, func() bool {
		waiting := false
		for _, ns := range inf.List() {
			if object.Meta(ns)["deletionTimestamp"] != nil && !n.finish(ctx, ns) {
				waiting = true
			}
		}
		return waiting
	})
}

// finish deletes what is left in a terminating namespace and, once nothing is,
// the namespace. It reports whether it is done with it.
func (n *Namespace) finish(ctx context.Context, ns object.Object) bool {
	ns = object.DeepCopy(ns) // the informer's copy is shared
	name := object.MetaString(ns, "name")
	spec, _ := ns["spec"].(map[string]any)
	finalizers := object.Strings(spec, "finalizers")
	if slices.Contains(finalizers, "kubernetes") {
		collections, err := n.namespacedCollections(ctx)
		if err != nil {
			return false
		}
		remaining := 0
		for _, path := range collections {
			p := strings.Replace(path, "{namespace}", name, 1)
			if _, err := n.c.Do(ctx, web.MethodDelete, p, "", nil); err != nil && !client.IsNotFound(err) {
				remaining++
				continue
			}
			list, err := n.c.Get(ctx, p)
			if err != nil {
				remaining++
				continue
			}
			items, _ := list["items"].([]any)
			remaining += len(items)
		}
		if remaining > 0 {
			return false
		}
		spec["finalizers"] = toAny(slices.DeleteFunc(finalizers, func(f string) bool { return f == "kubernetes" }))
		if _, err := n.c.Update(ctx, "/api/v1/namespaces/"+name+"/finalize", ns); err != nil {
			return client.IsNotFound(err)
		}
	}
	_, err := n.c.Delete(ctx, "/api/v1/namespaces/"+name)
	return err == nil || client.IsNotFound(err) || client.IsConflict(err)
}

// namespacedCollections lists, through discovery, the collection path of every
// namespaced resource that can be deleted as a collection, with {namespace} for
// the namespace.
func (n *Namespace) namespacedCollections(ctx context.Context) ([]string, error) {
	versions := []string{"/api/v1"}
	groups, err := n.c.Get(ctx, "/apis")
	if err != nil {
		return nil, err
	}
	list, _ := groups["groups"].([]any)
	for _, g := range list {
		if pv, ok := object.Path(g, "preferredVersion", "groupVersion").(string); ok {
			versions = append(versions, "/apis/"+pv)
		}
	}
	var out []string
	for _, gv := range versions {
		rl, err := n.c.Get(ctx, gv)
		if err != nil {
			return nil, err
		}
		resources, _ := rl["resources"].([]any)
		for _, r := range resources {
			res, _ := r.(map[string]any)
			plural, _ := res["name"].(string)
			namespaced, _ := res["namespaced"].(bool)
			if !namespaced || strings.Contains(plural, "/") || !slices.Contains(object.Strings(res, "verbs"), "deletecollection") {
				continue
			}
			out = append(out, gv+"/namespaces/{namespace}/"+plural)
		}
	}
	return out, nil
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

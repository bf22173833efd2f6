package crd

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/object"
	"kubeplay/core/user"
	"kubeplay/core/version"
	"kubeplay/core/web"
)

// cleanupFinalizer holds a deleted definition until its objects are gone.
const cleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// crds is the collection of CustomResourceDefinitions.
const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// retryAfter is how soon a definition whose step failed is looked at again.
const retryAfter = time.Second

// Controller is kube's apiextensions controllers in one: it accepts a
// definition's names (unless another definition of the group has them),
// serves its versions in the API registry (core/api) and marks it Established, stops
// serving what it no longer serves, and finishes the deletion of a deleted
// definition by deleting its objects, then its cleanup finalizer. It acts
// through the handler as the API server's loopback client does.
type Controller struct {
	c        *client.Client
	registry *api.Registry
	clock    clock.Clock

	mu     sync.Mutex                 // guards served: the loop and the informer's handler change it
	served map[string][]*api.Resource // by definition name
}

// NewController is the controller of reg's custom resources, acting through h.
func NewController(h web.Handler, reg *api.Registry, clk clock.Clock) *Controller {
	u := user.User{Name: "system:apiserver", UID: "kubeplay-apiserver", Groups: []string{"system:masters", "system:authenticated"}}
	return &Controller{c: client.New(h, u, "kube-apiserver/"+version.Kubernetes+" (kubeplay)"), registry: reg, clock: clk, served: map[string][]*api.Resource{}}
}

// Restore serves the established definitions among stored, at once, as kube
// serves its definitions when it starts: a restarted sandbox answers for its
// custom resources before the controller has run.
func (c *Controller) Restore(stored []object.Object) {
	for _, obj := range stored {
		if d, err := Read(obj); err == nil && d.established() {
			c.serve(d)
		}
	}
}

// Run works until ctx is done.
func (c *Controller) Run(ctx context.Context) {
	wake := make(chan struct{}, 1)
	poke := func(object.Object) {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	inf := client.NewInformer(c.c, crds, client.Handler{
		Add: poke, Update: func(_, cur object.Object) { poke(cur) },
		Delete: func(obj object.Object) {
			if d, err := Read(obj); err == nil {
				c.unserve(d.Metadata.Name, nil)
			}
			poke(obj)
		},
	}, nil, c.clock)
	go inf.Run(ctx)
	clock.Loop(ctx, c.clock, wake, retryAfter, func() bool {
		pending := false
		all := inf.List()
		for _, obj := range all {
			if !c.sync(ctx, obj, all) {
				pending = true
			}
		}
		return pending
	})
}

// sync brings one definition where it should be, and says whether it is
// done with it.
func (c *Controller) sync(ctx context.Context, obj object.Object, all []object.Object) bool {
	d, err := Read(obj)
	if err != nil {
		return true
	}
	if object.Meta(obj)["deletionTimestamp"] != nil {
		return c.finish(ctx, obj, d)
	}
	if d.established() && sameNames(d.Status.AcceptedNames, d.Spec.Names) {
		c.serve(d)
		return true
	}
	obj = object.DeepCopy(obj)
	status, _ := obj["status"].(map[string]any)
	now := c.clock.Now().UTC().Format(time.RFC3339)
	if conflict := c.conflict(d, all); conflict != "" {
		setCondition(status, "NamesAccepted", "False", "NameConflict", conflict, now)
		setCondition(status, "Established", "False", "NotAccepted", "not all names are accepted", now)
	} else {
		status["acceptedNames"] = object.DeepCopyValue(obj["spec"].(map[string]any)["names"])
		d.Status.AcceptedNames = d.Spec.Names
		c.serve(d)
		setCondition(status, "NamesAccepted", "True", "NoConflicts", "no conflicts found", now)
		setCondition(status, "Established", "True", "InitialNamesAccepted", "the initial names have been accepted", now)
	}
	_, err = c.c.Update(ctx, crds+"/"+d.Metadata.Name+"/status", obj)
	return err == nil || client.IsNotFound(err)
}

func sameNames(a, b Names) bool {
	return a.Plural == b.Plural && a.Kind == b.Kind && a.ListKind == b.ListKind && a.Singular == b.Singular &&
		slices.Equal(a.ShortNames, b.ShortNames) && slices.Equal(a.Categories, b.Categories)
}

// conflict says which of d's names another definition of its group
// accepted already, as kube's naming controller does.
func (c *Controller) conflict(d *Definition, all []object.Object) string {
	for _, obj := range all {
		o, err := Read(obj)
		if err != nil || o.Metadata.Name == d.Metadata.Name || o.Spec.Group != d.Spec.Group {
			continue
		}
		n := o.Status.AcceptedNames
		switch {
		case n.Plural == d.Spec.Names.Plural:
			return fmt.Sprintf("%q is already in use", d.Spec.Names.Plural)
		case n.Kind == d.Spec.Names.Kind:
			return fmt.Sprintf("%q is already in use", d.Spec.Names.Kind)
		}
	}
	return ""
}

// setCondition sets one of a definition's status conditions, keeping its
// lastTransitionTime when its status does not change.
func setCondition(status map[string]any, typ, value, reason, message, now string) {
	conds, _ := status["conditions"].([]any)
	cond := map[string]any{"type": typ, "status": value, "lastTransitionTime": now, "reason": reason, "message": message}
	for i, cur := range conds {
		if object.Path(cur, "type") == typ {
			if object.Path(cur, "status") == value {
				cond["lastTransitionTime"] = object.Path(cur, "lastTransitionTime")
			}
			conds[i] = cond
			return
		}
	}
	status["conditions"] = append(conds, cond)
}

// serve serves d's versions, and stops serving those it no longer serves.
func (c *Controller) serve(d *Definition) {
	rs := d.Resources()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unserveLocked(d.Metadata.Name, rs)
	for _, r := range rs {
		c.registry.Add(r)
	}
	c.served[d.Metadata.Name] = rs
}

// unserve stops serving the resources of the definition name that keep does
// not hold.
func (c *Controller) unserve(name string, keep []*api.Resource) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unserveLocked(name, keep)
}

func (c *Controller) unserveLocked(name string, keep []*api.Resource) {
	for _, r := range c.served[name] {
		if !slices.ContainsFunc(keep, func(k *api.Resource) bool {
			return k.Group == r.Group && k.Version == r.Version && k.Plural == r.Plural
		}) {
			c.registry.Remove(r.Group, r.Version, r.Plural)
		}
	}
	delete(c.served, name)
}

// finish deletes a deleted definition's objects, then its cleanup finalizer;
// it says whether it is done.
func (c *Controller) finish(ctx context.Context, obj object.Object, d *Definition) bool {
	finalizers := object.Strings(object.Meta(obj), "finalizers")
	if !slices.Contains(finalizers, cleanupFinalizer) {
		return true
	}
	var storage *Version
	for i, v := range d.Spec.Versions {
		if v.Storage {
			storage = &d.Spec.Versions[i]
		}
	}
	if storage != nil && d.Status.AcceptedNames.Plural != "" {
		list := "/apis/" + d.Spec.Group + "/" + storage.Name + "/" + d.Status.AcceptedNames.Plural
		l, err := c.c.Get(ctx, list)
		if err != nil && !client.IsNotFound(err) {
			return false
		}
		items, _ := l["items"].([]any)
		for _, it := range items {
			p := list
			if ns := object.MetaString(it.(map[string]any), "namespace"); ns != "" {
				p = "/apis/" + d.Spec.Group + "/" + storage.Name + "/namespaces/" + ns + "/" + d.Status.AcceptedNames.Plural
			}
			if _, err := c.c.Delete(ctx, p+"/"+object.MetaString(it.(map[string]any), "name")); err != nil && !client.IsNotFound(err) {
				return false
			}
		}
		if l, err := c.c.Get(ctx, list); err == nil {
			if items, _ := l["items"].([]any); len(items) > 0 {
				return false // held by their finalizers
			}
		}
	}
	obj = object.DeepCopy(obj)
	object.Meta(obj)["finalizers"] = toAny(slices.DeleteFunc(finalizers, func(f string) bool { return f == cleanupFinalizer }))
	_, err := c.c.Update(ctx, crds+"/"+d.Metadata.Name, obj)
	if err == nil || client.IsNotFound(err) {
		c.unserve(d.Metadata.Name, nil)
		return true
	}
	return false
}

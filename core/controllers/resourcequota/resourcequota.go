// Package resourcequota is kube-controller-manager's resource quota
// controller (pkg/controller/resourcequota) as an API client of the core,
// acting as system:serviceaccount:kube-system:resourcequota-controller: it
// keeps each ResourceQuota's status — the limits in force (status.hard,
// spec.hard's) and what is used of them (status.used, counted as
// core/quota counts) — so that the ResourceQuota admission enforces the
// quota, and frees what deleted objects used.
//
// A quota is counted when it is created, when its spec.hard changes, and
// when something it counts is deleted or changes so that it may count less
// (a Pod that finishes, a Service that changes type: kube's replenishment).
// What its namespace's admission charged is counted again once, a sync
// period (kube's --resource-quota-sync-period, 5 minutes) after it last
// did, or after someone else wrote its status: kube recounts every quota
// each period, which corrects what writes charged and then failed to store,
// and resets a status changed by hand; here nothing is timed while nothing
// changes. The objects of a resource are watched once a quota counts them
// (kube's quota monitors watch every resource from the start).
package resourcequota

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/quota"
	"kubeplay/core/web"
)

// SyncPeriod is how long after its namespace's admission charged a quota it
// is counted again (kube-controller-manager's --resource-quota-sync-period).
const SyncPeriod = 5 * time.Minute

// Controller keeps ResourceQuotas' status.
type Controller struct {
	c      *client.Client
	clock  clock.Clock
	queue  *controllers.Queue
	quotas *client.Informer

	mu      sync.Mutex
	ctx     context.Context       // Run's, for the watches started later
	watched map[string]watch      // by group/resource: the objects counted
	written map[string]quota.List // by quota: the usage last counted
}

// watch is the watch of the objects of one resource.
type watch struct {
	base     string // the group version's path: /api/v1, /apis/apps/v1
	informer *client.Informer
}

// byNamespace is the index of quotas by namespace.
var byNamespace = map[string]client.IndexFunc{"namespace": func(o object.Object) []string {
	return []string{object.MetaString(o, "namespace")}
}}

// New is the resource quota controller, acting through h.
func New(h web.Handler, clk clock.Clock) *Controller {
	rq := &Controller{c: controllers.NewClient(h, "resourcequota-controller"), clock: clk, queue: controllers.NewQueue(clk),
		watched: map[string]watch{}, written: map[string]quota.List{}}
	rq.quotas = client.NewInformer(rq.c, "/api/v1/resourcequotas", client.Handler{
		Add: func(q object.Object) { rq.queue.Add(client.Key(q)) },
		Delete: func(q object.Object) {
			rq.mu.Lock()
			delete(rq.written, client.Key(q))
			rq.mu.Unlock()
		},
		Update: func(old, q object.Object) {
			was, is := quota.Read(old), quota.Read(q)
			switch {
			case !quota.Equal(was.Hard, is.Hard):
				rq.queue.Add(client.Key(q))
			case !quota.Equal(was.Used, is.Used) && !rq.wrote(q),
				!quota.Equal(was.StatusHard, is.StatusHard) && !quota.Equal(is.StatusHard, is.Hard):
				rq.queue.AddAfter(client.Key(q), SyncPeriod)
			}
		},
	}, byNamespace, clk)
	return rq
}

// wrote says whether q's usage is what the controller last counted.
func (rq *Controller) wrote(q object.Object) bool {
	rq.mu.Lock()
	defer rq.mu.Unlock()
	used, ok := rq.written[client.Key(q)]
	return ok && quota.Equal(used, quota.Read(q).Used)
}

// Pending is how many quotas wait to be counted, now or later.
func (rq *Controller) Pending() int { return rq.queue.Pending() }

// Run works until ctx is done.
func (rq *Controller) Run(ctx context.Context) {
	rq.mu.Lock()
	rq.ctx = ctx
	rq.mu.Unlock()
	controllers.Run(ctx, rq.queue, rq.sync, rq.quotas)
}

// sync counts the quota key names and writes its status if it changed. It
// reads the quota and what it counts from the API, not from the informers'
// copies (kube's controller reads its listers): a copy that has not yet seen
// a charge would leave the charge in place.
func (rq *Controller) sync(ctx context.Context, key string) error {
	ns, name, _ := strings.Cut(key, "/")
	path := "/api/v1/namespaces/" + ns + "/resourcequotas/" + name
	obj, err := rq.c.Get(ctx, path)
	if client.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	q := quota.Read(obj)
	names := q.Hard.Names()
	counted := quota.List{}
	var matched []string
	for _, gr := range quota.Counted(names) {
		group, resource, _ := strings.Cut(gr, "/")
		e, ok := quota.For(group, resource)
		limited := e.Matching(names)
		if !ok || len(limited) == 0 {
			continue
		}
		objects, err := rq.objects(ctx, group, resource, ns)
		if err != nil {
			return err
		}
		if objects == nil {
			continue // not served
		}
		usage := quota.List{}
		for _, r := range limited {
			usage[r] = "0"
		}
		for _, o := range objects {
			if inScopes(e, q.Scopes, o) {
				usage = quota.Add(usage, e.Usage(o, rq.clock.Now()))
			}
		}
		counted = quota.Add(counted, usage.Mask(limited))
		matched = append(matched, limited...)
	}
	used := quota.List{}
	for k, v := range q.Used {
		used[k] = v
	}
	for k, v := range counted.Mask(matched) {
		used[k] = v
	}
	used = used.Mask(names)
	status, _ := obj["status"].(map[string]any)
	if status["hard"] != nil && status["used"] != nil && quota.Equal(q.Hard, q.StatusHard) && quota.Equal(used, q.Used) {
		return nil
	}
	rq.mu.Lock()
	rq.written[key] = used
	rq.mu.Unlock()
	obj["status"] = map[string]any{"hard": listValue(q.Hard), "used": listValue(used)}
	_, err = rq.c.Update(ctx, path+"/status", obj)
	if client.IsNotFound(err) {
		return nil
	}
	return err
}

// inScopes says whether o is in every scope of a quota.
func inScopes(e quota.Evaluator, scopes []quota.Requirement, o object.Object) bool {
	for _, r := range scopes {
		if !e.InScope(r, o) {
			return false
		}
	}
	return true
}

// listValue is a List as a JSON object holds it.
func listValue(l quota.List) map[string]any {
	out := make(map[string]any, len(l))
	for k, v := range l {
		out[k] = v
	}
	return out
}

// objects are the objects of resource in group in namespace ns, listed
// once their watch (started the first time a quota counts them: its
// deletions and changes replenish quotas) has its first list in; nil when
// discovery does not show the resource served, namespaced, listed, watched
// and deleted (asked again each time, so a resource served later is counted
// then).
func (rq *Controller) objects(ctx context.Context, group, resource, ns string) ([]object.Object, error) {
	gr := group + "/" + resource
	rq.mu.Lock()
	w, ok := rq.watched[gr]
	rq.mu.Unlock()
	if !ok {
		base, err := rq.discover(ctx, group, resource)
		if base == "" || err != nil {
			return nil, err
		}
		e, _ := quota.For(group, resource)
		replenish := func(o object.Object) { rq.replenish(e, object.MetaString(o, "namespace")) }
		h := client.Handler{Delete: replenish, Update: func(old, o object.Object) {
			if e.Frees(old, o, rq.clock.Now()) {
				replenish(o)
			}
		}}
		w = watch{base: base, informer: client.NewInformer(rq.c, base+"/"+resource, h, nil, rq.clock)}
		rq.mu.Lock()
		if cur, ok := rq.watched[gr]; ok {
			w = cur
		} else {
			rq.watched[gr] = w
			go w.informer.Run(rq.ctx)
		}
		rq.mu.Unlock()
	}
	if !controllers.Synced(ctx, w.informer) {
		return nil, ctx.Err()
	}
	list, err := rq.c.Get(ctx, w.base+"/namespaces/"+ns+"/"+resource)
	if err != nil {
		return nil, err
	}
	return object.Objects(list, "items"), nil
}

// replenish queues the quotas of namespace ns that limit what e counts.
func (rq *Controller) replenish(e quota.Evaluator, ns string) {
	for _, q := range rq.quotas.ByIndex("namespace", ns) {
		if len(e.Matching(quota.Read(q).StatusHard.Names())) > 0 {
			rq.queue.Add(client.Key(q))
		}
	}
}

// discover is the path of the group version that serves resource in group
// (its preferred version, as discovery lists it); "" when it is not served
// as a quota can count it.
func (rq *Controller) discover(ctx context.Context, group, resource string) (string, error) {
	gv := "v1"
	base := "/api/v1"
	if group != "" {
		body, err := rq.c.Do(ctx, web.MethodGet, "/apis/"+group, "", nil)
		if client.IsNotFound(err) {
			return "", nil
		} else if err != nil {
			return "", err
		}
		var g struct {
			PreferredVersion struct{ GroupVersion string }
		}
		if err := json.Unmarshal(body, &g); err != nil {
			return "", err
		}
		gv = g.PreferredVersion.GroupVersion
		base = "/apis/" + gv
	}
	body, err := rq.c.Do(ctx, web.MethodGet, base, "", nil)
	if client.IsNotFound(err) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	var list struct {
		Resources []struct {
			Name       string
			Namespaced bool
			Verbs      []string
		}
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return "", err
	}
	for _, r := range list.Resources {
		if r.Name == resource && r.Namespaced && slices.Contains(r.Verbs, "create") && slices.Contains(r.Verbs, "list") &&
			slices.Contains(r.Verbs, "watch") && slices.Contains(r.Verbs, "delete") {
			return base, nil
		}
	}
	return "", nil
}

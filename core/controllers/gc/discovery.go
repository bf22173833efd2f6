package gc

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	"kubeplay/core/client"
	"kubeplay/core/object"
	"kubeplay/core/web"
)

// aggregatedDiscovery is the media type of aggregated discovery.
const aggregatedDiscovery = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// kind is a served kind as discovery describes it.
type kind struct {
	apiVersion, kind string
	plural           string
	namespaced       bool
	gcable           bool // listed, watched and deleted: the garbage collector watches it
}

// kinds map "apiVersion/kind" to the served kind.
type kinds map[string]kind

// collection is the path of k's collection in namespace ns ("" for all
// namespaces, and for cluster-scoped kinds).
//
//go:noinline
func (k kind) collection(ns string) string {
	p := "/apis/" + k.apiVersion
	if k.apiVersion == "v1" {
		p = "/api/v1"
	}
	if k.namespaced && ns != "" {
		p += "/namespaces/" + ns
	}
	return p + "/" + k.plural
}

// path is the path of the object id names, as a kind k.
//
//go:noinline
func (k kind) path(id identity) string { return k.collection(id.Namespace) + "/" + id.Name }

// discover reads aggregated discovery: every served kind.
func (gc *GarbageCollector) discover(ctx context.Context) (kinds, error) {
	c := gc.plain.WithHeader("Accept", aggregatedDiscovery)
	out := kinds{}
	for _, root := range []string{"/api", "/apis"} {
		body, err := c.Do(ctx, web.MethodGet, root, "", nil)
		if err != nil {
			return nil, err
		}
		var doc struct {
			Items []struct {
				Metadata struct{ Name string }
				Versions []struct {
					Version   string
					Resources []struct {
						Resource     string
						ResponseKind struct{ Kind string }
						Scope        string
						Verbs        []string
					}
				}
			}
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			return nil, err
		}
		for _, g := range doc.Items {
			for i, v := range g.Versions {
				apiVersion := v.Version
				if g.Metadata.Name != "" {
					apiVersion = g.Metadata.Name + "/" + v.Version
				}
				for _, r := range v.Resources {
					k := kind{apiVersion: apiVersion, kind: r.ResponseKind.Kind, plural: r.Resource, namespaced: r.Scope == "Namespaced"}
					// The group's preferred version, listed first, is the one
					// watched (kube's GetDeletableResources reads the
					// preferred resources): the objects of a kind served in
					// several versions are watched once.
					k.gcable = i == 0 && slices.Contains(r.Verbs, "delete") && slices.Contains(r.Verbs, "list") && slices.Contains(r.Verbs, "watch")
					out[apiVersion+"/"+k.kind] = k
				}
			}
		}
	}
	return out, nil
}

// monitor is the informer of one collection.
type monitor struct {
	inf    *client.Informer
	cancel context.CancelFunc
}

// rediscover runs discovery, watches every collection the garbage collector
// handles (and stops watching those no longer served), and queues again the
// nodes that were waiting for a kind. It is retried when it fails.
func (gc *GarbageCollector) rediscover(ctx context.Context) {
	found, err := gc.discover(ctx)
	if err != nil {
		if ctx.Err() == nil {
			t := gc.clock.NewTimer(firstRetry)
			go func() {
				defer t.Stop()
				select {
				case <-t.C():
					gc.changes.rediscoverLater()
				case <-ctx.Done():
				}
			}()
		}
		return
	}
	gc.kinds = found
	want := map[string]kind{}
	for _, k := range found {
		if k.gcable {
			want[k.collection("")] = k
		}
	}
	for path, m := range gc.monitors {
		if _, ok := want[path]; !ok {
			m.cancel()
			delete(gc.monitors, path)
		}
	}
	// One collection at a time, each listed before the next is: the
	// collector acts only once all are, and a sandbox that starts (or a
	// request that comes meanwhile) competes with one list, not forty, on a
	// host with one thread.
	for _, path := range slices.Sorted(maps.Keys(want)) {
		if _, ok := gc.monitors[path]; ok {
			continue
		}
		m := gc.watch(ctx, path, want[path])
		gc.monitors[path] = m
		select {
		case <-m.inf.Synced():
		case <-ctx.Done():
			return
		}
	}
	gc.toDelete.add(gc.unmapped.order...)
	gc.unmapped.order = nil
}

// watch starts the informer of the collection at path, of kind k, feeding the
// graph. Its CustomResourceDefinitions' changes also run discovery again.
func (gc *GarbageCollector) watch(ctx context.Context, path string, k kind) *monitor {
	ctx, cancel := context.WithCancel(ctx)
	send := func(deleted bool, cur, old object.Object) {
		meta := object.Meta(cur)
		ch := change{deleted: deleted, meta: meta, id: identity{k.apiVersion, k.kind, object.MetaString(cur, "namespace"), object.MetaString(cur, "name"), object.MetaString(cur, "uid")}}
		if old != nil {
			ch.oldMeta = object.Meta(old)
		}
		gc.changes.add(ch)
		if k.apiVersion == "apiextensions.k8s.io/v1" && k.kind == "CustomResourceDefinition" {
			gc.changes.rediscoverLater()
		}
	}
	inf := client.NewInformer(gc.meta, path, client.Handler{
		Add:    func(obj object.Object) { send(false, obj, nil) },
		Update: func(old, cur object.Object) { send(false, cur, old) },
		Delete: func(obj object.Object) { send(true, obj, nil) },
	}, nil, gc.clock)
	go inf.Run(ctx)
	go func() {
		select {
		case <-inf.Synced():
			gc.changes.poke()
		case <-ctx.Done():
		}
	}()
	return &monitor{inf: inf, cancel: cancel}
}

// synced says whether every collection watched has been listed.
func (gc *GarbageCollector) synced() bool {
	for _, m := range gc.monitors {
		select {
		case <-m.inf.Synced():
		default:
			return false
		}
	}
	return true
}

// stopMonitors stops every informer.
func (gc *GarbageCollector) stopMonitors() {
	for _, m := range gc.monitors {
		m.cancel()
	}
}

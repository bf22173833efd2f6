package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strconv"
	"sync"
	"time"

	"kubeplay/core/clock"
	"kubeplay/core/object"
)

// Handler hears about changes to an Informer's collection. Its functions run one
// at a time on the informer's goroutine; any may be nil.
type Handler struct {
	Add    func(obj object.Object)
	Update func(old, cur object.Object)
	Delete func(obj object.Object)
}

// IndexFunc gives the values an object is found under in an index.
type IndexFunc func(obj object.Object) []string

// Informer keeps a local copy of one collection, indexed, and tells its handler
// about every change, as client-go's shared informer does: it lists, then watches
// from the list's resourceVersion with bookmarks; when the watch ends it resumes
// from the last resourceVersion it saw, and when that is too old (410) it lists
// again and tells the handler what the new list changed.
type Informer struct {
	client  *Client
	path    string
	handler Handler
	clock   clock.Clock

	mu       sync.RWMutex
	items    map[string]object.Object // by Key
	indexers map[string]IndexFunc
	indices  map[string]map[string]map[string]bool // index → value → keys
	synced   chan struct{}
	syncOnce sync.Once
	seen     int64 // the newest resourceVersion the copy reflects
}

// retryAfter is how long an informer waits after a list or watch that failed for
// another reason than its context.
const retryAfter = time.Second

// NewInformer is an informer of the collection at path (e.g. /api/v1/namespaces,
// or with a selector: /api/v1/pods?fieldSelector=spec.nodeName%3Dn1).
func NewInformer(c *Client, path string, h Handler, indexers map[string]IndexFunc, clk clock.Clock) *Informer {
	return &Informer{
		client: c, path: path, handler: h, clock: clk,
		items: map[string]object.Object{}, indexers: indexers,
		indices: map[string]map[string]map[string]bool{}, synced: make(chan struct{}),
	}
}

// Key is an object's key in an informer: namespace/name, or name when it has no
// namespace.
func Key(obj object.Object) string {
	if ns := object.MetaString(obj, "namespace"); ns != "" {
		return ns + "/" + object.MetaString(obj, "name")
	}
	return object.MetaString(obj, "name")
}

// Synced is closed once the first list is in.
func (inf *Informer) Synced() <-chan struct{} { return inf.synced }

// Get is the object with key, as last seen.
func (inf *Informer) Get(key string) (object.Object, bool) {
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	obj, ok := inf.items[key]
	return obj, ok
}

// List is every object, by key.
func (inf *Informer) List() []object.Object {
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	return sorted(inf, inf.items)
}

// ByIndex is every object whose index function gave value, by key.
func (inf *Informer) ByIndex(index, value string) []object.Object {
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	return sorted(inf, inf.indices[index][value])
}

// sorted is the objects of keys, by key; called with mu held.
func sorted[V any](inf *Informer, keys map[string]V) []object.Object {
	ks := make([]string, 0, len(keys))
	for k := range keys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	out := make([]object.Object, len(ks))
	for i, k := range ks {
		out[i] = inf.items[k]
	}
	return out
}

// Seen says whether the copy reflects the collection at resourceVersion rv or
// later: a controller that wrote rv knows its informer has seen its own write.
func (inf *Informer) Seen(rv string) bool {
	n, err := strconv.ParseInt(rv, 10, 64)
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	return err == nil && inf.seen >= n
}

// see records that the copy reflects resourceVersion rv.
func (inf *Informer) see(rv string) {
	inf.mu.Lock()
	inf.seeLocked(rv)
	inf.mu.Unlock()
}

func (inf *Informer) seeLocked(rv string) {
	if n, err := strconv.ParseInt(rv, 10, 64); err == nil {
		inf.seen = max(inf.seen, n)
	}
}

// Run keeps the copy until ctx is done.
func (inf *Informer) Run(ctx context.Context) {
	rv := ""
	for ctx.Err() == nil {
		var err error
		if rv == "" {
			rv, err = inf.relist(ctx)
		} else {
			rv, err = inf.watch(ctx, rv)
			if IsGone(err) {
				rv, err = "", nil // too old: list again
			}
		}
		if err != nil && ctx.Err() == nil {
			t := inf.clock.NewTimer(retryAfter)
			select {
			case <-t.C():
			case <-ctx.Done():
				t.Stop()
			}
		}
	}
}

// relist lists the collection, replaces the copy with it and returns the list's
// resourceVersion.
func (inf *Informer) relist(ctx context.Context) (string, error) {
	list, err := inf.client.Get(ctx, inf.path)
	if err != nil {
		return "", err
	}
	items, _ := list["items"].([]any)
	fresh := make(map[string]object.Object, len(items))
	for _, it := range items {
		if obj, ok := it.(map[string]any); ok {
			fresh[Key(obj)] = obj
		}
	}
	inf.mu.RLock()
	var gone []object.Object
	for k, obj := range inf.items {
		if _, ok := fresh[k]; !ok {
			gone = append(gone, obj)
		}
	}
	inf.mu.RUnlock()
	meta, _ := list["metadata"].(map[string]any)
	rv, _ := meta["resourceVersion"].(string)
	for _, obj := range gone {
		inf.apply("DELETED", obj, "")
	}
	for _, obj := range fresh {
		inf.apply("MODIFIED", obj, "")
	}
	inf.see(rv)
	inf.syncOnce.Do(func() { close(inf.synced) })
	return rv, nil
}

// watch follows the collection from rv until the watch ends and returns the last
// resourceVersion it saw; a 410 is returned as an *Error.
func (inf *Informer) watch(ctx context.Context, rv string) (string, error) {
	w, err := inf.client.Watch(ctx, inf.path, "allowWatchBookmarks=true&resourceVersion="+url.QueryEscape(rv))
	if err != nil {
		return rv, err
	}
	defer w.Stop()
	for {
		ev, err := w.Next()
		if errors.Is(err, io.EOF) {
			return rv, nil
		}
		if err != nil {
			return rv, err
		}
		if ev.Type == "ERROR" {
			code, _ := strconv.Atoi(fmt.Sprint(ev.Object["code"]))
			msg, _ := ev.Object["message"].(string)
			reason, _ := ev.Object["reason"].(string)
			return rv, &Error{Code: code, Reason: reason, Message: msg}
		}
		if next := object.MetaString(ev.Object, "resourceVersion"); next != "" {
			rv = next
		}
		if ev.Type != "BOOKMARK" {
			inf.apply(ev.Type, ev.Object, rv)
		} else {
			inf.see(rv)
		}
	}
}

// apply records a change (and, with it, that the copy reflects rv, when not
// "") and tells the handler. A MODIFIED of an unknown object is an add; one
// that changed nothing is not told.
func (inf *Informer) apply(typ string, obj object.Object, rv string) {
	key := Key(obj)
	inf.mu.Lock()
	old, had := inf.items[key]
	if had {
		inf.unindex(key, old)
	}
	if typ == "DELETED" {
		delete(inf.items, key)
	} else {
		inf.items[key] = obj
		inf.index(key, obj)
	}
	inf.seeLocked(rv)
	inf.mu.Unlock()
	h := inf.handler
	switch {
	case typ == "DELETED":
		if had && h.Delete != nil {
			h.Delete(obj)
		}
	case !had:
		if h.Add != nil {
			h.Add(obj)
		}
	case object.MetaString(old, "resourceVersion") != object.MetaString(obj, "resourceVersion"):
		if h.Update != nil {
			h.Update(old, obj)
		}
	}
}

// index and unindex keep the indices; called with mu held.
func (inf *Informer) index(key string, obj object.Object) {
	for name, fn := range inf.indexers {
		idx := inf.indices[name]
		if idx == nil {
			idx = map[string]map[string]bool{}
			inf.indices[name] = idx
		}
		for _, v := range fn(obj) {
			if idx[v] == nil {
				idx[v] = map[string]bool{}
			}
			idx[v][key] = true
		}
	}
}

func (inf *Informer) unindex(key string, obj object.Object) {
	for name, fn := range inf.indexers {
		for _, v := range fn(obj) {
			delete(inf.indices[name][v], key)
			if len(inf.indices[name][v]) == 0 {
				delete(inf.indices[name], v)
			}
		}
	}
}

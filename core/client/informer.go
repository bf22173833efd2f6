package client

import (
	"context"
	"encoding/json"
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

// TypedHandler hears about changes to a TypedInformer's collection. Its
// functions run one at a time on the informer's goroutine; any may be nil.
type TypedHandler[T any] struct {
	Add    func(obj T)
	Update func(old, cur T)
	Delete func(obj T)
}

// Handler hears about changes to an Informer's collection.
type Handler = TypedHandler[object.Object]

// IndexFunc gives the values an object is found under in an index.
type IndexFunc = func(obj object.Object) []string

// Codec is how a TypedInformer reads its objects: decoded from their JSON,
// and their key and resourceVersion.
type Codec[T any] struct {
	Decode  func(data []byte) (T, error)
	Key     func(obj T) string
	Version func(obj T) string
}

// TypedInformer keeps a local copy of one collection, indexed, and tells its
// handler about every change, as client-go's shared informer does: it lists,
// then watches from the list's resourceVersion with bookmarks; when the watch
// ends it resumes from the last resourceVersion it saw, and when that is too
// old (410) it lists again and tells the handler what the new list changed.
// Its objects are of any type a Codec reads (typed structs, or object.Object
// for Informer).
type TypedInformer[T any] struct {
	client  *Client
	path    string
	handler TypedHandler[T]
	codec   Codec[T]
	clock   clock.Clock

	mu       sync.RWMutex
	items    map[string]T
	indexers map[string]func(T) []string
	indices  map[string]map[string]map[string]bool // index → value → keys
	synced   chan struct{}
	syncOnce sync.Once
	seen     int64 // the newest resourceVersion the copy reflects
}

// Informer is a TypedInformer of objects in their JSON form.
type Informer = TypedInformer[object.Object]

// retryAfter is how long an informer waits after a list or watch that failed for
// another reason than its context.
const retryAfter = time.Second

// NewInformer is an informer of the collection at path (e.g. /api/v1/namespaces,
// or with a selector: /api/v1/pods?fieldSelector=spec.nodeName%3Dn1).
func NewInformer(c *Client, path string, h Handler, indexers map[string]IndexFunc, clk clock.Clock) *Informer {
	return NewTypedInformer(c, path, Codec[object.Object]{Decode: object.Decode, Key: Key,
		Version: func(o object.Object) string { return object.MetaString(o, "resourceVersion") }}, h, indexers, clk)
}

// NewTypedInformer is an informer of the collection at path whose objects
// codec reads.
func NewTypedInformer[T any](c *Client, path string, codec Codec[T], h TypedHandler[T], indexers map[string]func(T) []string, clk clock.Clock) *TypedInformer[T] {
	return &TypedInformer[T]{
		client: c, path: path, codec: codec, handler: h, clock: clk,
		items: map[string]T{}, indexers: indexers,
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
func (inf *TypedInformer[T]) Synced() <-chan struct{} { return inf.synced }

// Get is the object with key, as last seen.
func (inf *TypedInformer[T]) Get(key string) (T, bool) {
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	obj, ok := inf.items[key]
	return obj, ok
}

// List is every object, by key.
func (inf *TypedInformer[T]) List() []T {
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	return sorted(inf, inf.items)
}

// ByIndex is every object whose index function gave value, in no
// particular order (a controller sorts what it needs in order).
func (inf *TypedInformer[T]) ByIndex(index, value string) []T {
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	out := make([]T, 0, len(inf.indices[index][value]))
	for k := range inf.indices[index][value] {
		out = append(out, inf.items[k])
	}
	return out
}

// sorted is the objects of keys, by key; called with mu held.
func sorted[T, V any](inf *TypedInformer[T], keys map[string]V) []T {
	ks := make([]string, 0, len(keys))
	for k := range keys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	out := make([]T, len(ks))
	for i, k := range ks {
		out[i] = inf.items[k]
	}
	return out
}

// Seen says whether the copy reflects the collection at resourceVersion rv or
// later: a controller that wrote rv knows its informer has seen its own write.
func (inf *TypedInformer[T]) Seen(rv string) bool {
	n, err := strconv.ParseInt(rv, 10, 64)
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	return err == nil && inf.seen >= n
}

// see records that the copy reflects resourceVersion rv; called with mu held.
func (inf *TypedInformer[T]) see(rv string) {
	if n, err := strconv.ParseInt(rv, 10, 64); err == nil {
		inf.seen = max(inf.seen, n)
	}
}

// Run keeps the copy until ctx is done.
func (inf *TypedInformer[T]) Run(ctx context.Context) {
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
func (inf *TypedInformer[T]) relist(ctx context.Context) (string, error) {
	data, err := inf.client.Do(ctx, "GET", inf.path, "", nil)
	if err != nil {
		return "", err
	}
	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return "", err
	}
	fresh := make(map[string]T, len(list.Items))
	for _, raw := range list.Items {
		if obj, err := inf.codec.Decode(raw); err == nil {
			fresh[inf.codec.Key(obj)] = obj
		}
	}
	inf.mu.RLock()
	var gone []T
	for k, obj := range inf.items {
		if _, ok := fresh[k]; !ok {
			gone = append(gone, obj)
		}
	}
	inf.mu.RUnlock()
	for _, obj := range gone {
		inf.apply("DELETED", obj, "")
	}
	for _, obj := range fresh {
		inf.apply("MODIFIED", obj, "")
	}
	inf.mu.Lock()
	inf.see(list.Metadata.ResourceVersion)
	inf.mu.Unlock()
	inf.syncOnce.Do(func() { close(inf.synced) })
	return list.Metadata.ResourceVersion, nil
}

// watch follows the collection from rv until the watch ends and returns the last
// resourceVersion it saw; a 410 is returned as an *Error.
func (inf *TypedInformer[T]) watch(ctx context.Context, rv string) (string, error) {
	w, err := inf.client.Watch(ctx, inf.path, "allowWatchBookmarks=true&resourceVersion="+url.QueryEscape(rv))
	if err != nil {
		return rv, err
	}
	defer w.Stop()
	for {
		typ, raw, err := w.next()
		if errors.Is(err, io.EOF) {
			return rv, nil
		}
		if err != nil {
			return rv, err
		}
		if typ == "ERROR" {
			var st struct {
				Code            json.Number
				Reason, Message string
			}
			_ = json.Unmarshal(raw, &st)
			code, _ := strconv.Atoi(st.Code.String())
			return rv, &Error{Code: code, Reason: st.Reason, Message: st.Message}
		}
		if typ == "BOOKMARK" {
			var b struct {
				Metadata struct {
					ResourceVersion string `json:"resourceVersion"`
				} `json:"metadata"`
			}
			if json.Unmarshal(raw, &b) == nil && b.Metadata.ResourceVersion != "" {
				rv = b.Metadata.ResourceVersion
				inf.mu.Lock()
				inf.see(rv)
				inf.mu.Unlock()
			}
			continue
		}
		obj, err := inf.codec.Decode(raw)
		if err != nil {
			return rv, fmt.Errorf("client: watch event %s: %w", typ, err)
		}
		if next := inf.codec.Version(obj); next != "" {
			rv = next
		}
		inf.apply(typ, obj, rv)
	}
}

// apply records a change (and, with it, that the copy reflects rv, when not
// "") and tells the handler. A MODIFIED of an unknown object is an add; one
// that changed nothing is not told.
func (inf *TypedInformer[T]) apply(typ string, obj T, rv string) {
	key := inf.codec.Key(obj)
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
	inf.see(rv)
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
	case inf.codec.Version(old) != inf.codec.Version(obj):
		if h.Update != nil {
			h.Update(old, obj)
		}
	}
}

// index and unindex keep the indices; called with mu held.
func (inf *TypedInformer[T]) index(key string, obj T) {
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

func (inf *TypedInformer[T]) unindex(key string, obj T) {
	for name, fn := range inf.indexers {
		for _, v := range fn(obj) {
			delete(inf.indices[name][v], key)
			if len(inf.indices[name][v]) == 0 {
				delete(inf.indices[name], v)
			}
		}
	}
}

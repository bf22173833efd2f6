package registry

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/budget"
	"kubeplay/core/clock"
	"kubeplay/core/object"
	"kubeplay/core/selector"
	"kubeplay/core/storage"
	"kubeplay/core/validation"
)

// The reads: get, list and watch with kube's resourceVersion semantics, as
// k8s.io/apiserver's generic store and its watch cache answer them, and the
// translation of what storage says into kube's Status errors.

// What the registry hands out of storage: a stored object with its key, a
// change a watcher hears, the watcher.
type (
	Item    = storage.Item
	Event   = storage.Event
	Watcher = storage.Watcher
)

// Bookmark is the type of the event that only says a watch reached a revision.
const Bookmark = storage.Bookmark

// ListOptions are a get's, list's or watch's parameters (kube's
// metav1.ListOptions), as the handler parsed and checked them.
type ListOptions struct {
	Labels selector.Labels
	Fields selector.Fields
	Watch  bool
	// ResourceVersion is the raw parameter; RV its value when set and not "0".
	ResourceVersion   string
	RV                int64
	Match             string // resourceVersionMatch
	Limit             int64
	Continue          string
	TimeoutSeconds    *int64
	AllowBookmarks    bool
	SendInitialEvents *bool
}

// filter is the storage filter for the selectors, or nil when they select
// everything.
func (o *ListOptions) filter() storage.Filter {
	if o.Labels.Empty() && o.Fields.Empty() {
		return nil
	}
	labels, fields := o.Labels, o.Fields
	return func(a storage.Attrs) bool {
		return labels.Matches(a.Labels) && fields.Matches(a.Fields)
	}
}

// hasSelectors says whether the list is filtered (remainingItemCount is unknown).
func (o *ListOptions) hasSelectors() bool { return !o.Labels.Empty() || !o.Fields.Empty() }

// List is one answer to a list: its items and the metadata of the list.
type List struct {
	Items              []Item
	ResourceVersion    string
	Continue           string
	RemainingItemCount *int64
}

// Revision is the revision of the last change stored.
func (s *Store) Revision() int64 { return s.storage.Revision() }

// Compact drops the change history up to rev, as etcd's compaction does, and
// returns the revision compacted to.
func (s *Store) Compact(rev int64) (int64, error) { return s.storage.Compact(rev) }

// Count is how many objects of res are stored.
func (s *Store) Count(res *api.Resource) int64 {
	return s.storage.Count(collectionName(res))
}

// ObjectCount is how many objects of a resource are stored: what API
// Priority and Fairness estimates a list's work from (kube keeps such counts
// per resource too).
func (s *Store) ObjectCount(group, resource string) int64 {
	res := s.schema.ByGroupResource(group, resource)
	if res == nil {
		return 0
	}
	return s.Count(res)
}

// Close closes storage, ending every watch.
func (s *Store) Close() error { return s.storage.Close() }

// Current is the object of res stored as namespace/name now, as stored
// (undecodable included), and whether there is one.
func (s *Store) Current(res *api.Resource, namespace, name string) ([]byte, bool) {
	return s.storage.Get(objectKey(res, namespace, name))
}

// currentObject is the object of group/resource stored as namespace/name,
// decoded, or kube's 404 for it (a 500 when it cannot be decoded).
func (s *Store) currentObject(group, resource, namespace, name string) (object.Object, error) {
	res := s.schema.ByGroupResource(group, resource)
	if res == nil {
		return nil, apierrors.NewNotFound(group, resource, name)
	}
	raw, ok := s.Current(res, namespace, name)
	if !ok {
		return nil, apierrors.NewNotFound(group, resource, name)
	}
	obj, err := object.Decode(raw)
	if err != nil {
		return nil, apierrors.NewInternal(err)
	}
	return obj, nil
}

// Decoded is every stored object of res that decodes, as they are now.
func (s *Store) Decoded(res *api.Resource) []object.Object { return s.decodedIn(res, "") }

// decodedIn is Decoded in one namespace ("" for all).
func (s *Store) decodedIn(res *api.Resource, namespace string) []object.Object {
	l, err := s.storage.List(storage.ListOptions{Prefix: collectionPrefix(res, namespace)})
	if err != nil {
		return nil
	}
	var out []object.Object
	for _, it := range l.Items {
		if obj, err := object.Decode([]byte(it.Value)); err == nil {
			out = append(out, obj)
		}
	}
	return out
}

// waitFresh waits (briefly) until storage has reached rev, as kube-apiserver's
// watch cache does, and answers 504 "Too large resource version" otherwise;
// a read that kube sends to etcd (cached false) waits for nothing.
func (s *Store) waitFresh(ctx context.Context, rev int64, cached bool) error {
	if rev <= s.storage.Revision() {
		return nil
	}
	if !cached {
		return apierrors.NewTooLargeResourceVersion(rev, s.storage.Revision(), 0)
	}
	ctx, cancel := clock.WithTimeout(ctx, s.clock, s.freshnessWait)
	defer cancel()
	if err := s.storage.WaitForRevision(ctx, rev); err != nil {
		return apierrors.NewTooLargeResourceVersion(rev, s.storage.Revision(), 1)
	}
	return nil
}

// watchCached says whether kube-apiserver keeps a watch cache of res: of
// every resource but Events (its default --watch-cache-sizes leave them out),
// whose reads all go to etcd.
func watchCached(res *api.Resource) bool {
	return res.Plural != "events" || res.Group != "" && res.Group != "events.k8s.io"
}

// Get reads one object of res as stored, not older than revision rv (0:
// any): 404 when it is missing, kube's error for an object it cannot decode.
func (s *Store) Get(ctx context.Context, res *api.Resource, namespace, name string, rv int64) ([]byte, error) {
	if res.Computed != nil {
		return s.getComputed(res, name)
	}
	if rv > 0 {
		if err := s.waitFresh(ctx, rv, watchCached(res)); err != nil {
			return nil, err
		}
	}
	val, ok := s.storage.Get(objectKey(res, namespace, name))
	if !ok {
		return nil, apierrors.NewNotFound(res.Group, res.Plural, name)
	}
	if IsCorrupt(val) {
		return nil, CorruptObjectError(res, namespace, name)
	}
	return val, nil
}

// listBinding ties continue tokens to one list: collection, namespace, selectors.
func listBinding(res *api.Resource, namespace string, o *ListOptions) string {
	return collectionPrefix(res, namespace) + "\x00" + o.Labels.String() + "\x00" + o.Fields.String()
}

// DecodeContinue checks a list's continue token (o.Continue, of a list of
// res in namespace) and returns the revision and the key, relative to the
// collection, it continues at; a token that is malformed, altered or of
// another list is 400.
func DecodeContinue(res *api.Resource, namespace string, o *ListOptions) (rv int64, after string, err error) {
	return decodeContinue(o.Continue, listBinding(res, namespace, o))
}

// List reads the objects of res in namespace ("" for every namespace) as
// kube-apiserver does: from its watch cache at the cache's revision unless
// the list continues one or asks for an exact revision or the resource has
// no cache, a page at a time with a limit (continue tokens bound to the
// list), one key when the field selector names one object.
func (s *Store) List(ctx context.Context, res *api.Resource, namespace string, o *ListOptions) (*List, error) {
	if res.Computed != nil {
		return s.listComputed(res, o)
	}
	prefix := collectionPrefix(res, namespace)
	// A list across namespaces whose field selector names one namespace
	// reads that namespace's keys, as kube's registry narrows it (unless it
	// continues a list): its pages end with that namespace's objects, and its
	// continue token names a key relative to them (which a continuation,
	// across namespaces again, reads from the collection's first key, as
	// kube's does).
	if ns, ok := o.Fields.RequiresExactMatch("metadata.namespace"); ok && namespace == "" && res.Namespaced && o.Continue == "" &&
		len(validation.DNS1123Label(ns)) == 0 {
		prefix = collectionPrefix(res, ns)
	}
	lo := storage.ListOptions{Prefix: prefix, Filter: o.filter()}
	if o.Limit > 0 {
		lo.Limit = int(o.Limit)
	}
	// A field selector naming one object makes kube's registry read that one
	// key (no pages, no continue).
	single := singleKey(res, namespace, o)
	if single != "" {
		lo.Prefix, lo.Limit = single, 0
	}
	binding := listBinding(res, namespace, o)
	// A resourceVersion with a limit and no match asks for that exact
	// revision (of a collection), and kube reads it from etcd.
	legacyExact := o.Match == "" && o.RV > 0 && o.Limit > 0
	// kube serves a list from its watch cache unless it continues one or asks
	// for an exact revision, or the resource has none: at the cache's
	// revision, ignoring a limit at resourceVersion 0; the cache's tokens name
	// their key after a slash.
	fromCache := o.Continue == "" && o.Match != "Exact" && !legacyExact && watchCached(res)
	switch {
	case o.Continue != "":
		if o.ResourceVersion != "" && o.ResourceVersion != "0" {
			return nil, apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
		}
		rv, after, err := decodeContinue(o.Continue, binding)
		if err != nil {
			return nil, err
		}
		lo.After = prefix + after
		if rv > 0 {
			lo.Rev = rv
		}
	case o.Match == "Exact" || legacyExact && single == "": // one key is read as not older than (etcd3's GetList)
		// kube's etcd answers a future exact revision with a 500; kubeplay
		// answers as its cache would (K8S-RV-3).
		if err := s.waitFresh(ctx, o.RV, watchCached(res)); err != nil {
			return nil, err
		}
		lo.Rev = o.RV
	case o.RV > 0: // Not older than
		if err := s.waitFresh(ctx, o.RV, fromCache); err != nil {
			return nil, err
		}
	}
	if fromCache {
		lo.Cache, lo.NotOlderThan = storage.CacheAny, o.RV
		switch o.ResourceVersion {
		case "":
			lo.Cache = storage.CacheConsistent
		case "0":
			lo.Limit = 0
		}
	}
	l, err := s.storage.List(lo)
	switch {
	case errors.Is(err, storage.ErrCompacted) && o.Continue != "":
		st := apierrors.NewExpired(inconsistentContinue)
		st.Metadata.Continue = encodeContinue(-1, strings.TrimPrefix(lo.After, prefix), binding)
		return nil, st
	case errors.Is(err, storage.ErrCompacted):
		return nil, apierrors.NewExpired("The resourceVersion for the provided list is too old.")
	case errors.Is(err, storage.ErrFutureRevision):
		return nil, apierrors.NewTooLargeResourceVersion(lo.Rev, s.storage.Revision(), 0)
	case err != nil:
		return nil, err
	}
	if err := CheckReadable(res, l.Items); err != nil {
		return nil, err
	}
	out := &List{Items: l.Items, ResourceVersion: strconv.FormatInt(l.Rev, 10)}
	if l.More && len(l.Items) > 0 && single == "" {
		start := strings.TrimPrefix(l.Items[len(l.Items)-1].Key, prefix)
		if fromCache {
			start = "/" + start
		}
		out.Continue = encodeContinue(l.Rev, start, binding)
		if !o.hasSelectors() && l.Remaining > 0 {
			n := l.Remaining
			out.RemainingItemCount = &n
		}
	}
	return out, nil
}

// singleKey is the one key a list reads when its field selector names one
// object (kube's SelectionPredicate.MatchesSingle, with the namespace of the
// request or, across namespaces, of the selector): "" when it does not, or
// when it continues a list.
func singleKey(res *api.Resource, namespace string, o *ListOptions) string {
	name, ok := o.Fields.RequiresExactMatch("metadata.name")
	if !ok || o.Continue != "" || len(validation.PathSegmentName(name)) > 0 {
		return ""
	}
	if ns, ok := o.Fields.RequiresExactMatch("metadata.namespace"); ok && namespace == "" && len(validation.DNS1123Label(ns)) == 0 {
		namespace = ns
	}
	if res.Namespaced && namespace == "" {
		return ""
	}
	return objectKey(res, namespace, name)
}

const inconsistentContinue = "The provided continue parameter is too old to display a consistent list result. " +
	"You can start a new list without the continue parameter, or use the continue token in this response to " +
	"retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - " +
	"objects that were created, modified, or deleted between the time the first chunk was returned and now may " +
	"show up in the list."

// ExpiredWatch is a watch from a revision storage no longer has the changes
// since: kube-apiserver answers it 200 and ends the stream with Status, an
// ERROR event.
type ExpiredWatch struct{ Status *apierrors.Status }

func (e *ExpiredWatch) Error() string { return e.Status.Error() }

// Watch watches the objects of res in namespace ("" for every namespace)
// that o selects, as kube-apiserver's watch cache does: with the initial
// events (the objects as they are, once storage reached o.RV), from o.RV, or
// from now for sendInitialEvents=false at "" or "0". A watch from a
// compacted revision is an *ExpiredWatch; one over the sandbox's budget is
// kube's exceeded quota.
func (s *Store) Watch(ctx context.Context, res *api.Resource, namespace string, o *ListOptions) (*Watcher, error) {
	wo := storage.WatchOptions{Prefix: collectionPrefix(res, namespace), Filter: o.filter()}
	if o.ResourceVersion == "" {
		// A watch from the newest revision brings the resource's watch cache
		// there first (kube-apiserver 1.32.13's does: a list at 0 after it
		// answers at the newest revision).
		s.storage.RequestProgress(wo.Prefix)
	}
	switch {
	case o.SendInitialEvents != nil && *o.SendInitialEvents: // also a watch from "" or "0" (the handler's defaults)
		if o.RV > 0 {
			if err := s.waitFresh(ctx, o.RV, true); err != nil {
				return nil, err
			}
		}
		// kube's watch cache sends the state it has, at its revision.
		wo.Initial, wo.Cached, wo.NotOlderThan = true, watchCached(res), o.RV
	case o.SendInitialEvents != nil: // false: changes only
		wo.Since = o.RV
		if o.ResourceVersion == "" || o.ResourceVersion == "0" {
			wo.Since = s.storage.Revision()
		}
	default:
		wo.Since = o.RV
	}
	w, err := s.storage.Watch(wo)
	if errors.Is(err, storage.ErrCompacted) {
		return nil, &ExpiredWatch{apierrors.NewExpired("too old resource version: " + strconv.FormatInt(o.RV, 10) +
			" (" + strconv.FormatInt(s.storage.CompactedRevision(), 10) + ")")}
	}
	if st := budget.FromRefusal(res.Group, res.Plural, "", err); st != nil {
		return nil, st
	}
	if err != nil {
		return nil, apierrors.NewInternal(err)
	}
	return w, nil
}

// defaultFreshnessWait is how long a read waits for a revision storage has
// not reached (kube's watch cache: 3s).
const defaultFreshnessWait = 3 * time.Second

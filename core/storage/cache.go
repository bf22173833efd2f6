package storage

import "sync/atomic"

// The watch cache's revision. kube-apiserver serves most lists from a watch
// cache per resource, and the revision such a list answers at is the cache's:
// that of the last change to the resource it saw, or a later one an etcd
// progress notification brought it to. A cache asks for one when a consistent
// list, or one that must not be older than a revision the cache has not
// reached, finds it behind; the notification reaches that cache alone, as
// kube-apiserver 1.32 gives each resource's storage an etcd client (and watch
// stream) of its own. A list of a quiet resource at resourceVersion=0
// therefore answers at an older revision than the store's, and clients see
// it: the list's resourceVersion, the watch they start from it. The store
// keeps what that needs: each resource's last change since it opened (in
// memory, noted as changes are applied) and the last progress
// notification's revision.
// A store that opens starts every cache at its revision, as kube's caches
// start at etcd's when kube-apiserver does.
// A key's resource is its collection, as Config.Collection names it (the
// registry, which owns the keys, says).

// legacyResourceRevPrefix keyed each resource's last change in the
// database of stores written before it was kept in memory; Open drops such
// keys from a store it restores (a snapshot carried them).
const legacyResourceRevPrefix = "m/res/"

// cacheRevisionLocked is the revision a list of opts.Prefix served by the
// watch cache answers at, with the store at rev (the state its caller's
// read transaction sees: no change is applied meanwhile). Every revision it
// may answer shows the resource as it is at rev. Called with s.cacheMu held.
func (s *Store) cacheRevisionLocked(opts ListOptions, rev, compacted int64) int64 {
	collection := s.cfg.Collection(opts.Prefix)
	cached := max(s.progress[collection], s.openRev, compacted)
	if v, ok := s.changed.Load(collection); ok {
		cached = max(cached, v.(*atomic.Int64).Load())
	}
	if cached >= rev || cached <= 0 {
		return rev
	}
	if opts.Cache == CacheConsistent || cached < opts.NotOlderThan {
		s.progress[collection] = rev // the cache is behind: a progress notification brings it to rev
		return rev
	}
	return cached
}

// Changes is the revision of the last change applied to any of some
// collections since the store opened (0 when none has changed), for an
// owner caching something it made of their objects to compare: Last reads
// no database and takes no lock, so that the check costs a request nothing
// it notices. A change is counted before the write that made it is
// answered.
type Changes []*atomic.Int64

// Changes follows collections' last change.
func (s *Store) Changes(collections ...string) Changes {
	out := make(Changes, len(collections))
	for i, c := range collections {
		out[i] = s.changeOf(c)
	}
	return out
}

// Last is the revision of the last change to any of the collections.
func (c Changes) Last() int64 {
	var last int64
	for _, n := range c {
		last = max(last, n.Load())
	}
	return last
}

// changeOf is the counter of collection's last change.
func (s *Store) changeOf(collection string) *atomic.Int64 {
	if v, ok := s.changed.Load(collection); ok {
		return v.(*atomic.Int64)
	}
	v, _ := s.changed.LoadOrStore(collection, new(atomic.Int64))
	return v.(*atomic.Int64)
}

// RequestProgress brings the watch cache of prefix's resource to the store's
// revision when it is behind, as the progress notification kube's cache asks
// for when a watch starts at the newest revision (no resourceVersion) does.
func (s *Store) RequestProgress(prefix string) {
	rev, compacted := s.Revision(), s.CompactedRevision()
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	s.cacheRevisionLocked(ListOptions{Prefix: prefix, Cache: CacheConsistent}, rev, compacted)
}

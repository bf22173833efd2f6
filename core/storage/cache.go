package storage

import (
	"strconv"
	"strings"

	"github.com/tidwall/buntdb"
)

// The watch cache's revision. kube-apiserver serves most lists from a watch
// cache per resource, and the revision such a list answers at is the cache's:
// that of the last change to the resource it saw, or a later one an etcd
// progress notification brought it to (when a consistent list, or one that
// must not be older than a revision the cache has not reached, asked for
// one). A list of a quiet resource at resourceVersion=0 therefore answers at
// an older revision than the store's, and clients see it: the list's
// resourceVersion, the watch they start from it. The store keeps what that
// needs: each resource's last change (resourceRevPrefix keys, committed with
// the change), and the revision each resource's cache was brought to.
//
// A key's resource is its first two segments (registry.Key's layout:
// group/plural/…).

const resourceRevPrefix = "m/res/"

// resourceOf is the resource a key or key prefix belongs to.
func resourceOf(key string) string {
	i := strings.IndexByte(key, '/')
	if i < 0 {
		return key
	}
	j := strings.IndexByte(key[i+1:], '/')
	if j < 0 {
		return key
	}
	return key[:i+1+j]
}

// cacheRevisionLocked is the revision a list of prefix served by the watch
// cache answers at, with the store at rev (the state read in tx): the
// resource's last change, or a later revision its cache was brought to, or
// the store's when the list asks for one the cache has not reached. Every one
// of these revisions shows the resource as it is at rev. Called within tx,
// with s.cacheMu held.
func (s *Store) cacheRevisionLocked(tx *buntdb.Tx, opts ListOptions, rev, compacted int64) int64 {
	res := resourceOf(opts.Prefix)
	cached := max(s.cacheRevs[res], s.openRev, compacted)
	if v, err := tx.Get(resourceRevPrefix + res); err == nil {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			cached = max(cached, n)
		}
	}
	if opts.Cache == CacheConsistent || cached < opts.NotOlderThan || cached <= 0 || cached > rev {
		cached = rev
	}
	s.cacheRevs[res] = cached
	return cached
}

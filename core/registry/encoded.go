package registry

import (
	"bytes"
	"sync"

	"kubeplay/core/api"
	"kubeplay/core/encoding"
	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/gzipjoin"
	"kubeplay/core/object"
	"kubeplay/core/types"
)

// How stored objects are shown: through a view (api.View) in its form,
// and in the binary media, whose encodings the registry keeps as kube's
// watch cache keeps an object's serializations.

// Viewed is a stored object as res shows it: converted to its form when
// res is a view (api.View), written as its Go type writes it; a custom
// object pruned and defaulted by its version's schema, as kube's decoding
// from storage does (a default added to a schema shows on objects stored
// before it).
func Viewed(res *api.Resource, stored []byte) []byte {
	if res.Custom != nil {
		return customViewed(res, stored)
	}
	if res.View == nil {
		return stored
	}
	obj, err := object.Decode(stored)
	if err != nil {
		return stored // what cannot be read is shown as stored (a corrupt object)
	}
	obj = res.View.FromStored(obj)
	types.Complete(res.APIVersion(), res.Kind, obj)
	if b, err := object.EncodeOrdered(obj, types.Order(res.APIVersion(), res.Kind)); err == nil {
		return b
	}
	return stored
}

// customViewed is a stored custom object pruned and defaulted by the schema
// of the storage version, then by res's, as kube decodes it from
// storage and converts it; the stored bytes when that changes nothing.
func customViewed(res *api.Resource, stored []byte) []byte {
	obj, err := object.Decode(stored)
	if err != nil {
		return stored
	}
	if s := res.Custom.Stored; s != nil {
		s.Prune(obj)
		s.Default(map[string]any(obj))
	}
	res.Custom.Schema.Prune(obj)
	res.Custom.Schema.Default(map[string]any(obj))
	if b, err := object.Encode(obj); err == nil && !bytes.Equal(b, stored) {
		return b
	}
	return stored
}

// ViewedItems are stored items as res shows them in a list.
func ViewedItems(res *api.Resource, items []Item) []Item {
	if res.View == nil && res.Custom == nil {
		return items
	}
	out := make([]Item, len(items))
	for i, it := range items {
		v := Viewed(res, []byte(it.Value))
		if res.Custom != nil {
			// The items of a custom resource's list carry their kind and
			// apiVersion, as unstructured objects do.
			v = object.WithTypeMeta(v, res.Kind, res.APIVersion())
		}
		out[i] = Item{Key: it.Key, Value: string(v)}
	}
	return out
}

// itemCache keeps stored objects encoded in the binary media (a protobuf
// message, a CBOR map), so that a list in protobuf or CBOR costs about a copy
// per item, as a list in JSON (the stored form) does; and each item's gzip
// segment in every media (gzipjoin), so that a list sent with gzip costs
// about a copy of compressed bytes per item, not a compression. An entry is
// valid while the stored value it was made from is the current one; the
// cache is emptied when it outgrows its budget.
type itemCache struct {
	mu       sync.Mutex
	entries  map[itemCacheKey]cachedItem
	segments map[itemCacheKey]cachedSegment
	size     int
}

type itemCacheKey struct {
	media      encoding.Media
	apiVersion string // the form it is served in: a view's items do not evict the stored kind's
	key        string // the storage key
}

type cachedItem struct {
	stored  string // the stored JSON the encoding was made from
	encoded []byte
}

type cachedSegment struct {
	stored string // the stored JSON (as served) the segment was made from
	seg    gzipjoin.Segment
}

// itemCacheBudget bounds the bytes of cached encodings and segments.
const itemCacheBudget = 64 << 20

// Encoded is a stored object of res in media (protobuf or CBOR), without
// envelope or tag: as it sits inside a list.
func (s *Store) Encoded(media encoding.Media, res *api.Resource, it Item) ([]byte, error) {
	return s.items.encoded(media, res, it)
}

// Segment is the gzip segment of what a list in media writes for it (its
// lead, such as a protobuf field's head, and its bytes there, both made
// from it.Value), compressed when first asked for.
func (s *Store) Segment(media encoding.Media, res *api.Resource, it Item, lead, body []byte) gzipjoin.Segment {
	return s.items.segment(media, res, it, lead, body)
}

// encoded is Encoded through the cache.
func (c *itemCache) encoded(media encoding.Media, res *api.Resource, it Item) ([]byte, error) {
	k := itemCacheKey{media, res.APIVersion(), it.Key}
	c.mu.Lock()
	e, ok := c.entries[k]
	c.mu.Unlock()
	if ok && e.stored == it.Value {
		return e.encoded, nil
	}
	obj, err := object.Decode([]byte(it.Value))
	if err != nil {
		return nil, err
	}
	var b []byte
	if media == encoding.Protobuf {
		b, err = protobuf.Marshal(nil, res.APIVersion(), res.Kind, obj)
	} else {
		b, err = encoding.MarshalCBOR(obj)
	}
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.makeRoom(len(b))
	c.size += len(b) - len(c.entries[k].encoded)
	c.entries[k] = cachedItem{stored: it.Value, encoded: b}
	return b, nil
}

// segment is Segment through the cache. Whether a cached segment is still
// intact is the gzipjoin.Writer's to check, once, as it writes it.
func (c *itemCache) segment(media encoding.Media, res *api.Resource, it Item, lead, body []byte) gzipjoin.Segment {
	k := itemCacheKey{media, res.APIVersion(), it.Key}
	c.mu.Lock()
	e, ok := c.segments[k]
	c.mu.Unlock()
	if ok && e.stored == it.Value {
		return e.seg
	}
	seg := gzipjoin.Compress(lead, body)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.makeRoom(seg.Size())
	c.size += seg.Size() - c.segments[k].seg.Size()
	c.segments[k] = cachedSegment{stored: it.Value, seg: seg}
	return seg
}

// makeRoom empties the cache if n more bytes would outgrow its budget.
// Called with c.mu held.
func (c *itemCache) makeRoom(n int) {
	if c.entries == nil || c.size+n > itemCacheBudget {
		c.entries, c.segments, c.size = map[itemCacheKey]cachedItem{}, map[itemCacheKey]cachedSegment{}, 0
	}
}

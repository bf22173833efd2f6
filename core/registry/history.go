package registry

import (
	"strings"

	"kubeplay/core/api"
	"kubeplay/core/storage"
)

// Past is one change the store's history keeps, with the object it was made
// to.
type Past struct {
	storage.HistoryEntry
	// Res is the resource whose collection holds the object; nil for one
	// no served resource owns any more (a CustomResourceDefinition's, since
	// removed).
	Res             *api.Resource
	Namespace, Name string
}

// History hands fn the changes the store's history keeps, newest first, from
// the one before revision before (0: the newest), until fn returns false; it
// returns the store's revision and the oldest one still served (storage's
// History).
func (s *Store) History(before int64, fn func(Past) bool) (head, compacted int64, err error) {
	return s.storage.History(before, func(e storage.HistoryEntry) bool {
		p := Past{HistoryEntry: e}
		p.Res, p.Namespace, p.Name = s.ObjectOfKey(e.Key)
		return fn(p)
	})
}

// ObjectOfKey is the resource whose collection a store key is in (nil for
// one no served resource owns) and the namespace and name it names.
func (s *Store) ObjectOfKey(key string) (res *api.Resource, namespace, name string) {
	_, namespace, name = SplitKey(key)
	return resourceForKey(s.schema, key), namespace, name
}

// SplitKey is a store key's collection (GROUP/PLURAL), namespace ("" for a
// cluster-scoped object) and name; all "" for what is not a key of the
// registry's layout (keys.go).
func SplitKey(key string) (collection, namespace, name string) {
	parts := strings.Split(key, "/")
	switch len(parts) {
	case 3:
		return parts[0] + "/" + parts[1], "", parts[2]
	case 4:
		return parts[0] + "/" + parts[1], parts[2], parts[3]
	}
	return "", "", ""
}

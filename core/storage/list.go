package storage

import (
	"errors"
	"sort"
	"strings"

	"github.com/tidwall/buntdb"
)

// ListOptions select a page of keys under a prefix at one revision.
type ListOptions struct {
	Prefix string
	// Rev is the revision to list at: 0 for the current one. An older revision is
	// rebuilt from history (ErrCompacted past it); a newer one is ErrFutureRevision.
	Rev int64
	// After lists only keys greater than this one (a continue token's position).
	After string
	// Limit caps the number of items; 0 means no limit.
	Limit int
	// Filter keeps only matching objects; nil keeps all.
	Filter Filter
	// Cache, unless CacheNone, answers at the revision kube-apiserver's watch
	// cache of the listed resource would (cache.go), not the store's: the
	// items are the same. Rev must be 0.
	Cache CacheRead
	// NotOlderThan is the oldest revision a cached list may answer at.
	NotOlderThan int64
}

// CacheRead is how a list reads the watch cache.
type CacheRead uint8

const (
	// CacheNone reads the store: the answer is at its revision.
	CacheNone CacheRead = iota
	// CacheAny answers at the cache's revision (resourceVersion 0, or not
	// older than NotOlderThan).
	CacheAny
	// CacheConsistent brings the cache to the store's revision first.
	CacheConsistent
)

// Item is one listed object.
type Item struct {
	Key   string
	Value string
}

// ListResult is a page of a list.
type ListResult struct {
	Rev   int64
	Items []Item
	// More says that keys after the last item remain (the list continues).
	More bool
	// Remaining counts the objects after this page; -1 when unknown (filtered).
	Remaining int64
}

// List returns objects under opts.Prefix in key order. It takes no store lock:
// the database's read lock gives it a state and the revision of that state.
func (s *Store) List(opts ListOptions) (ListResult, error) {
	if s.closed.Load() {
		return ListResult{}, ErrClosed
	}
	var (
		res            ListResult
		rev, compacted int64
		current        bool
	)
	err := s.db.View(func(tx *buntdb.Tx) error {
		rev, compacted = readInt(tx, revKey), readInt(tx, compactedKey)
		if opts.Rev != 0 && opts.Rev != rev {
			return nil
		}
		// Values are strings, shared without copying; the caller writes its answer
		// after the read lock is released.
		current, res = true, ListResult{Rev: rev, Remaining: -1}
		if opts.Cache != CacheNone {
			s.cacheMu.Lock()
			res.Rev = s.cacheRevisionLocked(opts, rev, compacted)
			s.cacheMu.Unlock()
		}
		return scan(tx, opts, &res, s.cfg.Attrs)
	})
	switch {
	case errors.Is(err, buntdb.ErrDatabaseClosed):
		return ListResult{}, ErrClosed
	case err != nil:
		return ListResult{}, err
	case current:
		return res, nil
	case opts.Rev > rev:
		return ListResult{}, ErrFutureRevision
	case opts.Rev < compacted, opts.Rev < s.CompactedRevision():
		return ListResult{}, ErrCompacted
	}
	return s.listAt(opts, rev)
}

func scan(tx *buntdb.Tx, opts ListOptions, res *ListResult, attrs func(string, []byte) Attrs) error {
	start := objectPrefix + opts.Prefix
	pivot := start
	if opts.After != "" {
		pivot = objectPrefix + opts.After + "\x00"
	}
	return tx.AscendGreaterOrEqual("", pivot, func(k, v string) bool {
		if !strings.HasPrefix(k, start) {
			return false
		}
		if opts.Limit > 0 && len(res.Items) >= opts.Limit {
			if opts.Filter != nil {
				res.More = true
				return false
			}
			if !res.More {
				res.More, res.Remaining = true, 0
			}
			res.Remaining++
			return true
		}
		key := k[len(objectPrefix):]
		if opts.Filter != nil && !opts.Filter(attrs(key, []byte(v))) {
			return true
		}
		res.Items = append(res.Items, Item{Key: key, Value: v})
		return true
	})
}

// listAt rebuilds the objects under the prefix as they were at opts.Rev: the current
// ones with every later change undone, newest first.
func (s *Store) listAt(opts ListOptions, current int64) (ListResult, error) {
	state := map[string]string{}
	start := objectPrefix + opts.Prefix
	var corrupt error
	err := s.db.View(func(tx *buntdb.Tx) error {
		// The revision may have moved since List looked; undo up to what this view sees.
		head := readInt(tx, revKey)
		if readInt(tx, compactedKey) > opts.Rev {
			return ErrCompacted
		}
		_ = tx.AscendGreaterOrEqual("", start, func(k, v string) bool {
			if !strings.HasPrefix(k, start) {
				return false
			}
			state[k[len(objectPrefix):]] = v
			return true
		})
		return tx.DescendRange("", historyKey(head), historyKey(opts.Rev), func(_, v string) bool {
			typ, key, prev, err := peekHistory(v)
			if err != nil {
				corrupt = err
				return false
			}
			if !strings.HasPrefix(key, opts.Prefix) {
				return true
			}
			if typ == Added {
				delete(state, key)
			} else {
				state[key] = prev
			}
			return true
		})
	})
	if err == nil {
		err = corrupt
	}
	if err != nil {
		return ListResult{}, err
	}
	keys := make([]string, 0, len(state))
	for k := range state {
		if opts.After == "" || k > opts.After {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	res := ListResult{Rev: opts.Rev, Remaining: -1}
	for i, k := range keys {
		if opts.Limit > 0 && len(res.Items) >= opts.Limit {
			res.More = true
			if opts.Filter == nil {
				res.Remaining = int64(len(keys) - i)
			}
			break
		}
		v := state[k]
		if opts.Filter != nil && !opts.Filter(s.cfg.Attrs(k, []byte(v))) {
			continue
		}
		res.Items = append(res.Items, Item{Key: k, Value: v})
	}
	return res, nil
}

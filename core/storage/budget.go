package storage

import "fmt"

// Budget bounds what a store holds and serves: its current objects, their
// bytes and the watchers registered at once (0: unbounded). A write or a
// watch past it is refused with a *BudgetError and nothing is written. A
// delete is never refused, and an update may grow the store a sixteenth past
// Bytes, so that what a deletion writes first (a deletionTimestamp, a
// finalizer removed) goes through in a full store.
type Budget struct {
	Objects  int64
	Bytes    int64
	Watchers int64
}

// Bound names a bound of a Budget.
type Bound string

// The bounds.
const (
	BoundObjects  Bound = "objects"
	BoundBytes    Bound = "bytes"
	BoundWatchers Bound = "watchers"
)

// BudgetError says which bound a write or a watch would have passed.
type BudgetError struct {
	Bound                  Bound
	Requested, Used, Limit int64
}

// Refused names the bound and the counts (core/budget's Refusal).
func (e *BudgetError) Refused() (bound string, requested, used, limit int64) {
	return string(e.Bound), e.Requested, e.Used, e.Limit
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("storage: %s budget exceeded: requested %d, used %d, limited %d", e.Bound, e.Requested, e.Used, e.Limit)
}

// usage is what a store holds, kept by every commit: its objects, their
// bytes, and the objects of each collection (Config.Collection). Guarded by
// Store.mu.
type usage struct {
	objects, bytes int64
	collections    map[string]int64
}

// check refuses a change from a value of cur bytes (present or not) to one
// of next bytes past budget b.
func (u usage) check(b Budget, present bool, cur, next int, deleting bool) error {
	if deleting {
		return nil
	}
	if !present && b.Objects > 0 && u.objects+1 > b.Objects {
		return &BudgetError{Bound: BoundObjects, Requested: 1, Used: u.objects, Limit: b.Objects}
	}
	grow := int64(next - cur)
	limit := b.Bytes
	if present {
		limit += b.Bytes / 16
	}
	if b.Bytes > 0 && grow > 0 && u.bytes+grow > limit {
		return &BudgetError{Bound: BoundBytes, Requested: grow, Used: u.bytes, Limit: b.Bytes}
	}
	return nil
}

// apply counts a committed change to an object of collection.
func (u *usage) apply(collection string, present bool, cur, next int, deleting bool) {
	switch {
	case deleting:
		u.objects--
		u.bytes -= int64(cur)
		u.collections[collection]--
	case present:
		u.bytes += int64(next - cur)
	default:
		u.objects++
		u.bytes += int64(next)
		u.collections[collection]++
	}
}

// Count is how many objects the store holds in collection (as
// Config.Collection names them).
func (s *Store) Count(collection string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage.collections[collection]
}

// Usage is how many objects the store holds, and their bytes.
func (s *Store) Usage() (objects, bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage.objects, s.usage.bytes
}

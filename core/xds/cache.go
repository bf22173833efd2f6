package xds

import (
	"sort"
	"strconv"
	"strings"
	"sync"
)

// cache is what the informers have seen of the xDS objects, by type URL and
// xDS name, each name with its variants; it tells the streams which names of
// which type changed. It is written on the informers' goroutines and read on
// the streams'.
type cache struct {
	mu       sync.RWMutex
	types    map[string]*typeCache // by type URL
	byObject map[string]*Resource  // by kind/object name
	invalid  map[string]bool       // objects seen that are not valid, by kind/object name
	subs     map[*subscriber]struct{}
}

// typeCache holds one type's resources.
type typeCache struct {
	version  int64                  // resourceVersion of the type's last change
	variants map[string][]*Resource // by xDS name, ordered by object name
	aliases  map[string]string      // alias → xDS name
}

func newCache() *cache {
	return &cache{types: map[string]*typeCache{}, byObject: map[string]*Resource{}, invalid: map[string]bool{}, subs: map[*subscriber]struct{}{}}
}

// subscriber is a stream's inbox of changes: the names changed per type
// since it last took them, and a signal that there are some.
type subscriber struct {
	mu      sync.Mutex
	changed map[string]map[string]bool
	signal  chan struct{}
}

func (c *cache) subscribe() *subscriber {
	s := &subscriber{changed: map[string]map[string]bool{}, signal: make(chan struct{}, 1)}
	c.mu.Lock()
	c.subs[s] = struct{}{}
	c.mu.Unlock()
	return s
}

func (c *cache) unsubscribe(s *subscriber) {
	c.mu.Lock()
	delete(c.subs, s)
	c.mu.Unlock()
}

// take returns the changes since the last take.
func (s *subscriber) take() map[string]map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.changed
	s.changed = map[string]map[string]bool{}
	return out
}

// set stores (or, with r nil, removes) the object at key; rv is the
// revision of the change; valid is false for an object that is there but
// cannot be served.
func (c *cache) set(key string, r *Resource, rv string, valid bool) {
	c.mu.Lock()
	if valid {
		delete(c.invalid, key)
	} else {
		c.invalid[key] = true
	}
	changed := map[string][]string{}
	if old := c.byObject[key]; old != nil {
		c.remove(old)
		changed[old.TypeURL] = append(changed[old.TypeURL], old.Name)
		delete(c.byObject, key)
	}
	if r != nil {
		c.byObject[key] = r
		tc := c.typeCache(r.TypeURL)
		vs := append(tc.variants[r.Name], r)
		sort.Slice(vs, func(i, j int) bool { return vs[i].Object < vs[j].Object })
		tc.variants[r.Name] = vs
		for _, a := range r.Aliases {
			tc.aliases[a] = r.Name
		}
		changed[r.TypeURL] = append(changed[r.TypeURL], r.Name)
	}
	n, _ := strconv.ParseInt(rv, 10, 64)
	for t := range changed {
		if tc := c.typeCache(t); n > tc.version {
			tc.version = n
		}
	}
	subs := make([]*subscriber, 0, len(c.subs))
	for s := range c.subs {
		subs = append(subs, s)
	}
	c.mu.Unlock()
	for _, s := range subs {
		s.mu.Lock()
		for t, names := range changed {
			set := s.changed[t]
			if set == nil {
				set = map[string]bool{}
				s.changed[t] = set
			}
			for _, n := range names {
				set[n] = true
			}
		}
		s.mu.Unlock()
		select {
		case s.signal <- struct{}{}:
		default:
		}
	}
}

// remove takes r out of its type; called with mu held.
func (c *cache) remove(r *Resource) {
	tc := c.types[r.TypeURL]
	vs := tc.variants[r.Name]
	for i, v := range vs {
		if v == r {
			vs = append(vs[:i:i], vs[i+1:]...)
			break
		}
	}
	if len(vs) == 0 {
		delete(tc.variants, r.Name)
	} else {
		tc.variants[r.Name] = vs
	}
	for _, a := range r.Aliases {
		if tc.aliases[a] == r.Name {
			delete(tc.aliases, a)
		}
	}
}

// typeCache returns the type's cache, created empty; called with mu held.
func (c *cache) typeCache(typeURL string) *typeCache {
	tc := c.types[typeURL]
	if tc == nil {
		tc = &typeCache{variants: map[string][]*Resource{}, aliases: map[string]string{}}
		c.types[typeURL] = tc
	}
	return tc
}

// version is the type's version_info: the resourceVersion of its last change.
func (c *cache) version(typeURL string) string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if tc := c.types[typeURL]; tc != nil {
		return strconv.FormatInt(tc.version, 10)
	}
	return "0"
}

// pick is the variant of name (or of the name it is an alias of) that a
// client with params gets: the first whose constraints match, else the
// first without constraints; nil when there is none.
func (c *cache) pick(typeURL, name string, params map[string]string) *Resource {
	c.mu.RLock()
	defer c.mu.RUnlock()
	tc := c.types[typeURL]
	if tc == nil {
		return nil
	}
	vs, ok := tc.variants[name]
	if !ok {
		vs = tc.variants[tc.aliases[name]]
	}
	var fallback *Resource
	for _, v := range vs {
		switch {
		case v.Constraints == nil:
			if fallback == nil {
				fallback = v
			}
		case v.Constraints.Match(params):
			return v
		}
	}
	return fallback
}

// names are the type's xDS names, sorted.
func (c *cache) names(typeURL string) []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	tc := c.types[typeURL]
	if tc == nil {
		return nil
	}
	out := make([]string, 0, len(tc.variants))
	for n := range tc.variants {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// object is the resource of an API object, by kind/name, or nil.
func (c *cache) object(key string) *Resource {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.byObject[key]
}

// matches says whether the objects whose keys begin with prefix are exactly
// want's, at its versions (an object that is not valid counts as there).
func (c *cache) matches(prefix string, want map[string]string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	n := 0
	for key, r := range c.byObject {
		if strings.HasPrefix(key, prefix) {
			if want[key] != r.Version {
				return false
			}
			n++
		}
	}
	for key := range want {
		if _, ok := c.byObject[key]; !ok && !c.invalid[key] {
			return false
		}
	}
	return n <= len(want)
}

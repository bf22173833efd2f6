// Package timeline owns a sandbox's revision timeline (LEARN-5): the changes
// its store's history keeps, newest first, each with its revision, time, the
// watch event it was (ADDED, MODIFIED, DELETED), the object's kind,
// namespace and name, and who made it: the user and client of the request
// that committed it (the request log's entry naming its revision, while the
// log keeps it) and the field manager the write recorded in the object's
// managedFields. It serves them at Path, filtered by kind, namespace, name
// and user, or to the changes clients made (not the sandbox's own
// components'), a page at a time, with how far back history reaches.
//
// The timeline only says what changed and who changed it; the state at a
// revision is read through the API itself (a list with resourceVersion and
// resourceVersionMatch=Exact, 410 Gone before the history), so what the
// page shows is what any client would be answered.
package timeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/registry"
	"kubeplay/core/requestlog"
	"kubeplay/core/user"
	"kubeplay/core/web"
)

// Path is where a sandbox serves its timeline:
//
//	GET /debug/kubeplay/timeline                the newest changes kept
//	GET /debug/kubeplay/timeline?before=REV     those older than REV
//
// with limit (at most MaxLimit; DefaultLimit when absent) and the filters
// kind, namespace, name (a part of it), user and mine=true (only changes
// the sandbox's own components did not make).
const Path = "/debug/kubeplay/timeline"

// Page bounds.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// Entry is one change as the timeline shows it.
type Entry struct {
	Revision int64     `json:"revision"`
	Time     time.Time `json:"time"`
	// Type is the watch event a client watching the object saw.
	Type       string `json:"type"`
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	// Collection is the API path of the object's collection (in its
	// namespace): a list there at the revision reads the object as it was.
	Collection string `json:"collection,omitempty"`
	// Manager, Operation and Subresource name the managedFields entry the
	// change wrote (none for a delete, or a write that recorded none).
	Manager     string `json:"manager,omitempty"`
	Operation   string `json:"operation,omitempty"`
	Subresource string `json:"subresource,omitempty"`
	// Request is the request log's number of the request that made the
	// change, and Verb, User and Client are its, while the log keeps it.
	Request int64  `json:"request,omitempty"`
	Verb    string `json:"verb,omitempty"`
	User    string `json:"user,omitempty"`
	Client  string `json:"client,omitempty"`
	// Internal: made by the sandbox's own components (its controllers, the
	// simulated kubelets and scheduler, the API server itself), as the
	// request log, or failing it the field manager, says.
	Internal bool `json:"internal,omitempty"`
}

// Page is a page of the timeline.
type Page struct {
	// Revision is the store's; CompactedRevision the oldest still served:
	// history keeps every change after it, and a read at it or before is
	// 410 Gone.
	Revision          int64   `json:"revision"`
	CompactedRevision int64   `json:"compactedRevision"`
	Items             []Entry `json:"items"`
	// Continue is the revision to ask before= for the older changes that
	// match; 0 when history holds no more.
	Continue int64 `json:"continue,omitempty"`
}

// Filter selects entries; its zero value selects all.
type Filter struct {
	Kind, Namespace, Name, User string
	// Mine keeps the changes the sandbox's own components did not make.
	Mine bool
}

func (f Filter) match(e *Entry) bool {
	return (f.Kind == "" || strings.EqualFold(f.Kind, e.Kind)) &&
		(f.Namespace == "" || f.Namespace == e.Namespace) &&
		(f.Name == "" || strings.Contains(e.Name, f.Name)) &&
		(f.User == "" || f.User == e.User) &&
		(!f.Mine || !e.Internal)
}

// Timeline reads a sandbox's history and request log.
type Timeline struct {
	store *registry.Store
	log   *requestlog.Log
}

// New is the timeline of store's history, naming who made each change from
// log (nil: no log).
func New(store *registry.Store, log *requestlog.Log) *Timeline {
	return &Timeline{store: store, log: log}
}

// Read is a page of at most limit changes that f selects, newest first,
// older than revision before (0: from the newest).
func (t *Timeline) Read(before int64, limit int, f Filter) (Page, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	requests := t.requests()
	page := Page{Items: []Entry{}}
	var err error
	page.Revision, page.CompactedRevision, err = t.store.History(before, func(p registry.Past) bool {
		if len(page.Items) == limit {
			page.Continue = page.Items[limit-1].Revision
			return false
		}
		e := entry(p)
		if r, ok := requests[p.Rev]; ok {
			e.Request, e.Verb, e.User, e.Client, e.Internal = r.Seq, r.Verb, r.User, r.Client, r.Internal
		} else {
			e.Internal = user.SystemManager(e.Manager)
		}
		if f.match(&e) {
			page.Items = append(page.Items, e)
		}
		return true
	})
	return page, err
}

// requests are the log's entries by the revisions they committed.
func (t *Timeline) requests() map[int64]requestlog.Entry {
	out := map[int64]requestlog.Entry{}
	if t.log == nil {
		return out
	}
	entries, _ := t.log.List(func(e requestlog.Entry) bool { return len(e.Revisions) > 0 }, 0)
	for _, e := range entries {
		for _, rev := range e.Revisions {
			out[rev] = e
		}
	}
	return out
}

// stored is what the timeline reads of a stored object.
type stored struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		ManagedFields []json.RawMessage `json:"managedFields"`
	} `json:"metadata"`
}

type managedEntry struct {
	Manager     string `json:"manager"`
	Operation   string `json:"operation"`
	Subresource string `json:"subresource"`
}

// entry is the timeline's entry of p, but for who made it.
func entry(p registry.Past) Entry {
	e := Entry{Revision: p.Rev, Time: p.Time.UTC(), Type: string(p.Type), Namespace: p.Namespace, Name: p.Name}
	var cur, prev stored
	_ = json.Unmarshal(p.Object, &cur) // a corrupt object (K8S-DEL-3) shows no kind
	if p.Prev != nil {
		_ = json.Unmarshal(p.Prev, &prev)
	}
	e.APIVersion, e.Kind = cur.APIVersion, cur.Kind
	if e.Kind == "" {
		e.APIVersion, e.Kind = prev.APIVersion, prev.Kind
	}
	if p.Res != nil {
		if e.Kind == "" {
			e.APIVersion, e.Kind = p.Res.APIVersion(), p.Res.Kind
		}
		e.Collection = collection(p.Res.Group, p.Res.Version, p.Res.Plural, p.Namespace)
	}
	if p.Type != "DELETED" {
		e.Manager, e.Operation, e.Subresource = wrote(cur.Metadata.ManagedFields, prev.Metadata.ManagedFields)
	}
	return e
}

// wrote is the managedFields entry the change recorded: one prev does not
// have, else one whose time moved, else one whose fields changed (a manager
// that lost fields to another changes too, but its time stays).
func wrote(cur, prev []json.RawMessage) (manager, operation, subresource string) {
	type keyed struct {
		managedEntry
		Time string `json:"time"`
	}
	before := map[managedEntry]json.RawMessage{}
	for _, p := range prev {
		var m keyed
		if json.Unmarshal(p, &m) == nil {
			before[m.managedEntry] = p
		}
	}
	best, score := managedEntry{}, 0
	for _, c := range cur {
		var m keyed
		if json.Unmarshal(c, &m) != nil {
			continue
		}
		p, had := before[m.managedEntry]
		s := 0
		switch {
		case !had:
			s = 3
		case bytes.Equal(c, p):
			continue
		default:
			s = 1
			var old keyed
			if json.Unmarshal(p, &old) == nil && old.Time != m.Time {
				s = 2
			}
		}
		if s > score {
			best, score = m.managedEntry, s
		}
	}
	return best.Manager, best.Operation, best.Subresource
}

// collection is the API path of a collection of group/version/plural in
// namespace ("" for a cluster-scoped one).
func collection(group, version, plural, namespace string) string {
	p := "/apis/" + group + "/" + version
	if group == "" {
		p = "/api/" + version
	}
	if namespace != "" {
		p += "/namespaces/" + url.PathEscape(namespace)
	}
	return p + "/" + plural
}

// Handler serves t at Path.
func Handler(t *Timeline) web.Handler {
	return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		if r.Method != web.MethodGet {
			w.Header().Set("Allow", web.MethodGet)
			apierrors.Write(w, apierrors.NewMethodNotAllowed())
			return
		}
		q := r.URL.Query()
		before, err := number(q, "before", 0)
		if err != nil {
			apierrors.Write(w, apierrors.NewBadRequest(err.Error()))
			return
		}
		limit, err := number(q, "limit", DefaultLimit)
		if err == nil && limit > MaxLimit {
			err = badNumber("limit", q.Get("limit"), "at most "+strconv.Itoa(MaxLimit))
		}
		if err != nil {
			apierrors.Write(w, apierrors.NewBadRequest(err.Error()))
			return
		}
		mine := q.Get("mine")
		if mine != "" && mine != "true" && mine != "false" {
			apierrors.Write(w, apierrors.NewBadRequest(`mine: "true" or "false", not `+strconv.Quote(mine)))
			return
		}
		f := Filter{Kind: q.Get("kind"), Namespace: q.Get("namespace"), Name: q.Get("name"), User: q.Get("user"), Mine: mine == "true"}
		page, err := t.Read(before, int(limit), f)
		if err != nil {
			apierrors.Write(w, apierrors.NewInternal(err))
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		apierrors.WriteJSON(w, page)
	})
}

func badNumber(name, value, want string) error {
	return errors.New(name + ": " + want + ", not " + strconv.Quote(value))
}

// number is q's positive integer name, def when absent.
func number(q url.Values, name string, def int64) (int64, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 {
		return 0, badNumber(name, v, "a positive integer")
	}
	return n, nil
}

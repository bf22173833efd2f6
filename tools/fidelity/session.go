package main

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A Session is a sequence of requests played in order against each server, in
// its own namespace (created by its first step). Steps name what they depend
// on from earlier answers with placeholders, resolved per server from that
// server's own answers (see serverState.resolve), so the same session is
// meaningful to both and can be shortened by the minimizer.
type Session struct {
	Seed  uint64
	Index int
	NS    string // the session's namespace; also the prefix of its cluster-scoped names
	Steps []Step
}

// A Step is one request. Verb, Kind, Repr and Bad are its categories in the
// score; the rest is what is sent.
type Step struct {
	Verb string // get, list, watch, create, update, patch, delete, deletecollection
	Kind string // the kind the request is about (ConfigMap, …)
	Repr string // the representation asked for: json, yaml, protobuf, cbor, table, meta
	Bad  string // the class of bad input it carries, or ""

	Method string
	Path   string      // with placeholders
	Query  [][2]string // values with placeholders; sent escaped, in this order
	Header [][2]string
	Body   string // with placeholders
	// BodyAs, when set ("protobuf" or "cbor"), says Body is JSON to be sent
	// encoded that way (after placeholders are resolved).
	BodyAs string
	// GenPrefix is what names the server makes from the step's generateName
	// begin with (the generateName, cut to kube's 58 characters): such names
	// are mapped by order of appearance.
	GenPrefix string
	// Watch: the answer is a stream, read for a bounded time.
	Watch bool
}

// Label is how the report names a step.
func (s Step) Label() string {
	b := s.Verb + " " + s.Kind + " " + s.Repr
	if s.Bad != "" {
		b += " bad:" + s.Bad
	}
	return b
}

// URL is the step's path and query with placeholders resolved by resolve
// (placeholders stay as they are with an identity).
func (s Step) URL(resolve func(string) string) string {
	var b strings.Builder
	b.WriteString(resolve(s.Path))
	for i, q := range s.Query {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString(queryEscape(q[0]))
		b.WriteByte('=')
		b.WriteString(queryEscape(resolve(q[1])))
	}
	return b.String()
}

// queryEscape escapes a query key or value as url.QueryEscape does, except
// that it leaves what clients leave readable (`,` `:` `/` `!` `(` `)`),
// as kubectl's selectors arrive.
func queryEscape(s string) string {
	const keep = "-_.~,:/!()"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte(keep, c) >= 0:
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// serverState is what one server answered so far in a session: what the
// placeholders resolve to, and the labels its generated values are normalized
// to (uids, resourceVersions, generated names), by order of appearance, so that
// two servers behaving alike normalize to the same text.
type serverState struct {
	ns     string
	step   int                 // the step being played
	rvs    map[string][]string // "Kind/name" → resourceVersions seen, oldest first
	uids   map[string]string   // "Kind/name" → uid
	listRV map[string]string   // Kind → the last list's resourceVersion
	cont   map[string]string   // Kind → the last list's continue token
	gen    map[string][]string // generateName (resolved) → names made from it, in order
	writes []string            // resourceVersions successful writes answered with, in order

	rvLabels  map[uint64]string // object resourceVersion → its label (the step that first showed it)
	deleted   map[uint64]string // revision a deletecollection answered an object with → its label
	rvSorted  []uint64
	uidLabels map[string]string
	genLabels map[string]string
	prefixes  []string // the generateNames of the session
}

func newServerState(ns string, prefixes []string) *serverState {
	return &serverState{
		ns: ns, rvs: map[string][]string{}, uids: map[string]string{}, listRV: map[string]string{},
		cont: map[string]string{}, gen: map[string][]string{},
		rvLabels: map[uint64]string{}, deleted: map[uint64]string{}, uidLabels: map[string]string{}, genLabels: map[string]string{},
		prefixes: prefixes,
	}
}

var placeholder = regexp.MustCompile(`\{\{([^{}]*)\}\}`)

// resolve replaces the placeholders in s, innermost first:
//
//	{{ns}}              the session's namespace
//	{{gen:P:i}}         the i-th name this server made from generateName P
//	{{rv:Kind/name}}    the object's last resourceVersion seen
//	{{oldrv:Kind/name}} its first (stale once it changed)
//	{{uid:Kind/name}}   its uid
//	{{listrv:Kind}}     the last list's resourceVersion
//	{{continue:Kind}}   the last list's continue token
//	{{write:i}}         the resourceVersion the i-th successful write answered with (-1: the last)
//
// What the server never showed resolves to a value both refuse or take alike:
// for a resourceVersion the session's first write's (its namespace's, a
// revision both still hold), a fixed uid, an empty token.
func (st *serverState) resolve(s string) string {
	for strings.Contains(s, "{{") {
		next := placeholder.ReplaceAllStringFunc(s, func(m string) string {
			return st.value(m[2 : len(m)-2])
		})
		if next == s {
			break
		}
		s = next
	}
	return s
}

func (st *serverState) value(p string) string {
	kind, arg, _ := strings.Cut(p, ":")
	switch kind {
	case "ns":
		return st.ns
	case "gen":
		prefix, i, _ := strings.Cut(arg, ":")
		n, _ := strconv.Atoi(i)
		if names := st.gen[prefix]; n < len(names) {
			return names[n]
		}
		return prefix + "missing"
	case "rv", "oldrv":
		rvs := st.rvs[arg]
		switch {
		case len(rvs) == 0:
			return st.first()
		case kind == "oldrv":
			return rvs[0]
		}
		return rvs[len(rvs)-1]
	case "uid":
		if u, ok := st.uids[arg]; ok {
			return u
		}
		return "00000000-0000-0000-0000-000000000000"
	case "listrv":
		if rv := st.listRV[arg]; rv != "" {
			return rv
		}
		return st.first()
	case "continue":
		return st.cont[arg]
	case "write":
		n, _ := strconv.Atoi(arg)
		if n < 0 {
			n += len(st.writes)
		}
		if n >= 0 && n < len(st.writes) {
			return st.writes[n]
		}
		return st.first()
	}
	return "{{" + p + "}}"
}

// first is the resourceVersion the session's first write answered with, "1"
// before it.
func (st *serverState) first() string {
	if len(st.writes) > 0 {
		return st.writes[0]
	}
	return "1"
}

// observe records what an answer shows: objects' resourceVersions and uids,
// lists' resourceVersions and continue tokens, generated names. obj is the
// answer decoded to plain JSON values; kind is the step's kind.
func (st *serverState) observe(s Step, status int, obj any) {
	m, _ := obj.(map[string]any)
	if m == nil {
		return
	}
	meta, _ := m["metadata"].(map[string]any)
	k, _ := m["kind"].(string)
	switch {
	case strings.HasSuffix(k, "List") || k == "Table":
		if rv, _ := meta["resourceVersion"].(string); rv != "" {
			st.listRV[s.Kind] = rv
		}
		c, _ := meta["continue"].(string)
		st.cont[s.Kind] = c
		items, _ := m["items"].([]any)
		for _, it := range items {
			if s.Verb == "deletecollection" {
				st.observeDeleted(it)
				continue
			}
			st.observeObject(s.Kind, it)
		}
		rows, _ := m["rows"].([]any)
		for _, r := range rows {
			if rm, ok := r.(map[string]any); ok {
				st.observeObject(s.Kind, rm["object"])
			}
		}
	case k == "Status" || k == "WatchEvent":
	default:
		name := st.observeObject(s.Kind, obj)
		if status/100 == 2 && name != "" && isWrite(s.Verb) {
			if rv, _ := meta["resourceVersion"].(string); rv != "" {
				st.writes = append(st.writes, rv)
			}
			if prefix := st.resolve(s.GenPrefix); prefix != "" && strings.HasPrefix(name, prefix) && s.Verb == "create" {
				if !slices.Contains(st.gen[prefix], name) {
					st.gen[prefix] = append(st.gen[prefix], name)
				}
			}
		}
	}
}

// observeObject records one object of kind and returns its name.
func (st *serverState) observeObject(kind string, obj any) string {
	m, _ := obj.(map[string]any)
	meta, _ := m["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	if name == "" {
		return ""
	}
	if k, _ := m["kind"].(string); k != "" && k != "PartialObjectMetadata" {
		kind = k
	}
	key := kind + "/" + name
	if rv, _ := meta["resourceVersion"].(string); rv != "" {
		if rvs := st.rvs[key]; len(rvs) == 0 || rvs[len(rvs)-1] != rv {
			st.rvs[key] = append(rvs, rv)
		}
		st.labelRV(rv)
	}
	if uid, _ := meta["uid"].(string); uid != "" {
		st.uids[key] = uid
	}
	return name
}

// observeDeleted labels the resourceVersion of an object a deletecollection
// answered with: kube shows the object as it listed it, and a server that
// shows its deletion's revision instead differs there, but that revision is no
// object revision for the labels of the lists after (see rvLabel).
func (st *serverState) observeDeleted(obj any) {
	m, _ := obj.(map[string]any)
	meta, _ := m["metadata"].(map[string]any)
	rv, _ := meta["resourceVersion"].(string)
	n, err := strconv.ParseUint(rv, 10, 64)
	if err == nil && st.rvLabels[n] == "" && st.deleted[n] == "" {
		st.deleted[n] = fmt.Sprintf("rv@%d(deleted)", st.step)
	}
}

// labelRV gives an object's resourceVersion the label of the step that first
// showed it.
func (st *serverState) labelRV(rv string) {
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil || st.rvLabels[n] != "" {
		return
	}
	st.rvLabels[n] = fmt.Sprintf("rv@%d", st.step)
	i := sort.Search(len(st.rvSorted), func(i int) bool { return st.rvSorted[i] >= n })
	st.rvSorted = append(st.rvSorted, 0)
	copy(st.rvSorted[i+1:], st.rvSorted[i:])
	st.rvSorted[i] = n
}

// rvLabel is a resourceVersion's label: an object's own, or for any other (a
// list's, a bookmark's: the store's revision, which other writers move too) the
// label of the newest object revision at or before it (deletions' aside, but
// in the deletecollection answer that showed them).
func (st *serverState) rvLabel(rv string, inDeletion bool) string {
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil || n == 0 {
		return rv
	}
	if l := st.rvLabels[n]; l != "" {
		return l
	}
	if l := st.deleted[n]; l != "" && inDeletion {
		return l
	}
	i := sort.Search(len(st.rvSorted), func(i int) bool { return st.rvSorted[i] > n })
	if i == 0 {
		return "rv@-"
	}
	return st.rvLabels[st.rvSorted[i-1]]
}

func isWrite(verb string) bool {
	switch verb {
	case "create", "update", "patch", "delete":
		return true
	}
	return false
}

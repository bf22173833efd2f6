package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// What must differ between two servers answering alike is normalized away,
// per server and in order of appearance, so equal behaviour gives equal text:
//
//   - uids become the kind and name of their object and which of its
//     incarnations it is (uid:ConfigMap/a#1), those of no object seen by
//     order, uid#1, uid#2, … (also inside messages and managedFields keys);
//   - resourceVersions become the label of the step that first showed that
//     object revision (rv@3); a list's or bookmark's (the store's revision,
//     which other writers move too) that of the newest object revision at or
//     before it; continue tokens show only their revision and position;
//   - timestamps become <time> (<time.6> with six fractional digits), Table
//     ages <age>;
//   - names made from a generateName become the prefix and <gen#1>, …, and so
//     do the names ServiceAccount admission gives a Pod's token volume;
//   - the session's namespace becomes <ns> (its runs and replays use others);
//   - APF's FlowSchema and PriorityLevel uids become their objects' names;
//   - Audit-Id becomes whether it is there;
//   - managedFields entries are ordered without their times (and a YAML
//     document's key order leaves them out).

var (
	uidPattern  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$`)
	// genAlphabet is what kube's names.SimpleNameGenerator appends 5 of.
	genAlphabet = "[bcdfghjklmnpqrstvwxz2456789]{5}"
	// tokenVolumePrefix is the generated prefix of a Pod's token volume.
	tokenVolumePrefix = "kube-api-access-"
	// rvInMessage: kube's messages that quote resourceVersions (every number
	// in a match is one).
	rvInMessage = regexp.MustCompile(`(?i)too (?:old|large) resource version: \d+(?: \(\d+\)|, current: \d+)?|ResourceVersion in (?:precondition|object meta): \d+|ResourceVersion in (?:the precondition|record) \(\d+\)`)
	digits      = regexp.MustCompile(`\d+`)
)

// normalizer normalizes one server's answers in one session.
type normalizer struct {
	st           *serverState
	inDeletion   bool           // normalizing a deletecollection's answer
	incarnations map[string]int // "Kind/name" → uids labelled for it
	uidNext      int
	genNext      int
	gen          *regexp.Regexp    // the session's generateNames followed by 5 generated characters
	apf          map[string]string // APF object uid → kind/name
}

func newNormalizer(st *serverState, apf map[string]string) *normalizer {
	n := &normalizer{st: st, apf: apf, incarnations: map[string]int{}}
	alts := []string{tokenVolumePrefix}
	for _, p := range st.prefixes {
		alts = append(alts, regexp.QuoteMeta(p))
	}
	n.gen = regexp.MustCompile(`\b(` + strings.Join(alts, "|") + `)` + genAlphabet + `\b`)
	return n
}

// str normalizes a string value found under key.
func (n *normalizer) str(key, s string) string {
	switch {
	case s == "":
		return s
	case key == "resourceVersion":
		return n.st.rvLabel(s, n.inDeletion)
	case key == "continue":
		return n.continueToken(s)
	case key == "kubernetes.io/initial-events-list-blueprint":
		if doc, ok := cborBlueprint(s); ok {
			return doc
		}
	case timePattern.MatchString(s):
		if m := timePattern.FindStringSubmatch(s); m[1] != "" {
			return fmt.Sprintf("<time.%d>", len(m[1])-1)
		}
		return "<time>"
	}
	s = uidPattern.ReplaceAllStringFunc(s, n.uid)
	s = n.gen.ReplaceAllStringFunc(s, func(name string) string {
		if l := n.st.genLabels[name]; l != "" {
			return l
		}
		n.genNext++
		prefix := name[:len(name)-5]
		l := fmt.Sprintf("%s<gen#%d>", prefix, n.genNext)
		n.st.genLabels[name] = l
		return l
	})
	if n.st.ns != "" {
		s = strings.ReplaceAll(s, n.st.ns, "<ns>")
	}
	if key == "message" || key == "Warning" {
		s = rvInMessage.ReplaceAllStringFunc(s, func(m string) string {
			return digits.ReplaceAllStringFunc(m, func(rv string) string { return n.st.rvLabel(rv, false) })
		})
	}
	return s
}

// cborBlueprint shows a CBOR watch's initial-events-list-blueprint (an empty
// list, base64 CBOR) by its content: kube-apiserver encodes its keys in no
// fixed order, so no order is compared.
func cborBlueprint(text string) (string, bool) {
	raw, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return "", false
	}
	d := decodeCBOR(raw)
	if len(d.docs) != 1 {
		return "", false
	}
	return "<cbor " + render(d.docs[0], 0) + ">", true
}

func (n *normalizer) uid(u string) string {
	if l := n.st.uidLabels[u]; l != "" {
		return l
	}
	n.uidNext++
	l := fmt.Sprintf("uid#%d", n.uidNext)
	n.st.uidLabels[u] = l
	return l
}

// continueToken shows what a continue token holds that clients depend on: the
// revision it continues at and the key it continues after (kube's and
// kubeplay's are base64 JSON {"v","rv","start"}; kubeplay's adds a MAC that
// binds it to its list).
func (n *normalizer) continueToken(tok string) string {
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.StdEncoding, base64.RawStdEncoding} {
		b, err := enc.DecodeString(tok)
		if err != nil {
			continue
		}
		var t struct {
			V     string `json:"v"`
			RV    int64  `json:"rv"`
			Start string `json:"start"`
		}
		if json.Unmarshal(b, &t) == nil && t.V != "" {
			return fmt.Sprintf("<continue %s rv=%s start=%q>", t.V, n.st.rvLabel(strconv.FormatInt(t.RV, 10), false), n.str("", t.Start))
		}
	}
	return "<continue: opaque>"
}

// learnUIDs labels the uids of the objects in a document (an object, a
// list's items, a Table's rows, a watch event's object) by their kind and
// name, so that an object one server made and the other refused shifts no
// other's label. kind is the step's, for items that do not name theirs.
func (n *normalizer) learnUIDs(v any, kind string) {
	o, ok := v.(*object)
	if !ok {
		return
	}
	if k, _ := o.get("kind").(string); k != "" && !strings.HasSuffix(k, "List") && k != "Table" && k != "PartialObjectMetadata" &&
		k != "WatchEvent" && k != "Status" {
		kind = k
	}
	if meta, ok := o.get("metadata").(*object); ok {
		name, _ := meta.get("name").(string)
		uid, _ := meta.get("uid").(string)
		if name != "" && uid != "" && n.st.uidLabels[uid] == "" {
			key := kind + "/" + n.str("", name)
			n.incarnations[key]++
			n.st.uidLabels[uid] = fmt.Sprintf("uid:%s#%d", key, n.incarnations[key])
		}
	}
	for _, f := range []string{"items", "rows"} {
		list, _ := o.get(f).([]any)
		for _, it := range list {
			if row, ok := it.(*object); ok && f == "rows" {
				n.learnUIDs(row.get("object"), kind)
			} else {
				n.learnUIDs(it, kind)
			}
		}
	}
	n.learnUIDs(o.get("object"), kind)
}

// doc normalizes a document (in place; documents are not shared).
func (n *normalizer) doc(v any, key string) any {
	switch v := v.(type) {
	case *object:
		if k, _ := v.get("kind").(string); k == "Table" {
			n.tableAges(v)
		}
		out := &object{vals: make(map[string]any, len(v.keys)), unordered: v.unordered}
		for _, k := range v.keys {
			out.set(n.str("", k), n.doc(v.vals[k], k))
		}
		return out
	case []any:
		for i, x := range v {
			v[i] = n.doc(x, key)
		}
		if key == "managedFields" {
			sortManagedFields(v)
		}
		return v
	case string:
		return n.str(key, v)
	}
	return v
}

// sortManagedFields orders managedFields entries without their times: kube
// orders them by operation, then time to the second, then manager, and two
// servers writing in the same order may cross a second's boundary
// differently.
func sortManagedFields(entries []any) {
	key := func(e any) string {
		o, ok := e.(*object)
		if !ok {
			return ""
		}
		var parts []string
		for _, k := range []string{"operation", "manager", "subresource", "apiVersion"} {
			s, _ := o.get(k).(string)
			parts = append(parts, s)
		}
		return strings.Join(parts, "\x00")
	}
	sort.SliceStable(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
}

// tableAges replaces the cells of a Table's Age columns, which tell how long
// ago an object was made, by <age>.
func (n *normalizer) tableAges(t *object) {
	cols, _ := t.get("columnDefinitions").([]any)
	var ages []int
	for i, c := range cols {
		if o, ok := c.(*object); ok && o.get("name") == "Age" {
			ages = append(ages, i)
		}
	}
	rows, _ := t.get("rows").([]any)
	for _, r := range rows {
		ro, ok := r.(*object)
		if !ok {
			continue
		}
		cells, _ := ro.get("cells").([]any)
		for _, i := range ages {
			if i < len(cells) {
				cells[i] = "<age>"
			}
		}
	}
}

// comparedHeaders are the response headers clients read.
var comparedHeaders = []string{"Content-Type", "Content-Encoding", "Warning", "Retry-After",
	"X-Kubernetes-Pf-Flowschema-Uid", "X-Kubernetes-Pf-Prioritylevel-Uid", "Audit-Id"}

// header normalizes the compared headers into a document.
func (n *normalizer) header(h http.Header) *object {
	o := &object{vals: map[string]any{}}
	for _, k := range comparedHeaders {
		vals := h.Values(k)
		if len(vals) == 0 {
			continue
		}
		switch k {
		case "Audit-Id":
			o.set(k, "<present>")
		case "X-Kubernetes-Pf-Flowschema-Uid", "X-Kubernetes-Pf-Prioritylevel-Uid":
			if name := n.apf[vals[0]]; name != "" {
				o.set(k, name)
			} else {
				o.set(k, "<unknown APF uid>")
			}
		case "Warning":
			list := make([]any, len(vals))
			for i, v := range vals {
				list[i] = n.str("Warning", v)
			}
			o.set(k, list)
		default:
			o.set(k, strings.Join(vals, ", "))
		}
	}
	return o
}

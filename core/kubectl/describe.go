package kubectl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/spf13/pflag"
)

// This file owns `kubectl describe`: finding the objects as kubectl's
// resource builder does (TYPE [NAME_PREFIX...], TYPE/NAME..., -l, -A), the
// describers by kind, the layout they share (describeWriter: kubectl's
// PrefixWriter over a tabwriter), the Events section and the generic
// describer of every other kind. The kinds' own describers are in
// describe_*.go.

// Accept headers: the builder and the generic describer read objects as
// JSON; kubectl's typed describers ask for protobuf first, which this module
// does not decode (its decoder would add ~350 KB gzip), so they read JSON.
const (
	acceptJSON  = "application/json"
	acceptTyped = "application/json"
	// acceptTypedAny is what kubectl's clients of its compiled-in scheme
	// (set, rollout, scale's) accept.
	acceptTypedAny = "application/json, */*"
)

// chunkSize is kubectl's --chunk-size default: the limit of every list.
const chunkSize = 500

func init() {
	register("describe", func(fs *pflag.FlagSet) runFunc {
		o := &describeOptions{}
		o.files.add(fs, "Filename, directory, or URL to files containing the resource to describe")
		fs.StringVarP(&o.selector, "selector", "l", "", "Selector (label query) to filter on.")
		fs.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "If present, list the requested object(s) across all namespaces.")
		fs.BoolVar(&o.showEvents, "show-events", true, "If true, display events related to the described object.")
		fs.Int64Var(&o.chunkSize, "chunk-size", chunkSize, "Return large lists in chunks rather than all at once.")
		return o.run
	})
}

type describeOptions struct {
	files         filenameFlags
	selector      string
	allNamespaces bool
	showEvents    bool
	chunkSize     int64
}

// describeTarget is one object the builder found.
type describeTarget struct {
	r               Resource
	namespace, name string
}

// describerFunc describes one object, fetching what it shows.
type describerFunc func(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error)

// describers are kubectl's typed describers, by group and kind.
var describers = map[string]describerFunc{}

func (o *describeOptions) run(c *Cmd, args []string) error {
	if len(args) == 0 && len(o.files.Filenames) == 0 {
		return errors.New(`You must specify the type of resource to describe. Use "kubectl api-resources" for a complete list of supported resources.`)
	}
	ns := c.NamespaceOrDefault()
	targets, errs := o.find(c, args, ns)
	if len(targets) == 0 && len(errs) == 1 && len(args) == 2 && !strings.Contains(args[0], "/") {
		var se *StatusError
		if errors.As(errs[0], &se) && se.Code == 404 {
			return o.describePrefix(c, args[0], args[1], ns, errs[0])
		}
	}
	seen := map[string]bool{}
	first := true
	for _, t := range targets {
		s, err := o.describe(c, t)
		if err != nil {
			if !seen[err.Error()] {
				seen[err.Error()] = true
				errs = append(errs, err)
			}
			continue
		}
		if first {
			first = false
			fmt.Fprint(c.Stdout, s)
		} else {
			fmt.Fprintf(c.Stdout, "\n\n%s", s)
		}
	}
	if len(targets) == 0 && len(errs) == 0 {
		if o.allNamespaces {
			fmt.Fprintln(c.Stderr, "No resources found")
		} else {
			fmt.Fprintf(c.Stderr, "No resources found in %s namespace.\n", ns)
		}
	}
	if len(o.files.Filenames) > 0 && len(errs) > 0 {
		// The file builder's aggregate: each error on its line, even one.
		return errorList(errs)
	}
	return errorList(errs).reduce()
}

// find resolves the arguments to objects as kubectl's builder does: each
// TYPE/NAME fetched, TYPE NAME... fetched by name, TYPE alone (or with -l)
// listed. It returns what it found and the errors it met on the way.
func (o *describeOptions) find(c *Cmd, args []string, ns string) ([]describeTarget, []error) {
	if o.allNamespaces {
		ns = ""
	}
	var targets []describeTarget
	var errs []error
	get := func(r Resource, ns, name string) {
		data, err := c.fetchObject(r, ns, name, acceptJSON)
		if err != nil {
			errs = append(errs, err)
			return
		}
		m, err := decodeObject(data)
		if err != nil {
			errs = append(errs, err)
			return
		}
		targets = append(targets, describeTarget{r, stringAt(m, "metadata", "namespace"), stringAt(m, "metadata", "name")})
	}
	if len(o.files.Filenames) > 0 {
		// -f: each manifest's object, in its own namespace (or the
		// command's), left to its describer to fetch (kubectl's builder
		// reads files without asking the server).
		objs, streamErrs, err := c.readManifests(o.files)
		if err != nil {
			return nil, []error{err}
		}
		for _, m := range objs {
			obj, err := c.mapObject(m)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			targets = append(targets, describeTarget{obj.Resource, obj.Namespace, obj.Name})
		}
		return targets, append(errs, streamErrs...)
	}
	if strings.Contains(args[0], "/") {
		if o.selector != "" {
			return nil, []error{errors.New("name cannot be provided when a selector is specified")}
		}
		for _, a := range args {
			typ, name, ok := strings.Cut(a, "/")
			if !ok {
				return nil, []error{fmt.Errorf("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl describe resource/<resource_name>' instead of 'kubectl describe resource resource/<resource_name>'")}
			}
			r, err := c.Resolve(typ)
			if err != nil {
				return nil, []error{err}
			}
			get(r, ns, name)
		}
		return targets, errs
	}
	var types []Resource
	for _, typ := range strings.Split(args[0], ",") {
		r, err := c.Resolve(typ)
		if err != nil {
			return nil, []error{err}
		}
		types = append(types, r)
	}
	if names := args[1:]; len(names) > 0 {
		if o.selector != "" {
			return nil, []error{errors.New("name cannot be provided when a selector is specified")}
		}
		for _, r := range types {
			for _, name := range names {
				get(r, ns, name)
			}
		}
		return targets, errs
	}
	for _, r := range types {
		q := url.Values{}
		if o.selector != "" {
			q.Set("labelSelector", o.selector)
		}
		items, err := c.listAll(r.Path(ns, ""), q, acceptJSON, o.chunkSize)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, it := range items {
			targets = append(targets, describeTarget{r, stringAt(it, "metadata", "namespace"), stringAt(it, "metadata", "name")})
		}
	}
	return targets, errs
}

// describePrefix is kubectl's answer to `describe TYPE NAME` when NAME is not
// found: every object of the type whose name starts with NAME, each followed
// by a blank line; the NotFound if there is none.
func (o *describeOptions) describePrefix(c *Cmd, typ, prefix, ns string, notFound error) error {
	r, err := c.Resolve(typ)
	if err != nil {
		return err
	}
	items, err := c.listAll(r.Path(ns, ""), url.Values{}, acceptJSON, o.chunkSize)
	if err != nil {
		return err
	}
	found := false
	for _, it := range items {
		name := stringAt(it, "metadata", "name")
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		found = true
		s, err := o.describe(c, describeTarget{r, stringAt(it, "metadata", "namespace"), name})
		if err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "%s\n", s)
	}
	if !found {
		return notFound
	}
	return nil
}

// describe describes one object with its kind's describer, or the generic
// one.
func (o *describeOptions) describe(c *Cmd, t describeTarget) (string, error) {
	if d, ok := describers[t.r.Group+"/"+t.r.Kind]; ok {
		return d(c, o, t.r, t.namespace, t.name)
	}
	return describeGeneric(c, o, t.r, t.namespace, t.name)
}

// listAll lists path in chunks of limit, following continue tokens, and
// returns the items.
func (c *Cmd) listAll(path string, q url.Values, accept string, limit int64) ([]map[string]any, error) {
	var items []map[string]any
	for {
		query := url.Values{}
		for k, v := range q {
			query[k] = v
		}
		if limit > 0 {
			query.Set("limit", fmt.Sprint(limit))
		}
		m, err := c.getObject(path, query, accept)
		if err != nil {
			return nil, err
		}
		for _, it := range list(m, "items") {
			if im, ok := it.(map[string]any); ok {
				items = append(items, im)
			}
		}
		next := stringAt(m, "metadata", "continue")
		if next == "" {
			return items, nil
		}
		q = url.Values{}
		for k, v := range query {
			q[k] = v
		}
		q.Set("continue", next)
	}
}

// getObject GETs path (with query q) accepting accept and decodes the
// answer.
func (c *Cmd) getObject(path string, q url.Values, accept string) (map[string]any, error) {
	data, err := c.Do(&Request{Method: "GET", Path: path, Query: q, Header: [][2]string{{"Accept", accept}}})
	if err != nil {
		return nil, err
	}
	return decodeObject(data)
}

// getTyped is a typed describer's GET of one object.
func (c *Cmd) getTyped(path string) (map[string]any, error) {
	return c.getObject(path, nil, acceptTyped)
}

// describeWriter is kubectl's PrefixWriter over describe's tabwriter
// (minwidth 0, tabwidth 8, padding 2, spaces): each level indents two
// spaces, and what it writes has the terminal's escape characters shown.
type describeWriter struct {
	tw  *tabwriter.Writer // nil: written as it comes (rollout history's template)
	buf bytes.Buffer
}

// out is where the writer writes: its tabwriter, or its buffer.
func (w *describeWriter) out() io.Writer {
	if w.tw == nil {
		return &w.buf
	}
	return w.tw
}

func newDescribeWriter() *describeWriter {
	w := &describeWriter{}
	w.tw = tabwriter.NewWriter(&w.buf, 0, 8, 2, ' ', 0)
	return w
}

// write is PrefixWriter.Write: format at level.
func (w *describeWriter) write(level int, format string, a ...any) {
	terminalEscaper.WriteString(w.out(), fmt.Sprintf(strings.Repeat("  ", level)+format, a...))
}

// line is PrefixWriter.WriteLine: its words, a newline.
func (w *describeWriter) line(a ...any) {
	terminalEscaper.WriteString(w.out(), fmt.Sprintln(a...))
}

// flush is PrefixWriter.Flush: the columns so far are laid out.
func (w *describeWriter) flush() {
	if w.tw != nil {
		w.tw.Flush()
	}
}

// String flushes and returns the description.
func (w *describeWriter) String() string {
	w.flush()
	return w.buf.String()
}

// labels prints a map of labels under title, one per line in key order,
// "<none>" when empty (printLabelsMultilineWithIndent).
func (w *describeWriter) labels(initialIndent, title, innerIndent string, m map[string]string) {
	w.write(0, "%s%s:%s", initialIndent, title, innerIndent)
	if len(m) == 0 {
		w.line("<none>")
		return
	}
	for i, k := range sortedKeys(m) {
		if i != 0 {
			w.write(0, "%s", initialIndent)
			w.write(0, "%s", innerIndent)
		}
		w.write(0, "%s=%s\n", k, m[k])
	}
}

// maxAnnotationLen is where describe folds an annotation onto lines of its
// own.
const maxAnnotationLen = 140

// annotations prints annotations under title, without the
// last-applied-configuration (printAnnotationsMultiline).
func (w *describeWriter) annotations(title string, m map[string]string) {
	w.write(0, "%s:\t", title)
	var keys []string
	for _, k := range sortedKeys(m) {
		if k != "kubectl.kubernetes.io/last-applied-configuration" {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		w.line("<none>")
		return
	}
	for i, k := range keys {
		if i != 0 {
			w.write(0, "\t")
		}
		v := strings.TrimSuffix(m[k], "\n")
		if len(v)+len(k)+2 > maxAnnotationLen || strings.Contains(v, "\n") {
			w.write(0, "%s:\n", k)
			for _, s := range strings.Split(v, "\n") {
				if len(s) > maxAnnotationLen-2 {
					s = s[:maxAnnotationLen-2] + "..."
				}
				w.write(0, "\t  %s\n", s)
			}
		} else {
			w.write(0, "%s: %s\n", k, v)
		}
	}
}

// objectMeta prints the Name, Namespace, Labels and Annotations lines most
// describers start with.
func (w *describeWriter) objectMeta(o map[string]any) {
	w.write(0, "Name:\t%s\n", stringAt(o, "metadata", "name"))
	w.write(0, "Namespace:\t%s\n", stringAt(o, "metadata", "namespace"))
	w.labels("", "Labels", "\t", strMap(o, "metadata", "labels"))
	w.annotations("Annotations", strMap(o, "metadata", "annotations"))
}

// searchEvents lists the events about an object as kubectl's searchEvents
// does: a field selector on the involved object's name, namespace, kind and
// uid (those that are set), in the object's namespace. kubectl builds the
// selector from a map, so its terms come in any order; these come in the
// order the client declares them.
func (c *Cmd) searchEvents(o *describeOptions, namespace, name, kind, uid string) ([]map[string]any, error) {
	terms := []string{"involvedObject.name=" + name, "involvedObject.namespace=" + namespace}
	if kind != "" {
		terms = append(terms, "involvedObject.kind="+kind)
	}
	if uid != "" {
		terms = append(terms, "involvedObject.uid="+uid)
	}
	path := "/api/v1/events"
	if namespace != "" {
		path = "/api/v1/namespaces/" + namespace + "/events"
	}
	return c.listAll(path, url.Values{"fieldSelector": {strings.Join(terms, ",")}}, acceptTyped, o.chunkSize)
}

// objectEvents are the events about o (kind given), or nil without
// --show-events; an error finding them shows as no events, as in kubectl.
func (c *Cmd) objectEvents(o *describeOptions, obj map[string]any, kind string) []map[string]any {
	if !o.showEvents {
		return nil
	}
	ev, err := c.searchEvents(o, stringAt(obj, "metadata", "namespace"), stringAt(obj, "metadata", "name"), kind, stringAt(obj, "metadata", "uid"))
	if err != nil || ev == nil {
		return []map[string]any{}
	}
	return ev
}

// events prints the Events section (DescribeEvents): nothing when events is
// nil (--show-events=false), "<none>", or a table oldest first by last
// timestamp.
func (w *describeWriter) events(events []map[string]any) {
	if events == nil {
		return
	}
	if len(events) == 0 {
		w.write(0, "Events:\t<none>\n")
		return
	}
	w.flush()
	sort.Sort(eventsBy{events, func(e map[string]any) time.Time {
		t, _ := parseTime(stringAt(e, "lastTimestamp"))
		return t
	}})
	w.write(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n")
	w.write(1, "----\t------\t----\t----\t-------\n")
	for _, e := range events {
		source := stringAt(e, "source", "component")
		if source == "" {
			source = stringAt(e, "reportingComponent")
		}
		w.write(1, "%v\t%v\t%s\t%v\t%v\n", stringAt(e, "type"), stringAt(e, "reason"), eventInterval(e), source, strings.TrimSpace(stringAt(e, "message")))
	}
}

// eventInterval is an event's age as describe and kubectl events print it:
// since it was first seen, or "LAST (xCOUNT over FIRST)" for a repeated one.
func eventInterval(e map[string]any) string {
	first := since(stringAt(e, "eventTime"))
	if _, ok := parseTime(stringAt(e, "eventTime")); !ok {
		first = since(stringAt(e, "firstTimestamp"))
	}
	if has(e, "series") {
		return fmt.Sprintf("%s (x%d over %s)", since(stringAt(e, "series", "lastObservedTime")), num(e, "series", "count"), first)
	} else if num(e, "count") > 1 {
		return fmt.Sprintf("%s (x%d over %s)", since(stringAt(e, "lastTimestamp")), num(e, "count"), first)
	}
	return first
}

// describeGeneric is kubectl's describer of kinds it has none for: the
// object's fields, sorted, with smart labels, then its events.
func describeGeneric(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	obj, err := c.getObject(r.Path(namespace, name), nil, acceptJSON)
	if err != nil {
		return "", err
	}
	events := c.objectEvents(o, obj, stringAt(obj, "kind"))
	w := newDescribeWriter()
	w.objectMeta(obj)
	w.unstructured(0, obj, "", ".metadata.managedFields", ".metadata.name", ".metadata.namespace", ".metadata.labels", ".metadata.annotations")
	w.events(events)
	return w.String(), nil
}

// unstructured prints content's fields in key order (printUnstructuredContent).
func (w *describeWriter) unstructured(level int, content map[string]any, prefix string, skip ...string) {
	skipped := func(p string) bool {
		for _, s := range skip {
			if s == p {
				return true
			}
		}
		return false
	}
	for _, f := range sortedKeys(content) {
		p := prefix + "." + f
		if skipped(p) {
			continue
		}
		switch v := content[f].(type) {
		case map[string]any:
			w.write(level, "%s:\n", smartLabel(f))
			w.unstructured(level+1, v, p, skip...)
		case []any:
			w.write(level, "%s:\n", smartLabel(f))
			for _, child := range v {
				if m, ok := child.(map[string]any); ok {
					w.unstructured(level+1, m, p, skip...)
				} else {
					w.write(level+1, "%v\n", plain(child))
				}
			}
		default:
			w.write(level, "%s:\t%v\n", smartLabel(f), plain(v))
		}
	}
}

// plain is a JSON value as %v prints it from an unstructured object.
func plain(v any) any {
	if v == nil {
		return "<nil>"
	}
	return v
}

// smartLabel is a field's name as the generic describer shows it:
// "creationTimestamp" is "Creation Timestamp", "uid" is "UID"; names with
// characters other than letters and '-' are kept.
func smartLabel(f string) string {
	if strings.IndexFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) >= 0 {
		return f
	}
	var out []string
	for _, part := range camelSplit(f) {
		if part == "_" {
			continue
		}
		switch u := strings.ToUpper(part); u {
		case "API", "URL", "UID", "OSB", "GUID":
			part = u
		default:
			part = titleWord(part)
		}
		out = append(out, part)
	}
	return strings.Join(out, " ")
}

// titleWord is strings.Title of a word of letters and dashes: each letter
// after a non-letter upper-cased.
func titleWord(s string) string {
	rs := []rune(s)
	prevLetter := false
	for i, r := range rs {
		if !prevLetter {
			rs[i] = unicode.ToTitle(r)
		}
		prevLetter = unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '\''
	}
	return string(rs)
}

// camelSplit splits a camel-case word as fatih/camelcase does: at each
// change between lower case, upper case, digits and other characters, an
// upper-case run giving its last letter to a following lower-case run
// ("APIVersion" is "API", "Version").
func camelSplit(s string) []string {
	class := func(r rune) int {
		switch {
		case unicode.IsLower(r):
			return 1
		case unicode.IsUpper(r):
			return 2
		case unicode.IsDigit(r):
			return 3
		}
		return 4
	}
	var runs [][]rune
	last := 0
	for _, r := range s {
		c := class(r)
		if c == last {
			runs[len(runs)-1] = append(runs[len(runs)-1], r)
		} else {
			runs = append(runs, []rune{r})
		}
		last = c
	}
	for i := 0; i < len(runs)-1; i++ {
		if class(runs[i][0]) == 2 && class(runs[i+1][0]) == 1 {
			runs[i+1] = append([]rune{runs[i][len(runs[i])-1]}, runs[i+1]...)
			runs[i] = runs[i][:len(runs[i])-1]
		}
	}
	out := make([]string, 0, len(runs))
	for _, r := range runs {
		if len(r) > 0 {
			out = append(out, string(r))
		}
	}
	return out
}

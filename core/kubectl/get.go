package kubectl

// This file owns `kubectl get`: its arguments (TYPE[,TYPE...] [NAME...],
// TYPE/NAME..., categories such as "all"), the requests kubectl 1.32 sends for
// them (one GET per name, a list per type in chunks of --chunk-size
// following continue, the server-side Table for human output, the watch of
// -w after the list), and what it prints: tables per kind with kind/ prefixes
// when several kinds print and blank lines between them, -o's printers over
// a List of everything, "No resources found", and the errors of the names
// that were not found after what was.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

func init() { register("get", getFlags) }

// getOptions are get's flags.
type getOptions struct {
	print                                *printFlags
	noHeaders, showLabels, allNamespaces bool
	watch, watchOnly, ignoreNotFound     bool
	outputWatchEvents, showKind          bool
	selector, fieldSelector, sortBy, raw string
	files                                filenameFlags
	fileErrs                             errorList
	labelColumns                         []string
	chunkSize                            int64
	serverPrint                          bool
	subresource                          string
	printer                              *printer
	namespace                            string
	human                                bool
}

func getFlags(fs *pflag.FlagSet) runFunc {
	o := &getOptions{}
	o.print = addPrintFlags(fs, true)
	o.files.add(fs, "Filename, directory, or URL to files identifying the resource to get from a server.")
	fs.StringVar(&o.raw, "raw", "", "Raw URI to request from the server.  Uses the transport specified by the kubeconfig file.")
	fs.BoolVarP(&o.watch, "watch", "w", false, "After listing/getting the requested object, watch for changes.")
	fs.BoolVar(&o.watchOnly, "watch-only", false, "Watch for changes to the requested object(s), without listing/getting first.")
	fs.BoolVar(&o.outputWatchEvents, "output-watch-events", false, "Output watch event objects when --watch or --watch-only is used. Existing objects are output as initial ADDED events.")
	fs.BoolVar(&o.ignoreNotFound, "ignore-not-found", false, "If the requested object does not exist the command will return exit code 0.")
	fs.StringVarP(&o.selector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2,key3 in (value3)). Matching objects must satisfy all of the specified label constraints.")
	fs.StringVar(&o.fieldSelector, "field-selector", "", "Selector (field query) to filter on, supports '=', '==', and '!='.(e.g. --field-selector key1=value1,key2=value2). The server only supports a limited number of field queries per type.")
	fs.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "If present, list the requested object(s) across all namespaces. Namespace in current context is ignored even if specified with --namespace.")
	fs.Int64Var(&o.chunkSize, "chunk-size", 500, "Return large lists in chunks rather than all at once. Pass 0 to disable. This flag is beta and may change in the future.")
	fs.BoolVar(&o.noHeaders, "no-headers", false, "When using the default or custom-column output format, don't print headers (default print headers).")
	fs.BoolVar(&o.showLabels, "show-labels", false, "When printing, show all labels as the last column (default hide labels column)")
	fs.BoolVar(&o.showKind, "show-kind", false, "If present, list the resource type for the requested object(s).")
	fs.StringSliceVarP(&o.labelColumns, "label-columns", "L", nil, "Accepts a comma separated list of labels that are going to be presented as columns. Names are case-sensitive. You can also use multiple flag options like -L label1 -L label2...")
	fs.StringVar(&o.sortBy, "sort-by", "", "If non-empty, sort list types using this field specification.  The field specification is expressed as a JSONPath expression (e.g. '{.metadata.name}'). The field in the API resource specified by this JSONPath expression must be an integer or a string.")
	fs.BoolVar(&o.serverPrint, "server-print", true, "If true, have the server return the appropriate table output. Supports extension APIs and CRDs.")
	fs.StringVar(&o.subresource, "subresource", "", "If specified, gets the subresource of the requested object.")
	return o.run
}

// getTarget is one request get makes: a resource's list, or one object.
type getTarget struct {
	res  Resource
	name string // "" lists
	// namespace is a -f manifest's (its own, or the command's); ""
	// for the command's.
	namespace string
}

// ns is the namespace t is asked in.
func (o *getOptions) ns(t getTarget) string {
	if t.namespace != "" {
		return t.namespace
	}
	return o.namespace
}

func (o *getOptions) run(c *Cmd, args []string) error {
	if o.raw != "" {
		switch {
		case len(args) > 0:
			return errors.New("arguments may not be passed when --raw is specified")
		case o.watch || o.watchOnly || o.selector != "":
			return errors.New("--raw may not be specified with other flags that filter the server request or alter the output")
		case o.print.output != "":
			return errors.New("--raw and --output are mutually exclusive")
		}
		return o.getRaw(c)
	}
	o.print.noHeaders = o.noHeaders
	p, printerErr := o.print.printer()
	o.printer, o.human = p, p == nil && printerErr == nil
	if o.showLabels && o.print.output != "" && o.print.output != "wide" {
		return fmt.Errorf("--show-labels option cannot be used with %s printer", o.print.output)
	}
	if o.outputWatchEvents && !o.watch && !o.watchOnly {
		return errors.New("--output-watch-events option can only be used with --watch or --watch-only")
	}
	switch {
	case o.watch && o.sortBy != "":
		fmt.Fprintf(c.Stderr, "warning: --watch requested, --sort-by will be ignored for watch events received\n")
	case o.watchOnly && o.sortBy != "":
		fmt.Fprintf(c.Stderr, "warning: --watch-only requested, --sort-by will be ignored\n")
	case !o.watch && !o.watchOnly && len(args) == 0 && len(o.files.Filenames) == 0:
		fmt.Fprintf(c.Stderr, "You must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources.\n\n")
		return errors.New("Required resource not specified.\nUse \"kubectl explain <resource>\" for a detailed description of that resource (e.g. kubectl explain pods).\nSee 'kubectl get -h' for help and examples")
	}
	o.namespace = c.NamespaceOrDefault()
	targets, err := o.targets(c, args)
	if err != nil {
		return err
	}
	for _, t := range targets {
		if t.name == "" && o.subresource != "" {
			return errors.New("subresource cannot be used when bulk resources are specified")
		}
	}
	if printerErr != nil {
		// kubectl makes its printer for the objects it has read: a bad -o
		// fails after the requests.
		for _, t := range targets {
			if _, err := o.fetch(c, t); err != nil {
				return err
			}
		}
		return printerErr
	}
	if o.watch || o.watchOnly {
		return o.runWatch(c, targets)
	}
	if o.human {
		return o.withFileErrors(o.printTables(c, targets))
	}
	single := len(targets) == 1 && targets[0].name != ""
	if len(o.files.Filenames) > 0 {
		// kubectl's builder implies a single item for one file (not the
		// standard input, not a directory) that holds one object.
		f := o.files.Filenames
		paths, _ := c.expandPath(f[0], o.files.Recursive)
		single = single && len(f) == 1 && f[0] != "-" && len(paths) == 1 && paths[0] == f[0]
	}
	return o.withFileErrors(o.printObjects(c, targets, single))
}

// withFileErrors is err after the -f manifests' errors, which kubectl
// reports after printing the objects it could read, each on its line.
func (o *getOptions) withFileErrors(err error) error {
	if len(o.fileErrs) == 0 {
		return err
	}
	errs := append(errorList(nil), o.fileErrs...)
	var list errorList
	switch {
	case errors.As(err, &list):
		errs = append(errs, list...)
	case err != nil:
		errs = append(errs, err)
	}
	return errs
}

// targets resolves get's arguments to its requests, in kubectl's order.
func (o *getOptions) targets(c *Cmd, args []string) ([]getTarget, error) {
	if len(o.files.Filenames) > 0 {
		return o.fileTargets(c)
	}
	if len(args) == 0 {
		return nil, errors.New("You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")
	}
	var slashed int
	for _, a := range args {
		if strings.Contains(a, "/") {
			slashed++
		}
	}
	var out []getTarget
	if slashed > 0 {
		if slashed != len(args) {
			return nil, errors.New("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'")
		}
		for _, a := range args {
			typ, name, _ := strings.Cut(a, "/")
			if typ == "" || name == "" || strings.Contains(name, "/") {
				return nil, fmt.Errorf("arguments in resource/name form must have a single resource and name")
			}
			res, err := c.Resolve(typ)
			if err != nil {
				return nil, err
			}
			if o.allNamespaces && res.Namespaced {
				return nil, errors.New("a resource cannot be retrieved by name across all namespaces")
			}
			out = append(out, getTarget{res: res, name: name})
		}
		return out, nil
	}
	var resources []Resource
	for _, typ := range strings.Split(args[0], ",") {
		if typ == "" {
			continue
		}
		// A category ("all", "api-extensions") is its resources, as
		// kubectl's category expander makes it before anything else.
		cat, err := c.Category(typ)
		if err != nil {
			return nil, err
		}
		if len(cat) > 0 {
			resources = append(resources, cat...)
			continue
		}
		res, err := c.Resolve(typ)
		if err != nil {
			return nil, err
		}
		resources = append(resources, res)
	}
	names := args[1:]
	if len(names) > 0 && o.allNamespaces {
		for _, r := range resources {
			if r.Namespaced {
				return nil, errors.New("a resource cannot be retrieved by name across all namespaces")
			}
		}
	}
	if len(names) > 0 && (o.selector != "" || o.fieldSelector != "") {
		return nil, errors.New("name cannot be provided when a selector is specified")
	}
	for _, res := range resources {
		if len(names) == 0 {
			out = append(out, getTarget{res: res})
		}
		for _, n := range names {
			out = append(out, getTarget{res: res, name: n})
		}
	}
	return out, nil
}

// fileTargets are the objects of -f's manifests, each in its own
// namespace (or the command's); those that cannot be read or mapped are
// left out, their errors kept for the end (kubectl's ContinueOnError).
func (o *getOptions) fileTargets(c *Cmd) ([]getTarget, error) {
	objs, streamErrs, err := c.readManifests(o.files)
	if err != nil {
		return nil, err
	}
	var out []getTarget
	for _, m := range objs {
		obj, err := c.mapObject(m)
		if err != nil {
			o.fileErrs = append(o.fileErrs, err)
			continue
		}
		out = append(out, getTarget{res: obj.Resource, name: obj.Name, namespace: obj.Namespace})
	}
	o.fileErrs = append(o.fileErrs, streamErrs...)
	return out, nil
}

// request is the GET kubectl sends for t; cont is the continue token of a
// list's next chunk.
func (o *getOptions) request(t getTarget, cont string) *Request {
	ns := o.ns(t)
	if o.allNamespaces && t.name == "" {
		ns = ""
	}
	q := url.Values{}
	if t.name == "" {
		if o.selector != "" {
			q.Set("labelSelector", o.selector)
		}
		if o.fieldSelector != "" {
			q.Set("fieldSelector", o.fieldSelector)
		}
		if o.chunkSize > 0 && o.sortBy == "" {
			q.Set("limit", strconv.FormatInt(o.chunkSize, 10))
		}
		if cont != "" {
			q.Set("continue", cont)
		}
	}
	path := t.res.Path(ns, t.name)
	if t.name != "" && o.subresource != "" {
		path += "/" + o.subresource
	}
	req := &Request{Method: "GET", Path: path, Query: q}
	if o.human && o.serverPrint {
		req.Header = [][2]string{{"Accept", tableAccept}}
		if o.sortBy != "" {
			q.Set("includeObject", "Object")
		}
	} else {
		req.Header = [][2]string{{"Accept", "application/json"}}
	}
	return req
}

// fetch sends t's requests (a list's chunks) and returns each answer's body.
func (o *getOptions) fetch(c *Cmd, t getTarget) ([][]byte, error) {
	var pages [][]byte
	cont := ""
	for {
		req := o.request(t, cont)
		data, err := c.Do(req)
		if err != nil {
			if t.name == "" {
				o.enhanceListError(err, t.res)
			} else if ns := o.ns(t); isNotFound(err) && t.res.Namespaced && ns != "default" {
				// kubectl asks whether the namespace exists, and says so if
				// it does not.
				_, nsErr := c.Do(&Request{Method: "GET", Path: "/api/v1/namespaces/" + ns, Header: req.Header})
				if isNotFound(nsErr) {
					err = nsErr
				}
			}
			return pages, err
		}
		pages = append(pages, data)
		if t.name != "" {
			return pages, nil
		}
		var meta struct {
			Metadata struct {
				Continue string `json:"continue"`
			} `json:"metadata"`
		}
		json.Unmarshal(data, &meta)
		if meta.Metadata.Continue == "" {
			return pages, nil
		}
		cont = meta.Metadata.Continue
	}
}

// enhanceListError says which list failed in a BadRequest or NotFound
// answer's message, as kubectl's resource builder does.
func (o *getOptions) enhanceListError(err error, r Resource) {
	var se *StatusError
	if !errors.As(err, &se) || se.Status.Reason != "BadRequest" && se.Status.Reason != "NotFound" {
		return
	}
	subj := r.Group + "/" + r.Version + ", Resource=" + r.Resource
	if o.selector == "" && o.fieldSelector == "" {
		se.Status.Message = fmt.Sprintf("Unable to list %q: %v", subj, se.Status.Message)
	} else {
		se.Status.Message = fmt.Sprintf("Unable to find %q that match label selector %q, field selector %q: %v", subj, o.selector, o.fieldSelector, se.Status.Message)
	}
}

// isNotFound says whether err is the server's NotFound.
func isNotFound(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Status.Reason == "NotFound"
}

// printTables is get's human-readable output: each kind's Table, kind/
// prefixes when several kinds were asked for, blank lines between kinds.
func (o *getOptions) printTables(c *Cmd, targets []getTarget) error {
	type result struct {
		t     getTarget
		pages []*table
	}
	var results []result
	var errs []error
	for _, t := range targets {
		pages, err := o.fetch(c, t)
		if err != nil && !(o.ignoreNotFound && isNotFound(err)) {
			errs = append(errs, err)
		}
		r := result{t: t}
		for _, data := range pages {
			tbl, err := decodeTable(data)
			if err != nil {
				return err
			}
			r.pages = append(r.pages, tbl)
		}
		if len(r.pages) > 0 {
			results = append(results, r)
		}
	}
	withKind := o.showKind
	for _, r := range results {
		if r.t.res.GroupResource() != results[0].t.res.GroupResource() || r.t.res.Kind != results[0].t.res.Kind {
			withKind = true
		}
	}
	if o.sortBy != "" {
		field, err := relaxedJSONPath(o.sortBy)
		if err != nil {
			field = o.sortBy
		}
		for i, r := range results {
			var sorted []*table
			for _, tbl := range r.pages {
				err := error(nil)
				if len(tbl.Rows) > 1 {
					err = sortRows(tbl, field)
				}
				var ue *unsortableError
				if errors.As(err, &ue) {
					return c.fatal("sorter.go:375", "Field %s in [][][]reflect.Value is an unsortable type: interface, err: %v", field, ue)
				}
				// kubectl's sorting printer fails, and get ignores what
				// a printer returns: the page prints nothing.
				if err == nil {
					sorted = append(sorted, tbl)
				}
			}
			results[i].pages = sorted
		}
	}
	written := &countingWriter{w: c.Stdout}
	var tp *tablePrinter
	var last Resource
	ready := false
	allNamespaced := !o.allNamespaces
	for i, r := range results {
		allNamespaced = allNamespaced && r.t.res.Namespaced
		if tp == nil || r.t.res.GroupResource() != last.GroupResource() || r.t.res.Version != last.Version {
			if i > 0 && !o.noHeaders && written.n > 0 {
				ready = true
			}
			tp = &tablePrinter{wide: o.print.output == "wide", noHeaders: o.noHeaders, showLabels: o.showLabels,
				labelColumns: o.labelColumns, withNamespace: o.allNamespaces && r.t.res.Namespaced}
			if withKind {
				tp.kind = strings.ToLower(r.t.res.Kind)
				if r.t.res.Group != "" {
					tp.kind += "." + r.t.res.Group
				}
			}
			last = r.t.res
		}
		var b strings.Builder
		tw := newTabWriter(&b)
		for _, tbl := range r.pages {
			tp.print(tw, tbl)
		}
		tw.Flush()
		if b.Len() > 0 && ready {
			io.WriteString(written, "\n")
			ready = false
		}
		io.WriteString(written, b.String())
	}
	if written.n == 0 && !o.ignoreNotFound && len(errs) == 0 {
		if allNamespaced {
			fmt.Fprintf(c.Stderr, "No resources found in %s namespace.\n", o.namespace)
		} else {
			fmt.Fprintln(c.Stderr, "No resources found")
		}
	}
	return errorList(errs).reduce()
}

// printObjects is get's output with -o: one object as it is when one name
// was asked for, else a List of every object.
func (o *getOptions) printObjects(c *Cmd, targets []getTarget, single bool) error {
	var items []Object
	var errs []error
	for _, t := range targets {
		pages, err := o.fetch(c, t)
		if err != nil {
			if single {
				if o.ignoreNotFound && isNotFound(err) {
					return nil
				}
				return err
			}
			if !(o.ignoreNotFound && isNotFound(err)) {
				errs = append(errs, err)
			}
		}
		for _, data := range pages {
			obj, err := decodeObject(data)
			if err != nil {
				return err
			}
			if t.name != "" {
				items = append(items, obj)
			} else {
				items = append(items, listObjects(obj)...)
			}
		}
	}
	if len(items) == 0 && o.ignoreNotFound {
		return errorList(errs).reduce()
	}
	if o.sortBy != "" {
		field, err := relaxedJSONPath(o.sortBy)
		if err != nil {
			field = o.sortBy
		}
		if len(items) > 1 {
			err := sortObjects(items, field)
			var ue *unsortableError
			if errors.As(err, &ue) {
				return c.fatal("sorter.go:329", "Field %s in *unstructured.Unstructured is an unsortable type: interface, err: %v", field, ue)
			}
			if err != nil {
				return err
			}
		}
	}
	o.logNotTable(c)
	if single && len(items) == 1 {
		if err := o.printer.print(c.Stdout, items[0]); err != nil {
			return err
		}
		return errorList(errs).reduce()
	}
	if err := o.printer.print(c.Stdout, listOf(items)); err != nil {
		errs = append(errs, err)
	}
	return errorList(errs).reduce()
}

// sortObjects sorts objects by field as kubectl's RuntimeSort does.
func sortObjects(items []Object, field string) error {
	t := &table{Rows: make([]tableRow, len(items))}
	for i, it := range items {
		t.Rows[i].Object = it
	}
	if err := sortRows(t, field); err != nil {
		return err
	}
	for i := range items {
		items[i] = t.Rows[i].Object
	}
	return nil
}

// getRaw is --raw: the path's answer as it came.
func (o *getOptions) getRaw(c *Cmd) error {
	path, query, _ := strings.Cut(o.raw, "?")
	q, err := url.ParseQuery(query)
	if err != nil {
		return fmt.Errorf("--raw must be a valid URL path: %v", err)
	}
	data, err := c.Do(&Request{Method: "GET", Path: path, Query: q})
	if err != nil {
		return err
	}
	_, err = c.Stdout.Write(data)
	return err
}

// countingWriter counts what it writes.
type countingWriter struct {
	w io.Writer
	n int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	return w.w.Write(p)
}

// runWatch is -w and --watch-only: the object or list (printed unless
// --watch-only), then a watch from the list's resourceVersion (an object's
// from "0", whose first event, the object again, is not printed), each
// event's object printed as it comes, until ctx ends (Ctrl-C: exit code 1,
// as kubectl's interrupt handler exits) or the server ends the watch.
func (o *getOptions) runWatch(c *Cmd, targets []getTarget) error {
	for _, t := range targets[1:] {
		if t.res.GroupResource() != targets[0].res.GroupResource() {
			return errors.New("you may only specify a single resource type")
		}
	}
	t := targets[0]
	pages, err := o.fetch(c, t)
	if err != nil {
		return err
	}
	tw := newTabWriter(c.Stdout)
	tp := &tablePrinter{wide: o.print.output == "wide", noHeaders: o.noHeaders, showLabels: o.showLabels,
		labelColumns: o.labelColumns, withNamespace: o.allNamespaces && t.res.Namespaced}
	rv := "0"
	for _, data := range pages {
		obj, err := decodeObject(data)
		if err != nil {
			return err
		}
		if t.name == "" {
			rv = str(obj, "metadata", "resourceVersion")
		}
		if o.watchOnly {
			continue
		}
		if err := o.printWatched(c, tp, tw, "ADDED", obj, data); err != nil {
			return err
		}
	}
	tw.Flush()
	q := url.Values{"watch": {"true"}, "resourceVersion": {rv}}
	if o.selector != "" {
		q.Set("labelSelector", o.selector)
	}
	switch {
	case t.name != "":
		q.Set("fieldSelector", "metadata.name="+t.name)
	case o.fieldSelector != "":
		q.Set("fieldSelector", o.fieldSelector)
	}
	ns := o.namespace
	if o.allNamespaces {
		ns = ""
	}
	req := &Request{Method: "GET", Path: t.res.Path(ns, ""), Query: q, Header: [][2]string{{"Accept", "application/json"}}}
	if o.human && o.serverPrint {
		req.Header = [][2]string{{"Accept", tableAccept}}
	}
	resp, err := c.Stream(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.Code/100 != 2 {
		data, _ := io.ReadAll(resp.Body)
		return newStatusError(resp.Code, data)
	}
	skip := t.name != ""
	d := json.NewDecoder(resp.Body)
	d.UseNumber()
	for {
		var ev struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := d.Decode(&ev); err != nil {
			if c.Ctx.Err() != nil {
				return &exitError{code: 1, err: errSilent}
			}
			return nil
		}
		if skip {
			skip = false
			continue
		}
		obj, err := decodeObject(ev.Object)
		if err != nil {
			return err
		}
		if err := o.printWatched(c, tp, tw, ev.Type, obj, ev.Object); err != nil {
			return err
		}
		tw.Flush()
	}
}

// logNotTable is kubectl's -v=2 line as its Table printer passes an object
// on to -o's printer: for the formats that leave --server-print on (name and
// go-template; yaml, json, jsonpath and custom-columns turn it off).
func (o *getOptions) logNotTable(c *Cmd) {
	if c.Verbosity >= 2 && o.print.serverPrint() {
		c.logf("table_printer.go:45", "Unable to decode server response into a Table. Falling back to hardcoded types: attempt to decode non-Table object")
	}
}

// printWatched prints one object of a watch: a Table's rows, or the object
// through -o's printer (as a watch event with --output-watch-events).
func (o *getOptions) printWatched(c *Cmd, tp *tablePrinter, tw *tabWriter, eventType string, obj Object, data []byte) error {
	if !o.human {
		for _, it := range listObjects(obj) {
			o.logNotTable(c)
			var err error
			switch {
			case !o.outputWatchEvents || o.printer.format == "name":
				err = o.printer.print(c.Stdout, it)
			case o.printer.format == "json":
				// kubectl prints a watch event's JSON on one line, its
				// object's managedFields kept.
				var data []byte
				ev := struct {
					Type   string `json:"type"`
					Object Object `json:"object"`
				}{eventType, it}
				if data, err = json.Marshal(ev); err == nil {
					_, err = c.Stdout.Write(append(data, '\n'))
				}
			default:
				err = o.printer.print(c.Stdout, Object{"type": eventType, "object": it})
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	tbl, err := decodeTable(data)
	if err != nil {
		return err
	}
	if o.outputWatchEvents {
		tp.eventType = eventType
	}
	tp.print(tw, tbl)
	return nil
}

package kubectl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// This file owns `kubectl events`: the namespace's or every namespace's
// events (-A), about one object (--for TYPE/NAME), of some types
// (--types), oldest first, or watched (-w), in kubectl's event table.

type eventsOptions struct {
	watch, allNamespaces, noHeaders bool
	forObject                       string
	types                           []string
	chunkSize                       int64
	output                          *printFlags
}

func init() {
	register("events", func(fs *pflag.FlagSet) runFunc {
		o := &eventsOptions{}
		fs.BoolVarP(&o.watch, "watch", "w", false, "After listing the requested events, watch for more events.")
		fs.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "If present, list the requested object(s) across all namespaces.")
		fs.StringVar(&o.forObject, "for", "", "Filter events to only those pertaining to the specified resource.")
		fs.StringSliceVar(&o.types, "types", nil, "Output only events of given types.")
		fs.BoolVar(&o.noHeaders, "no-headers", false, "When using the default output format, don't print headers.")
		fs.Int64Var(&o.chunkSize, "chunk-size", chunkSize, "Return large lists in chunks rather than all at once.")
		o.output = addPrintFlags(fs, false)
		return o.run
	})
}

func (o *eventsOptions) run(c *Cmd, _ []string) error {
	ns := c.NamespaceOrDefault()
	// -o prints the events as objects (kubectl's typed EventList, sorted
	// as the table is; one by one when watching), else the table.
	p, err := o.output.printer()
	if err != nil {
		return err
	}
	q := url.Values{}
	if o.forObject != "" {
		typ, name, ok := strings.Cut(o.forObject, "/")
		if !ok {
			return errors.New("--for must be in resource/name form")
		}
		if strings.Contains(name, "/") {
			return errors.New("arguments in resource/name form may not have more than one slash")
		}
		r, err := c.Resolve(typ)
		if err != nil {
			return c.printVerbatim(err)
		}
		q.Set("fieldSelector", "involvedObject.kind="+r.Kind+",involvedObject.apiVersion="+r.GroupVersion()+",involvedObject.name="+name)
	}
	types := map[string]bool{}
	for _, t := range o.types {
		if !strings.EqualFold(t, "Normal") && !strings.EqualFold(t, "Warning") {
			return errors.New("valid --types are Normal or Warning")
		}
		types[strings.ToLower(t)] = true
	}
	keep := func(e map[string]any) bool { return len(types) == 0 || types[strings.ToLower(stringAt(e, "type"))] }
	path := "/api/v1/events"
	if !o.allNamespaces {
		path = "/api/v1/namespaces/" + ns + "/events"
	}
	t := &eventTable{tw: newTabWriter(c.Stdout), allNamespaces: o.allNamespaces, headers: !o.noHeaders}
	if o.watch {
		q.Set("limit", fmt.Sprint(o.chunkSize))
		q.Set("watch", "true")
		return c.watch(&Request{Method: "GET", Path: path, Query: q, Header: [][2]string{{"Accept", acceptTyped}}}, func(typ string, e map[string]any) (bool, error) {
			switch {
			case typ == "DELETED" || !keep(e):
			case p != nil:
				// Each event as its typed object.
				if p.stripManagedFields {
					e = withoutManagedFields(e)
				}
				return false, printTyped(c, p, typed(e, eventFields).(ordered))
			default:
				t.print([]map[string]any{e})
			}
			return false, nil
		})
	}
	items, err := c.listAll(path, q, acceptTyped, o.chunkSize)
	if err != nil {
		return err
	}
	var events []map[string]any
	for _, e := range items {
		if keep(e) {
			events = append(events, e)
		}
	}
	if len(events) == 0 {
		if o.allNamespaces {
			fmt.Fprintln(c.Stderr, "No events found.")
		} else {
			fmt.Fprintf(c.Stderr, "No events found in %s namespace.\n", ns)
		}
		return nil
	}
	sort.Sort(eventsBy{events, eventTime})
	if p != nil {
		return printEventList(c, p, events)
	}
	t.print(events)
	return nil
}

// eventTime is when an event was last seen, for sorting: its series', else
// its last timestamp, else its event time.
func eventTime(e map[string]any) time.Time {
	if has(e, "series") {
		t, _ := parseTime(stringAt(e, "series", "lastObservedTime"))
		return t
	}
	if t, ok := parseTime(stringAt(e, "lastTimestamp")); ok {
		return t
	}
	t, _ := parseTime(stringAt(e, "eventTime"))
	return t
}

// eventsBy sorts events by a time with sort.Sort, as kubectl does: events
// seen in the same second come out in the order its unstable sort leaves
// them, the same for the same list.
type eventsBy struct {
	items []map[string]any
	time  func(map[string]any) time.Time
}

func (s eventsBy) Len() int           { return len(s.items) }
func (s eventsBy) Swap(i, j int)      { s.items[i], s.items[j] = s.items[j], s.items[i] }
func (s eventsBy) Less(i, j int) bool { return s.time(s.items[i]).Before(s.time(s.items[j])) }

// eventTable prints events as kubectl's event printer does, through its
// printers' tabwriter with RememberWidths: each flush lays out what it has
// with columns at least as wide as any before.
type eventTable struct {
	tw             *tabWriter
	allNamespaces  bool
	headers        bool
	headersPrinted bool
}

func (t *eventTable) print(events []map[string]any) {
	var rows [][]string
	if t.headers && !t.headersPrinted {
		t.headersPrinted = true
		h := []string{"LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"}
		if t.allNamespaces {
			h = append([]string{"NAMESPACE"}, h...)
		}
		rows = append(rows, h)
	}
	for _, e := range events {
		row := []string{eventInterval(e), escapeTerminal(stringAt(e, "type")), escapeTerminal(stringAt(e, "reason")),
			escapeTerminal(stringAt(e, "involvedObject", "kind")) + "/" + escapeTerminal(stringAt(e, "involvedObject", "name")),
			escapeTerminal(strings.TrimSpace(stringAt(e, "message")))}
		if t.allNamespaces {
			row = append([]string{stringAt(e, "metadata", "namespace")}, row...)
		}
		rows = append(rows, row)
	}
	printRows(t.tw, rows)
}

// watch reads a JSON watch stream, calling fn with each event's type and
// object, until fn says it is done, the stream ends or the command is
// interrupted.
func (c *Cmd) watch(req *Request, fn func(typ string, obj map[string]any) (bool, error)) error {
	resp, err := c.streamOK(req)
	if err != nil {
		return err
	}
	return c.readWatch(resp, fn)
}

// streamOK is Stream for a success: an answer that is not one is read and
// returned as its *StatusError.
func (c *Cmd) streamOK(req *Request) (*Response, error) {
	resp, err := c.Stream(req)
	if err != nil {
		return nil, err
	}
	if resp.Code/100 != 2 {
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return nil, newStatusError(resp.Code, data)
	}
	return resp, nil
}

// readWatch is watch over a successful answer already open; it closes it.
func (c *Cmd) readWatch(resp *Response, fn func(typ string, obj map[string]any) (bool, error)) error {
	defer resp.Body.Close()
	d := json.NewDecoder(resp.Body)
	d.UseNumber()
	for {
		var ev struct {
			Type   string         `json:"type"`
			Object map[string]any `json:"object"`
		}
		if err := d.Decode(&ev); err != nil {
			if err == io.EOF || c.Ctx.Err() != nil {
				return nil
			}
			return err
		}
		if ev.Type == "ERROR" {
			data, _ := json.Marshal(ev.Object)
			return newStatusError(int(num(ev.Object, "code")), data)
		}
		if done, err := fn(ev.Type, ev.Object); done || err != nil {
			return err
		}
	}
}

// printEventList prints events as kubectl events -o does: its typed
// EventList (-o name prints nothing: kubectl's name printer refuses a
// typed list, and events ignores the error).
func printEventList(c *Cmd, p *printer, events []map[string]any) error {
	if p.format == "name" {
		return nil
	}
	if p.stripManagedFields {
		for i, e := range events {
			events[i] = withoutManagedFields(e)
		}
	}
	return printTyped(c, p, typedEventList(events))
}

// printTyped prints a typed object (json in its types' field order).
func printTyped(c *Cmd, p *printer, v ordered) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if p.format == "json" {
		var b bytes.Buffer
		if err := json.Indent(&b, data, "", "    "); err != nil {
			return err
		}
		b.WriteByte('\n')
		_, err = c.Stdout.Write(b.Bytes())
		return err
	}
	obj, err := decodeObject(data)
	if err != nil {
		return err
	}
	return p.print(c.Stdout, obj)
}

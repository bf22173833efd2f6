package kubectl

// This file owns kubectl's human-readable output: the server-side Table
// (meta.k8s.io/v1) kubectl asks for, decorated as kubectl's
// HumanReadablePrinter does (NAMESPACE first with -A, kind/ name prefixes
// when several kinds print, -L and --show-labels columns, -o wide's
// priority columns, headers upper-cased and printed once per kind), and
// --sort-by over the rows' objects.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"kubeplay/core/jsonpath"
	"kubeplay/core/object"
)

// tableAccept is the Accept header kubectl sends for human-readable output.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

// table is a meta.k8s.io Table.
type table struct {
	Kind     string `json:"kind"`
	Metadata struct {
		ResourceVersion string `json:"resourceVersion"`
		Continue        string `json:"continue"`
	} `json:"metadata"`
	ColumnDefinitions []tableColumn `json:"columnDefinitions"`
	Rows              []tableRow    `json:"rows"`
}

type tableColumn struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int    `json:"priority"`
}

type tableRow struct {
	Cells  []any  `json:"cells"`
	Object Object `json:"object"`
}

// decodeTable decodes a Table; an answer of objects (--server-print=false)
// becomes kubectl's own table of them: NAME and AGE.
func decodeTable(data []byte) (*table, error) {
	obj, err := decodeObject(data)
	if err != nil {
		return nil, err
	}
	if str(obj, "kind") != "Table" {
		return objectsTable(obj), nil
	}
	t := &table{Kind: str(obj, "kind")}
	t.Metadata.ResourceVersion = str(obj, "metadata", "resourceVersion")
	t.Metadata.Continue = str(obj, "metadata", "continue")
	cols, _ := json.Marshal(obj["columnDefinitions"])
	if err := json.Unmarshal(cols, &t.ColumnDefinitions); err != nil {
		return nil, err
	}
	rows, _ := obj["rows"].([]any)
	for _, r := range rows {
		m, _ := r.(map[string]any)
		cells, _ := m["cells"].([]any)
		o, _ := m["object"].(map[string]any)
		t.Rows = append(t.Rows, tableRow{Cells: cells, Object: o})
	}
	return t, nil
}

// objectsTable is kubectl's default table of objects (or a list's): their
// names and ages.
func objectsTable(obj Object) *table {
	t := &table{ColumnDefinitions: []tableColumn{{Name: "Name", Type: "string", Format: "name"}, {Name: "Age", Type: "string"}}}
	t.Metadata.ResourceVersion = str(obj, "metadata", "resourceVersion")
	now := time.Now()
	for _, it := range listObjects(obj) {
		age := "<unknown>"
		if ts, err := time.Parse(time.RFC3339, str(it, "metadata", "creationTimestamp")); err == nil {
			age = humanDuration(now.Sub(ts))
		}
		t.Rows = append(t.Rows, tableRow{Cells: []any{str(it, "metadata", "name"), age}, Object: it})
	}
	return t
}

// humanDuration is how kubectl prints an age: "45s", "3m20s", "5h", "2d3h".
func humanDuration(d time.Duration) string {
	if seconds := int(d.Seconds()); seconds < -1 {
		return "<invalid>"
	} else if seconds < 0 {
		return "0s"
	} else if seconds < 60*2 {
		return fmt.Sprintf("%ds", seconds)
	}
	minutes := int(d / time.Minute)
	if minutes < 10 {
		if s := int(d/time.Second) % 60; s != 0 {
			return fmt.Sprintf("%dm%ds", minutes, s)
		}
		return fmt.Sprintf("%dm", minutes)
	} else if minutes < 60*3 {
		return fmt.Sprintf("%dm", minutes)
	}
	hours := int(d / time.Hour)
	switch {
	case hours < 8:
		if m := int(d/time.Minute) % 60; m != 0 {
			return fmt.Sprintf("%dh%dm", hours, m)
		}
		return fmt.Sprintf("%dh", hours)
	case hours < 48:
		return fmt.Sprintf("%dh", hours)
	case hours < 24*8:
		if h := hours % 24; h != 0 {
			return fmt.Sprintf("%dd%dh", hours/24, h)
		}
		return fmt.Sprintf("%dd", hours/24)
	case hours < 24*365*2:
		return fmt.Sprintf("%dd", hours/24)
	case hours < 24*365*8:
		if dy := hours / 24 % 365; dy != 0 {
			return fmt.Sprintf("%dy%dd", hours/24/365, dy)
		}
		return fmt.Sprintf("%dy", hours/24/365)
	}
	return fmt.Sprintf("%dy", hours/24/365)
}

// tablePrinter prints Tables as kubectl's HumanReadablePrinter does.
type tablePrinter struct {
	wide, noHeaders, withNamespace, showLabels bool
	labelColumns                               []string
	// kind prefixes names ("deployment.apps") when several kinds print.
	kind string
	// eventType, if set, is the first column (--output-watch-events).
	eventType string

	printedHeaders bool
	lastColumns    []tableColumn
}

func sameColumns(a, b []tableColumn) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// print writes t's header (unless printed already for these columns) and
// rows to w.
func (p *tablePrinter) print(w io.Writer, t *table) {
	noHeaders := p.noHeaders
	if p.printedHeaders && (len(t.ColumnDefinitions) == 0 || sameColumns(t.ColumnDefinitions, p.lastColumns)) {
		noHeaders = true
	}
	if len(t.ColumnDefinitions) == 0 {
		t.ColumnDefinitions = p.lastColumns
	} else if !sameColumns(t.ColumnDefinitions, p.lastColumns) {
		p.lastColumns = t.ColumnDefinitions
		p.printedHeaders = false
	}
	if len(t.Rows) > 0 {
		p.printedHeaders = true
	}
	cols, rows := p.decorate(t)
	if p.eventType != "" {
		cols = append([]tableColumn{{Name: "Event", Type: "string"}}, cols...)
		ev := p.eventType
		if f, ok := watchEventColumn[ev]; ok {
			ev = f
		}
		for i := range rows {
			rows[i] = append([]any{ev}, rows[i]...)
		}
	}
	var b strings.Builder
	if !noHeaders {
		if len(rows) == 0 {
			return
		}
		first := true
		for _, c := range cols {
			if !p.wide && c.Priority != 0 {
				continue
			}
			if !first {
				b.WriteByte('\t')
			}
			first = false
			b.WriteString(strings.ToUpper(c.Name))
		}
		b.WriteByte('\n')
	}
	for _, cells := range rows {
		first := true
		for i, cell := range cells {
			if i >= len(cols) {
				break
			}
			if !p.wide && cols[i].Priority != 0 {
				continue
			}
			if !first {
				b.WriteByte('\t')
			}
			first = false
			switch v := cell.(type) {
			case nil:
			case string:
				if i := strings.IndexAny(v, "\f\n\r"); i >= 0 {
					b.WriteString(escapeTerminal(v[:i]) + "...")
				} else {
					b.WriteString(escapeTerminal(v))
				}
			default:
				b.WriteString(escapeTerminal(fmt.Sprint(v)))
			}
		}
		b.WriteByte('\n')
	}
	io.WriteString(w, b.String())
}

// watchEventColumn is how kubectl prints a watch event's type.
var watchEventColumn = map[string]string{"ADDED": "ADDED   ", "MODIFIED": "MODIFIED", "DELETED": "DELETED ", "ERROR": "ERROR   "}

// decorate adds the namespace, label and kind decorations to t's columns
// and rows.
func (p *tablePrinter) decorate(t *table) ([]tableColumn, [][]any) {
	cols := t.ColumnDefinitions
	if p.withNamespace || p.showLabels || len(p.labelColumns) > 0 {
		cols = nil
		if p.withNamespace {
			cols = append(cols, tableColumn{Name: "Namespace", Type: "string"})
		}
		cols = append(cols, t.ColumnDefinitions...)
		for _, l := range p.labelColumns {
			parts := strings.Split(l, "/")
			cols = append(cols, tableColumn{Name: strings.ToUpper(parts[len(parts)-1]), Type: "string"})
		}
		if p.showLabels {
			cols = append(cols, tableColumn{Name: "Labels", Type: "string"})
		}
	}
	nameColumn := -1
	if p.kind != "" {
		for i, c := range t.ColumnDefinitions {
			if c.Format == "name" && c.Type == "string" {
				nameColumn = i
				break
			}
		}
	}
	rows := make([][]any, len(t.Rows))
	for i, r := range t.Rows {
		cells := append([]any(nil), r.Cells...)
		if nameColumn >= 0 && nameColumn < len(cells) {
			cells[nameColumn] = p.kind + "/" + fmt.Sprint(cells[nameColumn])
		}
		if r.Object == nil {
			if p.withNamespace {
				cells = append([]any{nil}, cells...)
			}
			for len(cells) < len(cols) {
				cells = append(cells, nil)
			}
			rows[i] = cells
			continue
		}
		if p.withNamespace {
			cells = append([]any{str(r.Object, "metadata", "namespace")}, cells...)
		}
		labels, _ := object.Path(r.Object, "metadata", "labels").(map[string]any)
		for _, l := range p.labelColumns {
			s, _ := labels[l].(string)
			cells = append(cells, s)
		}
		if p.showLabels {
			cells = append(cells, formatLabels(labels))
		}
		rows[i] = cells
	}
	return cols, rows
}

// formatLabels is labels.FormatLabels: k=v pairs sorted by key, or
// "<none>".
func formatLabels(labels map[string]any) string {
	if len(labels) == 0 {
		return "<none>"
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + fmt.Sprint(labels[k])
	}
	return strings.Join(parts, ",")
}

// sortRows sorts t's rows by the JSONPath field of their objects, as
// kubectl's TableSorter does.
func sortRows(t *table, field string) error {
	jp, err := jsonpath.Parse(field)
	if err != nil {
		return fmt.Errorf("sorting error: %v", err)
	}
	s := &rowSorter{t: t, values: make([]any, len(t.Rows)), found: make([]bool, len(t.Rows))}
	foundOnce := false
	for i, r := range t.Rows {
		res, err := jp.FindResults(r.Object, true)
		if err != nil {
			return fmt.Errorf("Failed to get values for %#v using %s (%#v)", res, field, err)
		}
		if len(res) > 0 && len(res[0]) > 0 {
			s.values[i], s.found[i] = res[0][0], true
			foundOnce = true
		}
	}
	if len(t.Rows) > 0 && !foundOnce {
		return fmt.Errorf("couldn't find any field with path %q in the list of objects", field)
	}
	sort.Sort(s)
	return s.err
}

type rowSorter struct {
	t      *table
	values []any
	found  []bool
	err    error
}

func (s *rowSorter) Len() int { return len(s.t.Rows) }

func (s *rowSorter) Swap(i, j int) {
	s.t.Rows[i], s.t.Rows[j] = s.t.Rows[j], s.t.Rows[i]
	s.values[i], s.values[j] = s.values[j], s.values[i]
	s.found[i], s.found[j] = s.found[j], s.found[i]
}

func (s *rowSorter) Less(i, j int) bool {
	if !s.found[i] {
		return true
	}
	if !s.found[j] {
		return false
	}
	less, err := lessValue(s.values[i], s.values[j])
	if err != nil && s.err == nil {
		s.err = &unsortableError{err}
	}
	return less
}

// unsortableError is a --sort-by field whose values kubectl cannot order:
// it exits at once, with a fatal log line.
type unsortableError struct{ err error }

func (e *unsortableError) Error() string { return e.err.Error() }

// lessValue is kubectl's isLess for two values of an object (reflect's
// Interface kind, as values in a map are): numbers of one type by value,
// strings as quantities when both are, else by bytes; nothing else sorts.
func lessValue(a, b any) (bool, error) {
	switch {
	case a == nil && b == nil:
		return false, nil
	case a == nil:
		return true, nil
	case b == nil:
		return false, nil
	}
	switch a := a.(type) {
	case int64:
		if b, ok := b.(int64); ok {
			return a < b, nil
		}
	case float64:
		if b, ok := b.(float64); ok {
			return a < b, nil
		}
	case string:
		if b, ok := b.(string); ok {
			if qa, ok := parseQuantity(a); ok {
				if qb, ok := parseQuantity(b); ok {
					return qa < qb, nil
				}
			}
			return a < b, nil
		}
	default:
		return false, fmt.Errorf("unsortable type: %T", a)
	}
	return false, errors.New("unsortable interface: interface")
}

// quantitySuffixes are resource.Quantity's suffixes and their factors.
var quantitySuffixes = map[string]float64{
	"": 1, "n": 1e-9, "u": 1e-6, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
	"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60,
}

// parseQuantity reads s as a resource.Quantity ("100m", "1Gi", "5"), as a
// number good enough to order quantities by.
func parseQuantity(s string) (float64, bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
		digits++
	}
	if digits == 0 {
		return 0, false
	}
	num, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, false
	}
	suffix := s[i:]
	if f, ok := quantitySuffixes[suffix]; ok {
		return num * f, true
	}
	if len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E') {
		if exp, err := strconv.Atoi(suffix[1:]); err == nil {
			f, _ := strconv.ParseFloat("1e"+strconv.Itoa(exp), 64)
			return num * f, true
		}
	}
	return 0, false
}

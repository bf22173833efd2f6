package table

import (
	"bytes"
	"fmt"
	"time"

	"kubeplay/core/jsonpath"
	"kubeplay/core/object"
)

// CustomColumn is one of a CRD version's additionalPrinterColumns.
type CustomColumn struct {
	Name        string
	Type        string // integer, number, string, boolean or date
	Format      string
	Description string // empty: kube describes the column by its JSONPath
	Priority    int
	JSONPath    string // e.g. .spec.replicas, .status.conditions[?(@.type=="Ready")].status
}

// ForCustom returns the printer kube-apiserver uses for a custom resource
// version (k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor):
// a Name column, then one column per additionalPrinterColumn; a version without
// any gets the Age column of the creation timestamp.
//
// Each column's path is a client-go JSONPath template ({path}); one that does
// not parse fails with kube's "unrecognized column definition" error; the
// printer returned with it has the columns before the bad one, as kube falls
// back to.
func ForCustom(cols []CustomColumn) (*Printer, error) {
	if len(cols) == 0 {
		cols = []CustomColumn{{Name: "Age", Type: "date", Description: descCreationTimestamp, JSONPath: ".metadata.creationTimestamp"}}
	}
	columns := []Column{nameColumn}
	var paths []*jsonpath.Template
	var err error
	for _, c := range cols {
		p, perr := jsonpath.Parse("{" + c.JSONPath + "}")
		if perr != nil {
			err = fmt.Errorf("unrecognized column definition %q", c.JSONPath)
			break
		}
		desc := c.Description
		if desc == "" {
			desc = "Custom resource definition column (in JSONPath format): " + c.JSONPath
		}
		columns = append(columns, Column{Name: c.Name, Type: c.Type, Format: c.Format, Description: desc, Priority: c.Priority})
		paths = append(paths, p)
	}
	return &Printer{
		columns: columns,
		cells: func(obj object.Object, now time.Time) []any {
			cells := make([]any, 1, 1+len(paths))
			cells[0] = name(obj)
			for i, p := range paths {
				cells = append(cells, customCell(columns[i+1].Type, p, obj, now))
			}
			return cells
		},
	}, err
}

// customCell is the cell of one column: the first value the path finds (with
// missing keys allowed), shaped by the column type; nil when the path finds
// nothing or fails.
func customCell(typ string, p *jsonpath.Template, obj object.Object, now time.Time) any {
	found, err := p.FindResults(obj, true)
	if err != nil || len(found) == 0 || len(found[0]) == 0 {
		return nil
	}
	v := jsonpath.Normalize(found[0][0])
	switch typ {
	case "string":
		if v == nil {
			return "<no value>" // client-go's text for the nil it is handed
		}
		var b bytes.Buffer
		if jsonpath.PrintResults(&b, []any{v}, false) != nil {
			return nil
		}
		return b.String()
	case "integer":
		switch n := v.(type) {
		case int64:
			return n
		case float64:
			return int64(n)
		}
	case "number":
		switch n := v.(type) {
		case int64:
			return float64(n)
		case float64:
			return n
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return b
		}
	case "date":
		if s, ok := v.(string); ok {
			if s == "" || s == "null" {
				return "<unknown>"
			}
			t, err := time.Parse(time.RFC3339, s)
			if err != nil {
				return "<invalid>"
			}
			return age(t, now)
		}
	}
	return nil
}

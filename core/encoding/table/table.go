// Package table owns server-side printing: it turns API objects into the
// meta.k8s.io Table that kube-apiserver v1.32 answers to
// `Accept: application/json;as=Table;g=meta.k8s.io;v=v1` (or v1beta1) — the
// columns and cells of the built-in kinds' printers, the default Name/Created At
// columns, CRD additionalPrinterColumns with their JSONPath subset — and encodes
// the Table for get, list and watch events with the includeObject policies.
//
// It does not negotiate content types or read requests; the HTTP layer chooses a
// Printer (the kind's, Default, ForCustom), parses includeObject (ParseIncludeObject) and calls
// Build, or a Watch per watch stream.
package table

import (
	"time"

	"kubeplay/core/object"
)

// Column is a TableColumnDefinition. Priority 0 columns are the ones `kubectl
// get` shows; `-o wide` shows all. The server always sends every column.
type Column struct {
	Name        string
	Type        string // string, integer, number, boolean or date
	Format      string // name for the object's name column; free-form for CRDs
	Description string
	Priority    int
}

// RowCondition is a TableRowCondition (kube sets Completed on finished pods).
type RowCondition struct {
	Type, Status, Reason, Message string
}

// Printer renders one resource's rows. Cells are string, int64, float64, bool or
// nil, exactly as kube-apiserver puts them in `rows[].cells`.
type Printer struct {
	columns    []Column
	cells      func(obj object.Object, now time.Time) []any
	conditions func(obj object.Object) []RowCondition
	// nullRows: kube's default convertor leaves rows nil for an empty list,
	// which encodes as "rows":null; the printers and the CRD convertor give [].
	nullRows bool
	// order, when set, is the order of a list's rows (kube sorts some lists).
	order func(a, b object.Object) int
}

// Columns returns the column definitions. The slice is shared: do not modify it.
func (p *Printer) Columns() []Column { return p.columns }

// Cells returns the cells of obj's row, one per column, with ages measured at now.
func (p *Printer) Cells(obj object.Object, now time.Time) []any { return p.cells(obj, now) }

// Conditions returns the row conditions of obj's row, usually none.
func (p *Printer) Conditions(obj object.Object) []RowCondition {
	if p.conditions == nil {
		return nil
	}
	return p.conditions(obj)
}

// Default is kube's default convertor (columns Name and Created At), for the
// resources that have no printer of their own. Custom resources are not
// printed by it in kube-apiserver: use ForCustom with the CRD version's
// additionalPrinterColumns (none gives Name and Age).
var Default = &Printer{
	columns: []Column{
		{Name: "Name", Type: "string", Format: "name", Description: descName},
		{Name: "Created At", Type: "date", Description: descCreationTimestamp},
	},
	cells: func(obj object.Object, _ time.Time) []any {
		// metav1.Time of the creation timestamp, printed back in UTC RFC 3339;
		// a missing one is the zero time.
		return []any{strAt(obj, "metadata", "name"), timeAt(obj, "metadata", "creationTimestamp").UTC().Format(time.RFC3339)}
	},
	nullRows: true,
}

// nameColumn and ageColumn open and close most built-in column lists.
var (
	nameColumn = Column{Name: "Name", Type: "string", Format: "name", Description: descName}
	ageColumn  = Column{Name: "Age", Type: "string", Description: descCreationTimestamp}
)

// name is the cell of the Name column.
func name(obj object.Object) string { return strAt(obj, "metadata", "name") }

// created is the cell of the Age column.
func created(obj object.Object, now time.Time) string {
	return age(timeAt(obj, "metadata", "creationTimestamp"), now)
}

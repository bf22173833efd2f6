package table

import (
	"time"

	"kubeplay/core/object"
)

// What a kind's own printer (a descriptor's, core/kinds) is made of.

// NewPrinter is a printer of columns, whose cells, one per column, cells
// gives.
func NewPrinter(columns []Column, cells func(obj object.Object, now time.Time) []any) *Printer {
	return &Printer{columns: columns, cells: cells}
}

// The columns most printers open and close with, and the wide ones of the
// kinds with a pod template.
var (
	NameColumn       = nameColumn
	AgeColumn        = ageColumn
	ContainersColumn = Column{Name: "Containers", Type: "string", Priority: 1, Description: descContainers}
	ImagesColumn     = Column{Name: "Images", Type: "string", Priority: 1, Description: descImages}
)

// Name is the cell of the Name column.
func Name(obj object.Object) string { return name(obj) }

// Age is the cell of the Age column, at now.
func Age(obj object.Object, now time.Time) string { return created(obj, now) }

// HumanDuration is a duration as kube's printers write it
// (duration.HumanDuration: "90s", "60m", "3d").
func HumanDuration(d time.Duration) string { return humanDuration(d) }

// Int is the integer at path in obj, 0 when there is none.
func Int(obj object.Object, path ...string) int64 { return intAt(obj, path...) }

// Containers are the cells of a pod template's (a PodTemplateSpec's)
// container names and images.
func Containers(template any) (names, images string) { return containerCells(template) }

// Labels prints a label map as kube's labels.FormatLabels does: sorted
// key=value pairs, or <none>.
func Labels(m map[string]string) string { return formatLabels(m) }

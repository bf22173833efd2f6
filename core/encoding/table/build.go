package table

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"kubeplay/core/object"
)

// IncludeObject is the includeObject query parameter: what each row's "object"
// holds.
type IncludeObject string

// The includeObject policies. The default (an absent or empty parameter) is
// IncludeMetadata.
const (
	IncludeNone     IncludeObject = "None"     // "object": null
	IncludeMetadata IncludeObject = "Metadata" // a PartialObjectMetadata
	IncludeObjects  IncludeObject = "Object"   // the whole object with kind and apiVersion
)

// ParseIncludeObject parses the includeObject query parameter. A bad value gets
// the message of kube-apiserver's 400 BadRequest Status (reason BadRequest).
func ParseIncludeObject(s string) (IncludeObject, error) {
	switch IncludeObject(s) {
	case "":
		return IncludeMetadata, nil
	case IncludeNone, IncludeMetadata, IncludeObjects:
		return IncludeObject(s), nil
	}
	return "", errors.New("Unable to convert to Table as requested: includeObject: Invalid value: " +
		strconv.Quote(s) + ": must be 'Metadata', 'Object', 'None', or empty")
}

// ListMeta is the Table's metadata: for a list, the list's; for a single object
// or a watch event, only the object's resourceVersion.
type ListMeta struct {
	ResourceVersion    string
	Continue           string
	RemainingItemCount *int64
}

// Item is one object to print.
type Item struct {
	Object object.Object // decoded, for the cells and the metadata
	// Raw is Object as stored (JSON without kind and apiVersion); with
	// IncludeObjects it is copied instead of encoding Object again. Optional.
	Raw []byte
	// Kind and APIVersion of the object, for IncludeObjects (e.g. "Pod", "v1").
	Kind, APIVersion string
}

// Options say how to encode a Table.
type Options struct {
	Version   string // of meta.k8s.io: "v1" or "v1beta1"
	Include   IncludeObject
	NoHeaders bool // "columnDefinitions": null, as on watch events after the first
	ListMeta  ListMeta
	Now       time.Time // ages are measured at Now
}

// Build appends the JSON of a Table of items to dst, as kube-apiserver encodes it
// (encoding/json, HTML-safe strings, no trailing newline): kind, apiVersion,
// metadata, columnDefinitions, rows with cells, conditions and object. It fails
// for a version other than v1 and v1beta1 (kube answers 406 with that message)
// and for an object that cannot be encoded.
func Build(dst []byte, p *Printer, items []Item, opts Options) ([]byte, error) {
	if opts.Version != "v1" && opts.Version != "v1beta1" {
		return dst, fmt.Errorf("no Table exists in group version meta.k8s.io/%s", opts.Version)
	}
	include := opts.Include
	if include == "" {
		include = IncludeMetadata
	}
	apiVersion := "meta.k8s.io/" + opts.Version
	dst = append(dst, `{"kind":"Table","apiVersion":"`...)
	dst = append(dst, apiVersion...)
	dst = append(dst, `","metadata":{`...)
	sep := ""
	if lm := opts.ListMeta; lm.ResourceVersion != "" || lm.Continue != "" || lm.RemainingItemCount != nil {
		if lm.ResourceVersion != "" {
			dst = append(dst, `"resourceVersion":`...)
			dst = object.AppendString(dst, lm.ResourceVersion)
			sep = ","
		}
		if lm.Continue != "" {
			dst = append(dst, sep+`"continue":`...)
			dst = object.AppendString(dst, lm.Continue)
			sep = ","
		}
		if lm.RemainingItemCount != nil {
			dst = append(dst, sep+`"remainingItemCount":`...)
			dst = strconv.AppendInt(dst, *lm.RemainingItemCount, 10)
		}
	}
	dst = append(dst, `},"columnDefinitions":`...)
	if opts.NoHeaders {
		dst = append(dst, "null"...)
	} else {
		dst = appendColumns(dst, p.columns)
	}
	dst = append(dst, `,"rows":`...)
	if len(items) == 0 && p.nullRows {
		return append(dst, "null}"...), nil
	}
	if p.order != nil {
		items = slices.Clone(items)
		slices.SortStableFunc(items, func(a, b Item) int { return p.order(a.Object, b.Object) })
	}
	dst = append(dst, '[')
	for i, it := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"cells":`...)
		var err error
		if dst, err = appendCells(dst, p.Cells(it.Object, opts.Now)); err != nil {
			return dst, err
		}
		if conds := p.Conditions(it.Object); len(conds) > 0 {
			dst = append(dst, `,"conditions":[`...)
			for j, c := range conds {
				if j > 0 {
					dst = append(dst, ',')
				}
				dst = append(dst, `{"type":`...)
				dst = object.AppendString(dst, c.Type)
				dst = append(dst, `,"status":`...)
				dst = object.AppendString(dst, c.Status)
				if c.Reason != "" {
					dst = append(dst, `,"reason":`...)
					dst = object.AppendString(dst, c.Reason)
				}
				if c.Message != "" {
					dst = append(dst, `,"message":`...)
					dst = object.AppendString(dst, c.Message)
				}
				dst = append(dst, '}')
			}
			dst = append(dst, ']')
		}
		dst = append(dst, `,"object":`...)
		if dst, err = appendRowObject(dst, it, include, apiVersion); err != nil {
			return dst, err
		}
		dst = append(dst, '}')
	}
	return append(dst, "]}"...), nil
}

// appendRowObject writes a row's "object" for the includeObject policy.
func appendRowObject(dst []byte, it Item, include IncludeObject, metaAPIVersion string) ([]byte, error) {
	switch include {
	case IncludeNone:
		return append(dst, "null"...), nil
	case IncludeObjects:
		raw := it.Raw
		if raw == nil {
			var err error
			if raw, err = object.Encode(it.Object); err != nil {
				return dst, err
			}
		}
		return object.AppendWithTypeMeta(dst, raw, it.Kind, it.APIVersion), nil
	}
	return object.AppendPartialObjectMetadata(dst, it.Object, metaAPIVersion)
}

func appendColumns(dst []byte, cols []Column) []byte {
	dst = append(dst, '[')
	for i, c := range cols {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"name":`...)
		dst = object.AppendString(dst, c.Name)
		dst = append(dst, `,"type":`...)
		dst = object.AppendString(dst, c.Type)
		dst = append(dst, `,"format":`...)
		dst = object.AppendString(dst, c.Format)
		dst = append(dst, `,"description":`...)
		dst = object.AppendString(dst, c.Description)
		dst = append(dst, `,"priority":`...)
		dst = strconv.AppendInt(dst, int64(c.Priority), 10)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// appendCells writes the cells as encoding/json writes a []interface{}.
func appendCells(dst []byte, cells []any) ([]byte, error) {
	dst = append(dst, '[')
	for i, c := range cells {
		if i > 0 {
			dst = append(dst, ',')
		}
		switch v := c.(type) {
		case nil:
			dst = append(dst, "null"...)
		case string:
			dst = object.AppendString(dst, v)
		case int64:
			dst = strconv.AppendInt(dst, v, 10)
		case bool:
			dst = strconv.AppendBool(dst, v)
		case float64:
			if math.IsInf(v, 0) || math.IsNaN(v) {
				return dst, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(v, 'g', -1, 64))
			}
			dst = appendFloat(dst, v)
		default:
			return dst, fmt.Errorf("table: unsupported cell type %T", c)
		}
	}
	return append(dst, ']'), nil
}

// appendFloat formats a float64 as encoding/json does: shortest representation,
// exponent form only below 1e-6 or from 1e21, with a two-digit minimum exponent
// trimmed to one ("1e-07" becomes "1e-7").
func appendFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		if n := len(dst) - start; n >= 4 && dst[len(dst)-4] == 'e' && dst[len(dst)-3] == '-' && dst[len(dst)-2] == '0' {
			dst[len(dst)-2] = dst[len(dst)-1]
			dst = dst[:len(dst)-1]
		}
	}
	return dst
}

// Watch encodes the Table of each event of one watch stream. kube-apiserver's
// watch encoder sends the column definitions with the first event only; later
// events carry "columnDefinitions": null. BOOKMARK events go through it too
// (kube prints the bookmark's nearly empty object as a row, and a bookmark can
// be the event that carries the columns); Status objects (ERROR events) are not
// Tables and do not go through Watch. A Watch serves one stream, one event at
// a time.
type Watch struct {
	Printer *Printer
	Version string
	Include IncludeObject
	started bool
}

// Append appends the Table of one event's object: one row, the metadata holding
// the object's resourceVersion.
func (w *Watch) Append(dst []byte, it Item, now time.Time) ([]byte, error) {
	opts := Options{
		Version:   w.Version,
		Include:   w.Include,
		NoHeaders: w.started,
		ListMeta:  ListMeta{ResourceVersion: strAt(it.Object, "metadata", "resourceVersion")},
		Now:       now,
	}
	out, err := Build(dst, w.Printer, []Item{it}, opts)
	if err == nil {
		w.started = true
	}
	return out, err
}

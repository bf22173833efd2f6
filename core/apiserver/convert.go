package apiserver

import (
	"encoding/json"
	"strings"

	"kubeplay/core/api"
	"kubeplay/core/apierrors"
	"kubeplay/core/encoding"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/registry"
	"kubeplay/core/web"
)

// goType is how kube-apiserver's messages name the Go type of a resource's
// object or list when it converts one: %T of the internal object, whose package
// is its group's first label ("core" for the core group).
func goType(res *api.Resource, list bool) string {
	res = res.Storage() // a view's objects are its stored kind's internally
	kind := res.Kind
	if list {
		kind = res.ListKind()
	}
	pkg, _, _ := strings.Cut(res.Group, ".")
	if pkg == "" {
		pkg = "core"
	}
	return "*" + pkg + "." + kind
}

// convertObject answers a get (or a write) with the conversion c asked for.
func (rep reply) convertObject(c encoding.Conversion, res *api.Resource, stored, doc []byte) ([]byte, error) {
	switch c.Kind {
	case "PartialObjectMetadata":
		return partialObjectMetadata(c, stored)
	case "PartialObjectMetadataList":
		return nil, apierrors.New(web.StatusNotAcceptable, "NotAcceptable",
			"you requested PartialObjectMetadataList, but the requested object is not a list ("+goType(res, false)+")", nil)
	}
	return rep.tableOf(c, res, table.ListMeta{}, []registry.Item{{Value: string(stored)}})
}

// convertList answers a list with the conversion c asked for.
func (rep reply) convertList(c encoding.Conversion, res *api.Resource, meta listMeta, items []registry.Item) ([]byte, error) {
	switch c.Kind {
	case "PartialObjectMetadata":
		return nil, apierrors.New(web.StatusNotAcceptable, "NotAcceptable",
			"you requested PartialObjectMetadata, but the requested object is a list ("+goType(res, true)+")", nil)
	case "PartialObjectMetadataList":
		doc := []byte(`{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/` + c.Version + `","metadata":`)
		mb, _ := json.Marshal(meta)
		doc = append(doc, mb...)
		doc = append(doc, `,"items":`...)
		if len(items) == 0 {
			doc = append(doc, "null"...)
		}
		for i, it := range items {
			if i == 0 {
				doc = append(doc, '[')
			} else {
				doc = append(doc, ',')
			}
			p, err := partialObjectMetadata(c, []byte(it.Value))
			if err != nil {
				return nil, err
			}
			doc = append(doc, p...)
		}
		if len(items) > 0 {
			doc = append(doc, ']')
		}
		return append(doc, '}'), nil
	}
	return rep.tableOf(c, res, table.ListMeta{ResourceVersion: meta.ResourceVersion, Continue: meta.Continue, RemainingItemCount: meta.RemainingItemCount}, items)
}

// partialObjectMetadata is an object reduced to its metadata.
func partialObjectMetadata(c encoding.Conversion, stored []byte) ([]byte, error) {
	obj, err := object.Decode(stored)
	if err != nil {
		return nil, apierrors.NewInternal(err)
	}
	doc, err := object.AppendPartialObjectMetadata(nil, obj, "meta.k8s.io/"+c.Version)
	if err != nil {
		return nil, apierrors.NewInternal(err)
	}
	return doc, nil
}

// printerFor is the Table printer of res's objects.
func printerFor(res *api.Resource) *table.Printer {
	if res.Custom != nil {
		return res.Custom.Printer
	}
	// kube prints a view's objects in their stored (internal) form
	if p := res.Storage().Printer; p != nil {
		return p
	}
	return table.Default
}

// tableOf prints items as a Table (kube-apiserver's server-side printing). A
// single object's Table carries its resourceVersion (meta is then empty).
func (rep reply) tableOf(c encoding.Conversion, res *api.Resource, meta table.ListMeta, items []registry.Item) ([]byte, error) {
	rows := make([]table.Item, len(items))
	for i, it := range items {
		obj, err := object.Decode([]byte(it.Value))
		if err != nil {
			return nil, apierrors.NewInternal(err)
		}
		rows[i] = table.Item{Object: obj, Raw: registry.Viewed(res, []byte(it.Value)), Kind: res.Kind, APIVersion: res.APIVersion()}
	}
	if meta == (table.ListMeta{}) && len(rows) == 1 {
		meta.ResourceVersion = object.MetaString(rows[0].Object, "resourceVersion")
	}
	doc, err := table.Build(nil, printerFor(res), rows, table.Options{
		Version: c.Version, Include: rep.include, ListMeta: meta, Now: rep.now(),
	})
	if err != nil {
		return nil, apierrors.NewInternal(err)
	}
	return doc, nil
}

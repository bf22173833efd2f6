package apply

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"strconv"
	"sync"

	smdschema "sigs.k8s.io/structured-merge-diff/v4/schema"
	"sigs.k8s.io/structured-merge-diff/v4/typed"
	"sigs.k8s.io/structured-merge-diff/v4/value"

	"kubeplay/core/api"
	"kubeplay/core/object"
)

//go:generate go run ../../tools/applyschema -out .

// schemaJSON holds the structured-merge-diff types of the served kinds
// (schema_gen.go names each kind's), in their YAML form written as JSON,
// gzipped: read on first use, since every instant of start-up delays a browser
// host's first answer (and JSON reads an order of magnitude faster than the
// YAML structured-merge-diff's own parser takes).
//
//go:embed schema.json.gz
var schemaJSON []byte

// parser is the schema, read.
var parser = sync.OnceValues(func() (*typed.Parser, error) {
	zr, err := gzip.NewReader(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, err
	}
	var doc struct {
		Types []typeDefJSON `json:"types"`
	}
	if err := json.NewDecoder(zr).Decode(&doc); err != nil {
		return nil, err
	}
	p := &typed.Parser{}
	p.Schema.Types = make([]smdschema.TypeDef, len(doc.Types))
	for i, td := range doc.Types {
		p.Schema.Types[i] = smdschema.TypeDef{Name: td.Name, Atom: td.atom()}
	}
	return p, nil
})

// The schema's YAML form, as JSON: the YAML tags of structured-merge-diff's
// types (whose inline atoms encoding/json cannot read into them directly).
type (
	typeDefJSON struct {
		Name string `json:"name"`
		atomJSON
	}
	atomJSON struct {
		Scalar *smdschema.Scalar `json:"scalar"`
		List   *listJSON         `json:"list"`
		Map    *mapJSON          `json:"map"`
	}
	typeRefJSON struct {
		NamedType *string `json:"namedType"`
		atomJSON
		ElementRelationship *smdschema.ElementRelationship `json:"elementRelationship"`
	}
	listJSON struct {
		ElementType         typeRefJSON                   `json:"elementType"`
		ElementRelationship smdschema.ElementRelationship `json:"elementRelationship"`
		Keys                []string                      `json:"keys"`
	}
	mapJSON struct {
		Fields              []fieldJSON                   `json:"fields"`
		Unions              []smdschema.Union             `json:"unions"`
		ElementType         typeRefJSON                   `json:"elementType"`
		ElementRelationship smdschema.ElementRelationship `json:"elementRelationship"`
	}
	fieldJSON struct {
		Name    string      `json:"name"`
		Type    typeRefJSON `json:"type"`
		Default any         `json:"default"`
	}
)

func (a atomJSON) atom() smdschema.Atom {
	out := smdschema.Atom{Scalar: a.Scalar}
	if a.List != nil {
		out.List = &smdschema.List{ElementType: a.List.ElementType.typeRef(), ElementRelationship: a.List.ElementRelationship, Keys: a.List.Keys}
	}
	if a.Map != nil {
		m := &smdschema.Map{Unions: a.Map.Unions, ElementType: a.Map.ElementType.typeRef(), ElementRelationship: a.Map.ElementRelationship}
		for _, f := range a.Map.Fields {
			m.Fields = append(m.Fields, smdschema.StructField{Name: f.Name, Type: f.Type.typeRef(), Default: integers(f.Default)})
		}
		out.Map = m
	}
	return out
}

func (t typeRefJSON) typeRef() smdschema.TypeRef {
	return smdschema.TypeRef{NamedType: t.NamedType, Inlined: t.atom(), ElementRelationship: t.ElementRelationship}
}

// integers is a default read from JSON with its whole numbers as the YAML
// parser reads them, integers (keys with a default compare with the values).
func integers(v any) any {
	switch v := v.(type) {
	case float64:
		if v == float64(int(v)) {
			return int(v)
		}
	case map[string]any:
		for k, e := range v {
			v[k] = integers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = integers(e)
		}
	}
	return v
}

// kindType is the structured-merge-diff type of a resource's kind: its schema
// for the built-in kinds, its openAPIV3Schema's for custom resources, a type
// deduced from each object otherwise (kube's, for kinds without a schema:
// every field granular, every list atomic).
func kindType(res *api.Resource) (typed.ParseableType, error) {
	if res.Custom != nil && res.Custom.OpenAPI != nil {
		return customType(res)
	}
	name, ok := typeNames[res.APIVersion()+"/"+res.Kind]
	if !ok {
		return typed.DeducedParseableType, nil
	}
	p, err := parser()
	if err != nil {
		return typed.ParseableType{}, err
	}
	return p.Type(name), nil
}

// zeroObject is the kind's empty object as kube's field manager sees it (its Go
// type's fields without omitempty, null or empty): what a new object is
// compared with.
func zeroObject(res *api.Resource) object.Object {
	obj := object.Object{}
	if doc, ok := zeroObjects[res.APIVersion()+"/"+res.Kind]; ok {
		obj, _ = object.Decode([]byte(doc))
	}
	return obj
}

// withZeroFields is obj with the fields of the kind's zero object it lacks, as
// kube's typed objects always have them (status: {}, a template's
// creationTimestamp: null): so that comparing two objects finds the changes
// kube finds, not fields that only kubeplay's sparser form leaves out.
func withZeroFields(res *api.Resource, obj object.Object) object.Object {
	zero := zeroObject(res)
	if len(zero) == 0 {
		return obj
	}
	return fillFrom(obj, zero).(map[string]any)
}

// fillFrom is v with what zero has and v lacks, copying only what it changes.
func fillFrom(v, zero any) any {
	z, ok := zero.(map[string]any)
	if !ok {
		return v
	}
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m)+len(z))
	for k, e := range m {
		out[k] = e
	}
	for k, ze := range z {
		if e, ok := m[k]; ok {
			out[k] = fillFrom(e, ze)
		} else {
			out[k] = ze
		}
	}
	return out
}

// toTypedUnvalidated is obj as a typed value, unchecked: the objects of an
// update, read by the typed decoding, which comparing them checks again.
func toTypedUnvalidated(res *api.Resource, obj object.Object) (*typed.TypedValue, error) {
	t, err := kindType(res)
	if err != nil {
		return nil, err
	}
	return typed.AsTypedUnvalidated(value.NewValueInterface(smdObject(res, obj)), t.Schema, t.TypeRef), nil
}

// toTyped is obj (in core/object's form) as a typed value of res's kind, with
// its kind and apiVersion, numbers as kube's unstructured objects hold them.
func toTyped(res *api.Resource, obj object.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	t, err := kindType(res)
	if err != nil {
		return nil, err
	}
	return t.FromUnstructured(smdObject(res, obj), opts...)
}

// smdObject is obj in the form structured-merge-diff reads, with its kind and
// apiVersion, without managedFields (nobody's fields, and no part of a merge).
func smdObject(res *api.Resource, obj object.Object) map[string]any {
	u := smdValue(obj).(map[string]any)
	u["apiVersion"], u["kind"] = res.APIVersion(), res.Kind
	if meta, ok := u["metadata"].(map[string]any); ok {
		delete(meta, "managedFields")
	}
	return u
}

// smdValue copies a value of core/object's form into the form
// structured-merge-diff reads: integers as int64, other numbers as float64.
func smdValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = smdValue(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = smdValue(e)
		}
		return out
	case json.Number:
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return i
		}
		f, _ := strconv.ParseFloat(string(v), 64)
		return f
	case int:
		return int64(v)
	}
	return v
}

package apply

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"io"
	"strconv"
	"sync"

	"sigs.k8s.io/structured-merge-diff/v4/typed"
	"sigs.k8s.io/structured-merge-diff/v4/value"
	yaml "sigs.k8s.io/yaml/goyaml.v2"

	"kubeplay/core/object"
	"kubeplay/core/schema"
)

//go:generate go run ../../tools/applyschema -out .

// schemaYAML holds the structured-merge-diff types of the served kinds
// (schema_gen.go names each kind's), gzipped: parsed on first use, since every
// instant of start-up delays a browser host's first answer.
//
//go:embed schema.yaml.gz
var schemaYAML []byte

// parser is the parsed schema.
var parser = sync.OnceValues(func() (*typed.Parser, error) {
	zr, err := gzip.NewReader(bytes.NewReader(schemaYAML))
	if err != nil {
		return nil, err
	}
	doc, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	p := &typed.Parser{}
	if err := yaml.Unmarshal(doc, &p.Schema); err != nil {
		return nil, err
	}
	return p, nil
})

// kindType is the structured-merge-diff type of a resource's kind: its schema
// for the built-in kinds, a type deduced from each object otherwise (kube's, for
// custom resources without a schema: every field granular, every list atomic).
func kindType(res *schema.Resource) (typed.ParseableType, error) {
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
func zeroObject(res *schema.Resource) object.Object {
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
func withZeroFields(res *schema.Resource, obj object.Object) object.Object {
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
func toTypedUnvalidated(res *schema.Resource, obj object.Object) (*typed.TypedValue, error) {
	t, err := kindType(res)
	if err != nil {
		return nil, err
	}
	return typed.AsTypedUnvalidated(value.NewValueInterface(smdObject(res, obj)), t.Schema, t.TypeRef), nil
}

// toTyped is obj (in core/object's form) as a typed value of res's kind, with
// its kind and apiVersion, numbers as kube's unstructured objects hold them.
func toTyped(res *schema.Resource, obj object.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	t, err := kindType(res)
	if err != nil {
		return nil, err
	}
	return t.FromUnstructured(smdObject(res, obj), opts...)
}

// smdObject is obj in the form structured-merge-diff reads, with its kind and
// apiVersion, without managedFields (nobody's fields, and no part of a merge).
func smdObject(res *schema.Resource, obj object.Object) map[string]any {
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

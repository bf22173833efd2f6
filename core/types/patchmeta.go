package types

import (
	"fmt"
	"strings"
)

// PatchSchema is a Go type of the built-in kinds as a strategic merge patch
// looks it up (k8s.io/apimachinery's PatchMetaFromStruct): a struct, whose
// fields have patch strategies and merge keys, or another type, which has no
// fields to look up.
type PatchSchema struct {
	m    *Message // the struct; nil for other types
	kind string   // the Go kind, as kube's errors name it: "struct", "map", "string"
	name string   // a struct's Go name, when m is nil (Time, Quantity, ...)
}

// KindPatchSchema is the schema of kind in apiVersion, if it is a built-in kind.
func KindPatchSchema(apiVersion, kind string) (PatchSchema, bool) {
	i, ok := kinds[apiVersion+"/"+kind]
	if !ok {
		return PatchSchema{}, false
	}
	return PatchSchema{m: &Messages[i], kind: "struct"}, true
}

// Name is the type's Go kind ("struct", "string", "map"), as kube's errors
// name a schema.
func (s PatchSchema) Name() string { return s.kind }

// PatchMeta is what a strategic merge patch knows of a field: its patch
// strategies and merge key.
type PatchMeta struct {
	Merge      bool   // patchStrategy merge
	Replace    bool   // patchStrategy replace
	RetainKeys bool   // patchStrategy retainKeys
	MergeKey   string // patchMergeKey
}

// Field looks up the field a JSON key names, as kube's
// LookupPatchMetadataForStruct does (an exact match first, else one that
// differs in case only), and returns the field's type and patch metadata.
func (s PatchSchema) Field(key string) (PatchSchema, PatchMeta, error) {
	f, err := s.lookup(key)
	if err != nil {
		return PatchSchema{}, PatchMeta{}, err
	}
	meta := PatchMeta{
		Merge:      f.Flags&FlagPatchMerge != 0,
		Replace:    f.Flags&FlagPatchReplace != 0,
		RetainKeys: f.Flags&FlagPatchRetainKeys != 0,
		MergeKey:   MergeKeys[f.MergeKey],
	}
	switch {
	case f.Flags&FlagMap != 0:
		return PatchSchema{kind: "map"}, meta, nil
	case f.Flags&FlagRepeated != 0 || f.Kind == KindBytes && f.Flags&FlagPointer == 0:
		return PatchSchema{kind: "slice"}, meta, nil
	}
	return valueSchema(f), meta, nil
}

// lookup finds the field a key names: an exact match first, else one that
// differs in case only.
func (s PatchSchema) lookup(key string) (*Field, error) {
	if s.m == nil && s.name == "" {
		return nil, fmt.Errorf("merging an object in json but data type is not struct, instead is: %s", s.kind)
	}
	var f *Field
	if s.m != nil {
		if f = s.m.byName(key); f == nil {
			f = s.m.byFoldedName(key)
		}
	}
	if f == nil {
		name := s.name
		if s.m != nil {
			name = s.m.StructName()
		}
		return nil, fmt.Errorf("unable to find api field in struct %s for the json field %q", name, key)
	}
	return f, nil
}

// ListField looks up a list field as LookupPatchMetadataForSlice does and
// returns its element's type (a pointer field's type passes for one).
func (s PatchSchema) ListField(key string) (PatchSchema, PatchMeta, error) {
	_, meta, err := s.Field(key)
	if err != nil {
		return PatchSchema{}, PatchMeta{}, err
	}
	f, _ := s.lookup(key)
	switch {
	case f.Flags&FlagMap != 0 || f.Flags&(FlagRepeated|FlagPointer) == 0 && f.Kind != KindBytes:
		return PatchSchema{}, PatchMeta{}, fmt.Errorf("expected slice or array type, but got: %s", s.kind)
	case f.Kind == KindBytes && f.Flags&FlagRepeated == 0:
		return PatchSchema{kind: "uint8"}, meta, nil
	}
	return valueSchema(f), meta, nil
}

// valueSchema is the schema of one value of f: its struct, or its Go kind.
func valueSchema(f *Field) PatchSchema {
	switch f.Kind {
	case KindMessage:
		return PatchSchema{m: &Messages[f.Msg], kind: "struct"}
	case KindString:
		return PatchSchema{kind: "string"}
	case KindBool:
		return PatchSchema{kind: "bool"}
	case KindInt32:
		return PatchSchema{kind: "int32"}
	case KindInt64:
		return PatchSchema{kind: "int64"}
	case KindBytes:
		return PatchSchema{kind: "slice"}
	}
	// Time, Quantity, IntOrString, RawExtension, FieldsV1: structs whose
	// fields no JSON key names.
	t := GoTypes[f.GoType]
	if f.Flags&FlagRepeated != 0 {
		t = GoTypes[f.ElemType]
	}
	return PatchSchema{kind: "struct", name: t[strings.LastIndexByte(t, '.')+1:]}
}

// byFoldedName finds the field whose JSON name equals name but for case.
func (m *Message) byFoldedName(name string) *Field {
	for i := range m.Fields {
		f := &m.Fields[i]
		if f.Flags&FlagInline != 0 {
			if g := Messages[f.Msg].byFoldedName(name); g != nil {
				return g
			}
		} else if strings.EqualFold(f.Name, name) {
			return f
		}
	}
	return nil
}

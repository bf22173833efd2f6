// Package types owns the Go types of the built-in kinds kubeplay serves, as a
// table generated from k8s.io/api by tools/protogen (types_gen.go), so that no
// build of kubeplay imports a k8s.io module: each message's fields with their
// JSON names, field numbers and wire kinds, Go shapes (pointer, list, map,
// inline, omitempty), and patch strategies and merge keys.
//
// And what follows from the types alone:
//
//   - the typed form (Complete, Order): an object as encoding/json writes its
//     Go type, every field omitempty keeps, in the struct's order;
//   - reading a JSON or CBOR request body into the kind's type as
//     kube-apiserver does (DecodeJSON, DecodeCBOR): its type errors, worded as
//     kube words them, and the object that type holds, unknown fields dropped;
//     and the unknown and duplicate fields that fieldValidation reports
//     (StrictJSON, StrictCBOR, UnknownUnstructured);
//   - strategic merge patch's metadata (PatchSchema), and walking an object
//     by Go type (Walk), for the defaults.
//
// core/encoding/protobuf writes and reads the same messages on the wire.
package types

import (
	"fmt"
	"strings"
)

//go:generate go run ../../tools/protogen -out types_gen.go

// Kind is how a field's value is written on the wire and in JSON.
type Kind uint8

const (
	KindString       Kind = iota // bytes; JSON string
	KindBytes                    // bytes; JSON base64 string
	KindBool                     // varint; JSON bool
	KindInt32                    // varint; JSON number
	KindInt64                    // varint; JSON number
	KindMessage                  // embedded message (messages[msg]); JSON object
	KindTime                     // metav1.Time: {seconds=1, nanos=2}; JSON RFC 3339 seconds or null
	KindMicroTime                // metav1.MicroTime: as Time; JSON RFC 3339 microseconds or null
	KindQuantity                 // resource.Quantity: {string=1}; JSON string
	KindIntOrString              // intstr.IntOrString: {type=1, intVal=2, strVal=3}; JSON number or string
	KindRawExtension             // runtime.RawExtension: {raw=1}; JSON the raw JSON value
	KindFieldsV1                 // metav1.FieldsV1: {Raw=1}; JSON the raw JSON value
	KindDouble                   // float64: fixed64; JSON number
	// apiextensions' schema types with two JSON forms, each its own message
	// (Msg) on the wire:
	KindSchemaOrArray       // JSONSchemaPropsOrArray {schema=1, jsonSchemas=2}; JSON a schema or an array of them
	KindSchemaOrBool        // JSONSchemaPropsOrBool {allows=1, schema=2}; JSON a schema or a bool
	KindSchemaOrStringArray // JSONSchemaPropsOrStringArray {schema=1, property=2}; JSON a schema or an array of strings
)

// RFC3339Micro is metav1.RFC3339Micro, MicroTime's JSON layout.
const RFC3339Micro = "2006-01-02T15:04:05.000000Z07:00"

// Field flags: the Go shape of the field in k8s.io/api, which decides what gogo's
// generated Marshal writes and what encoding/json writes.
const (
	FlagPointer   = 1 << iota // *T: written only when set
	FlagRepeated              // []T: one wire field per element
	FlagMap                   // map[string]T: entries {key=1, value=2}, keys sorted
	FlagOmitEmpty             // json:",omitempty"
	FlagInline                // json:",inline": the message's JSON fields sit in the parent object
	// The patchStrategy tag's values: what a strategic merge patch does with the field.
	FlagPatchMerge      // merge: lists merge (by mergeKey for lists of objects)
	FlagPatchReplace    // replace: the patch's value replaces the field's
	FlagPatchRetainKeys // retainKeys: the patch's $retainKeys list says which fields stay
)

// Field is one Field of a message, in Field-number order within the message.
type Field struct {
	Name     string // JSON name; empty for flagInline
	Num      int32
	Kind     Kind
	Flags    uint8
	Msg      uint16 // for kindMessage: index in messages
	GoType   uint16 // index in goTypes: the field's Go type, pointer stripped
	ElemType uint16 // index in goTypes: for repeated and map fields, an element's
	MergeKey uint8  // index in mergeKeys: the patchMergeKey tag's value
}

// Message is one Message type.
type Message struct {
	Fields []Field
	// Order is the fields' Order in the Go struct, the Order encoding/json
	// writes them in (indexes in fields); nil when it is the numbers' Order.
	Order    []uint8
	GoType   uint16 // index in goTypes: "v1.ConfigMap"
	TypeMeta bool   // the Go type embeds metav1.TypeMeta (kind and apiVersion)
}

// StructName is the message's Go type name without its package ("ConfigMap"),
// as encoding/json names a struct in its errors.
func (m *Message) StructName() string {
	t := GoTypes[m.GoType]
	return t[strings.LastIndexByte(t, '.')+1:]
}

// LookupField finds the field numbered num; fields are sorted by number.
func (m *Message) LookupField(num int32) *Field {
	lo, hi := 0, len(m.Fields)
	for lo < hi {
		mid := (lo + hi) / 2
		switch f := &m.Fields[mid]; {
		case f.Num == num:
			return f
		case f.Num < num:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return nil
}

// Lookup is the message of kind in apiVersion ("v1", "ConfigMap"), nil for a
// kind without a Go type here: the served built-in kinds and their lists,
// Eviction, Scale, the meta kinds Status, DeleteOptions and WatchEvent (in
// every served group version and meta.k8s.io/v1, as kube registers them), and
// in meta.k8s.io/v1 PartialObjectMetadata, PartialObjectMetadataList, ListMeta
// and ObjectMeta. Custom resources have none, as in kube-apiserver.
func Lookup(apiVersion, kind string) *Message {
	if i, ok := kinds[apiVersion+"/"+kind]; ok {
		return &Messages[i]
	}
	return nil
}

// SharedInternalType says whether kube decodes kind in apiVersion and in
// apiVersion2, of different groups, into one internal type: the Events of
// the core group and of events.k8s.io (which has no internal type of its
// own), between which no conversion fails.
func SharedInternalType(apiVersion, apiVersion2, kind string) bool {
	events := map[string]bool{"v1": true, "events.k8s.io/v1": true}
	return kind == "Event" && apiVersion != apiVersion2 && events[apiVersion] && events[apiVersion2]
}

// Known reports whether kind in apiVersion has a Go type here (Lookup).
func Known(apiVersion, kind string) bool { return Lookup(apiVersion, kind) != nil }

// LookupProtobuf is the protobuf message of kind in apiVersion: Lookup's, and
// those of the kinds kubeplay types in protobuf alone (apiextensions.k8s.io/v1
// CustomResourceDefinition and its list, whose JSON it reads as it comes).
func LookupProtobuf(apiVersion, kind string) *Message {
	if m := Lookup(apiVersion, kind); m != nil {
		return m
	}
	if i, ok := protobufOnlyKinds[apiVersion+"/"+kind]; ok {
		return &Messages[i]
	}
	return nil
}

// lookup is Lookup for the decoders, which answer a kind without a type with
// an error.
func lookup(apiVersion, kind string) (*Message, error) {
	if m := Lookup(apiVersion, kind); m != nil {
		return m, nil
	}
	return nil, fmt.Errorf("no Go type for %s, Kind=%s", apiVersion, kind)
}

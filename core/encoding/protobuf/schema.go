package protobuf

import "strings"

//go:generate go run ../../../tools/protogen -out schema_gen.go

// kind is how a field's value is written on the wire and in JSON.
type kind uint8

const (
	kindString       kind = iota // bytes; JSON string
	kindBytes                    // bytes; JSON base64 string
	kindBool                     // varint; JSON bool
	kindInt32                    // varint; JSON number
	kindInt64                    // varint; JSON number
	kindMessage                  // embedded message (messages[msg]); JSON object
	kindTime                     // metav1.Time: {seconds=1, nanos=2}; JSON RFC 3339 seconds or null
	kindMicroTime                // metav1.MicroTime: as Time; JSON RFC 3339 microseconds or null
	kindQuantity                 // resource.Quantity: {string=1}; JSON string
	kindIntOrString              // intstr.IntOrString: {type=1, intVal=2, strVal=3}; JSON number or string
	kindRawExtension             // runtime.RawExtension: {raw=1}; JSON the raw JSON value
	kindFieldsV1                 // metav1.FieldsV1: {Raw=1}; JSON the raw JSON value
)

// Field flags: the Go shape of the field in k8s.io/api, which decides what gogo's
// generated Marshal writes and what encoding/json writes.
const (
	flagPointer   = 1 << iota // *T: written only when set
	flagRepeated              // []T: one wire field per element
	flagMap                   // map[string]T: entries {key=1, value=2}, keys sorted
	flagOmitEmpty             // json:",omitempty"
	flagInline                // json:",inline": the message's JSON fields sit in the parent object
	// The patchStrategy tag's values: what a strategic merge patch does with the field.
	flagPatchMerge      // merge: lists merge (by mergeKey for lists of objects)
	flagPatchReplace    // replace: the patch's value replaces the field's
	flagPatchRetainKeys // retainKeys: the patch's $retainKeys list says which fields stay
)

// field is one field of a message, in field-number order within the message.
type field struct {
	name     string // JSON name; empty for flagInline
	num      int32
	kind     kind
	flags    uint8
	msg      uint16 // for kindMessage: index in messages
	goType   uint16 // index in goTypes: the field's Go type, pointer stripped
	elemType uint16 // index in goTypes: for repeated and map fields, an element's
	mergeKey uint8  // index in mergeKeys: the patchMergeKey tag's value
}

// message is one message type.
type message struct {
	fields []field
	// order is the fields' order in the Go struct, the order encoding/json
	// writes them in (indexes in fields); nil when it is the numbers' order.
	order    []uint8
	goType   uint16 // index in goTypes: "v1.ConfigMap"
	typeMeta bool   // the Go type embeds metav1.TypeMeta (kind and apiVersion)
}

// structName is the message's Go type name without its package ("ConfigMap"),
// as encoding/json names a struct in its errors.
func (m *message) structName() string {
	t := goTypes[m.goType]
	return t[strings.LastIndexByte(t, '.')+1:]
}

// lookupField finds the field numbered num; fields are sorted by number.
func (m *message) lookupField(num int32) *field {
	lo, hi := 0, len(m.fields)
	for lo < hi {
		mid := (lo + hi) / 2
		switch f := &m.fields[mid]; {
		case f.num == num:
			return f
		case f.num < num:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return nil
}

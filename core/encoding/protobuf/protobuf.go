// Package protobuf owns the Kubernetes protobuf encoding
// (application/vnd.kubernetes.protobuf) of the built-in kinds, whose messages
// core/types holds: converting between the JSON object form (object.Object)
// and the messages of k8s.io/api byte for byte as their generated (gogo)
// Marshal writes them, the `k8s\x00` + runtime.Unknown envelope, list messages
// built from already-encoded items, and watch events in length-delimited
// frames.
//
// The encoding's rules:
//
//   - Fields are written in field-number order. Value fields are always written (an
//     empty string, a zero, an empty embedded message), pointer fields only when
//     set, repeated fields once per element, maps as entries sorted by key.
//   - The JSON side is what encoding/json writes for the typed struct: Unmarshal
//     fills in absent fields ("creationTimestamp": null, "spec": {...}) and drops
//     empty omitempty ones, exactly as kube-apiserver's JSON of a protobuf-decoded
//     object looks.
//   - JSON fields the kind does not have are dropped by Marshal, as decoding JSON
//     into the typed struct drops them; protobuf cannot carry them. kind and
//     apiVersion travel in the envelope, not in the message.
//   - Time is {seconds=1, nanos=2} with seconds only, MicroTime keeps
//     microseconds, both empty when zero; Quantity is {string=1}; IntOrString is
//     {type=1, intVal=2, strVal=3}; RawExtension and FieldsV1 are {raw=1} holding
//     JSON (written as encoding/json writes the value: keys sorted, compact), and
//     so is apiextensions' JSON (a schema's default, enum and example); a
//     float64 is a fixed64; apiextensions' JSONSchemaPropsOrArray, OrBool and
//     OrStringArray are their messages, holding one of their two JSON forms.
//   - Errors name the JSON path of the field ("spec.replicas: expected an int32,
//     got string \"x\""); nothing here panics on bad input.
//
// Where the bytes can differ from kube-apiserver's for the same object:
//
//   - Marshal passes quantities through as they are. Stored objects hold them in
//     kube's canonical form ("0.5" → "500m", core/quantity: core/types'
//     decoders write them so), so what passes through is what kube writes.
//     Unmarshal writes them canonical, as kube's typed object does.
//   - RawExtension, FieldsV1 and apiextensions' JSON hold the JSON re-encoded from the object form,
//     keys sorted; kube keeps the bytes it was given (managedFields as
//     structured-merge-diff ordered them, which differs for keys such as
//     k:{"port":9} and k:{"port":10}).
//   - A pointer to a zero Time (an empty message) decodes as null and encodes
//     back as unset, as JSON cannot say otherwise (kube's JSON neither).
//   - When a special type's message (Time, Quantity, IntOrString, ...) appears
//     twice on the wire, the last one wins whole; gogo merges IntOrString's and
//     RawExtension's fields. No encoder writes that.
package protobuf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"kubeplay/core/object"
	"kubeplay/core/types"
)

// magic starts every enveloped protobuf object.
var magic = []byte("k8s\x00")

func lookup(apiVersion, kind string) (*types.Message, error) {
	if m := types.LookupProtobuf(apiVersion, kind); m != nil {
		return m, nil
	}
	return nil, fmt.Errorf("protobuf: no protobuf encoding for %s, Kind=%s", apiVersion, kind)
}

// Marshal appends the protobuf message of obj, an object of kind in apiVersion in
// JSON form, to dst: the bytes k8s.io/api's Marshal writes for the typed object
// that encoding/json decodes obj into.
func Marshal(dst []byte, apiVersion, kind string, obj object.Object) ([]byte, error) {
	m, err := lookup(apiVersion, kind)
	if err != nil {
		return nil, err
	}
	out, err := appendMessage(dst, m, obj)
	if err != nil {
		return nil, fmt.Errorf("protobuf: encoding %s: %w", kind, err)
	}
	return out, nil
}

// Unmarshal decodes raw, a protobuf message of kind in apiVersion, into its JSON
// form: what encoding/json writes for the typed object k8s.io/api's Unmarshal
// reads from raw, without kind and apiVersion.
func Unmarshal(apiVersion, kind string, raw []byte) (object.Object, error) {
	m, err := lookup(apiVersion, kind)
	if err != nil {
		return nil, err
	}
	obj := object.Object{}
	if err := decodeMessage(raw, m, obj); err != nil {
		return nil, fmt.Errorf("protobuf: decoding %s: %w", kind, err)
	}
	types.CompleteMessage(m, obj)
	return obj, nil
}

// AppendEnvelope appends the enveloped form of an object to dst: `k8s\x00` and a
// runtime.Unknown{typeMeta{apiVersion, kind}, raw, contentEncoding "",
// contentType ""}, as kube-apiserver's protobuf serializer writes it (raw, and the
// two empty strings, are always written).
func AppendEnvelope(dst []byte, apiVersion, kind string, raw []byte) []byte {
	dst = AppendEnvelopeHead(dst, apiVersion, kind, len(raw))
	return AppendEnvelopeTail(append(dst, raw...))
}

// AppendEnvelopeHead appends an envelope up to its raw message, which has n
// bytes: the caller writes the message and then AppendEnvelopeTail, so a large
// message can be streamed instead of copied.
func AppendEnvelopeHead(dst []byte, apiVersion, kind string, n int) []byte {
	dst = append(dst, magic...)
	typeMeta := protowire.SizeTag(1) + protowire.SizeBytes(len(apiVersion)) +
		protowire.SizeTag(2) + protowire.SizeBytes(len(kind))
	dst = protowire.AppendTag(dst, 1, protowire.BytesType)
	dst = protowire.AppendVarint(dst, uint64(typeMeta))
	dst = protowire.AppendTag(dst, 1, protowire.BytesType)
	dst = protowire.AppendString(dst, apiVersion)
	dst = protowire.AppendTag(dst, 2, protowire.BytesType)
	dst = protowire.AppendString(dst, kind)
	dst = protowire.AppendTag(dst, 2, protowire.BytesType)
	return protowire.AppendVarint(dst, uint64(n))
}

// AppendEnvelopeTail appends what follows the raw message in an envelope: the
// empty contentEncoding and contentType.
func AppendEnvelopeTail(dst []byte) []byte {
	dst = protowire.AppendTag(dst, 3, protowire.BytesType)
	dst = protowire.AppendString(dst, "")
	dst = protowire.AppendTag(dst, 4, protowire.BytesType)
	return protowire.AppendString(dst, "")
}

// ParseEnvelope reads an enveloped object: its apiVersion, kind and message.
// contentEncoding and contentType are read and ignored, as kube-apiserver does;
// unknown fields are skipped. raw aliases data.
func ParseEnvelope(data []byte) (apiVersion, kind string, raw []byte, err error) {
	if !bytes.HasPrefix(data, magic) {
		return "", "", nil, fmt.Errorf("provided data does not appear to be a protobuf message, expected prefix %v", magic)
	}
	var typeMeta []byte
	err = fields(data[len(magic):], "Unknown", []string{"TypeMeta", "Raw", "ContentEncoding", "ContentType"}, func(num protowire.Number, v []byte) {
		switch num {
		case 1:
			typeMeta = v
		case 2:
			raw = v
		}
	})
	if err == nil {
		err = fields(typeMeta, "TypeMeta", []string{"APIVersion", "Kind"}, func(num protowire.Number, v []byte) {
			switch num {
			case 1:
				apiVersion = string(v)
			case 2:
				kind = string(v)
			}
		})
	}
	if err != nil {
		return "", "", nil, err
	}
	return apiVersion, kind, raw, nil
}

// fields calls fn with each length-delimited field of message msg whose known
// fields, named in order by names, are all strings or bytes; other fields are
// skipped, and a known field of another wire type is an error. Errors are
// worded as gogo's generated Unmarshal, which kube reads with, words them.
func fields(data []byte, msg string, names []string, fn func(protowire.Number, []byte)) error {
	for len(data) > 0 {
		wire, n := protowire.ConsumeVarint(data)
		if n < 0 {
			return gogoError(n)
		}
		data = data[n:]
		num, typ := protowire.Number(wire>>3), protowire.Type(wire&7)
		switch {
		case typ == protowire.EndGroupType:
			return fmt.Errorf("proto: %s: wiretype end group for non-group", msg)
		case num <= 0:
			return fmt.Errorf("proto: %s: illegal tag %d (wire type %d)", msg, num, wire)
		case int(num) <= len(names) && typ != protowire.BytesType:
			return fmt.Errorf("proto: wrong wireType = %d for field %s", typ, names[num-1])
		case typ > protowire.Fixed32Type:
			return fmt.Errorf("proto: illegal wireType %d", typ)
		case typ != protowire.BytesType:
			if n = protowire.ConsumeFieldValue(num, typ, data); n < 0 {
				return gogoError(n)
			}
			data = data[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(data)
		if n < 0 {
			return gogoError(n)
		}
		fn(num, v)
		data = data[n:]
	}
	return nil
}

// gogoError words a protowire parse error as gogo's generated code does.
func gogoError(n int) error {
	switch err := protowire.ParseError(n); {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return io.ErrUnexpectedEOF
	case strings.Contains(err.Error(), "overflow"):
		return errors.New("proto: integer overflow")
	default:
		return err
	}
}

// AppendList appends a <Kind>List message to dst: listMeta (the list's metadata
// in JSON form) as field 1 and each of items, already-encoded item messages, as
// field 2. Every list kind has this shape (tools/protogen checks it), so one
// function serves them all and each item's encoding can be cached.
func AppendList(dst []byte, listMeta object.Object, items [][]byte) ([]byte, error) {
	dst, err := appendNested(dst, 1, types.Lookup("meta.k8s.io/v1", "ListMeta"), listMeta)
	if err != nil {
		return nil, fmt.Errorf("protobuf: encoding ListMeta: %w", err)
	}
	for _, item := range items {
		dst = append(AppendListItemHead(dst, len(item)), item...)
	}
	return dst, nil
}

// AppendListItemHead appends the field head of a list item of n bytes (field 2
// of every <Kind>List), for callers that stream the items.
func AppendListItemHead(dst []byte, n int) []byte {
	dst = protowire.AppendTag(dst, 2, protowire.BytesType)
	return protowire.AppendVarint(dst, uint64(n))
}

// AppendWatchEvent appends a metav1.WatchEvent message {type = 1, object = 2
// (RawExtension {raw = 1})} to dst. object is the event's object as an envelope
// (AppendEnvelope), as kube-apiserver embeds it.
//
// The protobuf watch stream is a sequence of frames (AppendFrame), each holding one
// WatchEvent message without envelope: kube-apiserver encodes the event with the
// raw protobuf serializer and the object inside it with the enveloping one, and
// client-go reads it back the same way (rest/watch.Decoder).
func AppendWatchEvent(dst []byte, eventType string, object []byte) []byte {
	dst = protowire.AppendTag(dst, 1, protowire.BytesType)
	dst = protowire.AppendString(dst, eventType)
	dst = protowire.AppendTag(dst, 2, protowire.BytesType)
	dst = protowire.AppendVarint(dst, uint64(protowire.SizeTag(1)+protowire.SizeBytes(len(object))))
	dst = protowire.AppendTag(dst, 1, protowire.BytesType)
	return protowire.AppendBytes(dst, object)
}

// ParseWatchEvent reads a WatchEvent message: its type and its object's raw bytes
// (an envelope when kube-apiserver wrote it). object aliases msg.
func ParseWatchEvent(msg []byte) (eventType string, object []byte, err error) {
	var raw []byte
	err = fields(msg, "WatchEvent", []string{"Type", "Object"}, func(num protowire.Number, v []byte) {
		switch num {
		case 1:
			eventType = string(v)
		case 2:
			raw = v
		}
	})
	if err == nil {
		err = fields(raw, "RawExtension", []string{"Raw"}, func(num protowire.Number, v []byte) {
			if num == 1 {
				object = v
			}
		})
	}
	if err != nil {
		return "", nil, fmt.Errorf("protobuf: decoding a WatchEvent: %w", err)
	}
	return eventType, object, nil
}

// AppendFrame appends one length-delimited frame to dst: the length of msg as
// 4 bytes big-endian, then msg (k8s.io/apimachinery's LengthDelimitedFramer).
func AppendFrame(dst, msg []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(msg)))
	return append(dst, msg...)
}

// ErrShortFrame is returned by SplitFrame when data does not yet hold a whole frame.
var ErrShortFrame = errors.New("protobuf: incomplete frame")

// SplitFrame takes the first length-delimited frame off data: its message and the
// bytes after it. Both alias data.
func SplitFrame(data []byte) (msg, rest []byte, err error) {
	if len(data) < 4 {
		return nil, data, ErrShortFrame
	}
	n := binary.BigEndian.Uint32(data)
	if uint64(len(data)-4) < uint64(n) {
		return nil, data, ErrShortFrame
	}
	return data[4 : 4+n], data[4+n:], nil
}

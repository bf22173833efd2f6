package encoding

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"sync"

	"github.com/fxamacker/cbor/v2"
)

// SelfDescribedCBOR is the head of CBOR tag 55799, which kube-apiserver puts in
// front of every CBOR document it writes and uses to recognize CBOR.
var SelfDescribedCBOR = []byte{0xd9, 0xd9, 0xf7}

// The CBOR modes follow kube-apiserver's (k8s.io/apimachinery's
// serializer/cbor/internal/modes): strings and map keys are written as byte
// strings, maps in bytewise-lexical key order, floats in their shortest form;
// decoding rejects duplicate map keys, invalid UTF-8, NaN and infinities,
// bignums, undefined simple values and nesting past 64 levels, and reads byte
// strings as strings — a byte string tagged "expected base64" (how clients
// write []byte fields such as ConfigMap binaryData) as its base64 text, so the
// object's JSON form is the same whichever media it arrived in. They are built
// on first use, not at start: every instant of start-up delays a browser
// host's first answer.
var (
	cborEncode = sync.OnceValue(func() cbor.EncMode {
		return mustEncMode(cbor.EncOptions{
			Sort:          cbor.SortBytewiseLexical,
			ShortestFloat: cbor.ShortestFloat16,
			NaNConvert:    cbor.NaNConvertReject,
			InfConvert:    cbor.InfConvertReject,
			BigIntConvert: cbor.BigIntConvertReject,
			IndefLength:   cbor.IndefLengthForbidden,
			NilContainers: cbor.NilContainerAsNull,
			TagsMd:        cbor.TagsAllowed,
			String:        cbor.StringToByteString,
			FieldName:     cbor.FieldNameToByteString,
		})
	})
	// cborDecodeTyped reads a document as kube's typed decoding sees it:
	// byte strings apart from text strings, integers of any size.
	cborDecodeTyped = sync.OnceValue(func() cbor.DecMode {
		o := cborDecode().DecOptions()
		o.IntDec = cbor.IntDecConvertNone
		o.DefaultByteStringType = reflect.TypeOf(ByteString(""))
		return mustDecMode(o)
	})
	cborDecode = sync.OnceValue(func() cbor.DecMode {
		return mustDecMode(cbor.DecOptions{
			DupMapKey:                cbor.DupMapKeyEnforcedAPF,
			TimeTag:                  cbor.DecTagOptional,
			MaxNestedLevels:          64,
			MaxArrayElements:         1024,
			MaxMapPairs:              1024,
			IndefLength:              cbor.IndefLengthAllowed,
			TagsMd:                   cbor.TagsAllowed,
			IntDec:                   cbor.IntDecConvertSignedOrFail,
			MapKeyByteString:         cbor.MapKeyByteStringForbidden,
			DefaultMapType:           reflect.TypeOf(map[string]any(nil)),
			UTF8:                     cbor.UTF8RejectInvalid,
			DefaultByteStringType:    reflect.TypeOf(""),
			ByteStringToString:       cbor.ByteStringToStringAllowedWithExpectedLaterEncoding,
			ByteStringExpectedFormat: cbor.ByteStringExpectedBase64,
			FieldNameByteString:      cbor.FieldNameByteStringAllowed,
			UnrecognizedTagToAny:     cbor.UnrecognizedTagContentToAny,
			TimeTagToAny:             cbor.TimeTagToRFC3339Nano,
			NaN:                      cbor.NaNDecodeForbidden,
			Inf:                      cbor.InfDecodeForbidden,
			BignumTag:                cbor.BignumTagForbidden,
			SimpleValues:             cborSimpleValues(),
		})
	})
)

func mustEncMode(o cbor.EncOptions) cbor.EncMode {
	m, err := o.EncMode()
	if err != nil {
		panic(err)
	}
	return m
}

func mustDecMode(o cbor.DecOptions) cbor.DecMode {
	m, err := o.DecMode()
	if err != nil {
		panic(err)
	}
	return m
}

// cborSimpleValues accepts only false, true and null (and the reserved values
// the format itself rejects).
func cborSimpleValues() *cbor.SimpleValueRegistry {
	var opts []func(*cbor.SimpleValueRegistry) error
	for sv := 0; sv <= 255; sv++ {
		switch {
		case sv >= 20 && sv <= 22, sv >= 24 && sv <= 31:
		default:
			opts = append(opts, cbor.WithRejectedSimpleValue(cbor.SimpleValue(sv)))
		}
	}
	r, err := cbor.NewSimpleValueRegistryFromDefaults(opts...)
	if err != nil {
		panic(err)
	}
	return r
}

// AppendCBOR appends doc — a value in core/object's form (maps, slices,
// json.Number, strings, bools, nil) — as a self-described CBOR document.
func AppendCBOR(dst []byte, doc any) ([]byte, error) {
	b, err := MarshalCBOR(doc)
	if err != nil {
		return dst, err
	}
	return append(append(dst, SelfDescribedCBOR...), b...), nil
}

// MarshalCBOR encodes doc as one CBOR data item without the self-described
// tag: as it sits inside another document.
func MarshalCBOR(doc any) ([]byte, error) {
	v, err := toCBORValue(doc)
	if err != nil {
		return nil, err
	}
	return cborEncode().Marshal(v)
}

// CBORListFrame is a self-described <Kind>List of n items around them: the
// bytes before the first item and after the last. The items go in between as
// MarshalCBOR encodes them, so that their encodings can be cached and streamed;
// the whole is what AppendCBOR writes for the list.
func CBORListFrame(kind, apiVersion string, meta map[string]any, n int) (head, tail []byte, err error) {
	m, err := MarshalCBOR(meta)
	if err != nil {
		return nil, nil, err
	}
	// Keys in bytewise-lexical order of their encodings, as cborEncode sorts
	// them: shorter byte strings first.
	head = append(head, SelfDescribedCBOR...)
	head = appendCBORHead(head, cborMap, 4)
	head = appendCBORBytes(appendCBORBytes(head, "kind"), kind)
	head = appendCBORHead(appendCBORBytes(head, "items"), cborArray, uint64(n))
	tail = append(appendCBORBytes(nil, "metadata"), m...)
	tail = appendCBORBytes(appendCBORBytes(tail, "apiVersion"), apiVersion)
	return head, tail, nil
}

// CBOR major types.
const (
	cborByteString = 2 << 5
	cborArray      = 4 << 5
	cborMap        = 5 << 5
)

// appendCBORHead appends the head of a data item of a major type with argument n.
func appendCBORHead(dst []byte, major byte, n uint64) []byte {
	switch {
	case n < 24:
		return append(dst, major|byte(n))
	case n <= math.MaxUint8:
		return append(dst, major|24, byte(n))
	case n <= math.MaxUint16:
		return append(dst, major|25, byte(n>>8), byte(n))
	case n <= math.MaxUint32:
		return append(dst, major|26, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(dst, major|27, byte(n>>56), byte(n>>48), byte(n>>40), byte(n>>32), byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

// appendCBORBytes appends s as a byte string, as kube writes strings.
func appendCBORBytes(dst []byte, s string) []byte {
	return append(appendCBORHead(dst, cborByteString, uint64(len(s))), s...)
}

// toCBORValue turns json.Numbers into integers (or floats when they have a
// fraction or exponent), as kube's typed and unstructured objects hold them.
func toCBORValue(v any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			cv, err := toCBORValue(x)
			if err != nil {
				return nil, err
			}
			out[k] = cv
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			cv, err := toCBORValue(x)
			if err != nil {
				return nil, err
			}
			out[i] = cv
		}
		return out, nil
	case json.Number:
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return i, nil
		}
		if u, err := strconv.ParseUint(string(v), 10, 64); err == nil {
			return u, nil
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return nil, fmt.Errorf("number %s cannot be represented in CBOR", v)
		}
		return f, nil
	}
	return v, nil
}

// errNotCBORObject is returned for a CBOR document that is null.
var errNotCBORObject = errors.New("the CBOR document is not a map")

// DecodeCBOR reads one CBOR document (with or without the self-described tag)
// into core/object's form, numbers as json.Number. A document that is not a
// map is an error worded as kube's (the CBOR library's); so are trailing bytes.
func DecodeCBOR(data []byte) (map[string]any, error) {
	var m map[string]any
	if err := cborDecode().Unmarshal(data, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errNotCBORObject
	}
	out, err := fromCBORValue(m)
	if err != nil {
		return nil, err
	}
	return out.(map[string]any), nil
}

// ByteString is a CBOR byte string as DecodeCBORValue reads it: its bytes, or
// for one tagged as expected to be written as base64 later, that base64 text.
type ByteString string

// DecodeCBORValue reads one CBOR document of any kind (with or without the
// self-described tag) as kube's typed decoding sees it: maps with string keys,
// arrays, text strings as string, byte strings as ByteString, integers as
// int64 (negative) or uint64, floats as float64, bools and nil.
func DecodeCBORValue(data []byte) (any, error) {
	var v any
	if err := cborDecodeTyped().Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// CBORNestedDuplicate says err, DecodeCBORValue's error for data, is a key
// given twice in a map below the top one. kube reads the top level of a body
// first, for its kind, which sees duplicates there only; its typed decoding
// then names a nested one as an object it cannot handle.
func CBORNestedDuplicate(data []byte, err error) bool {
	var dup *cbor.DupMapKeyError
	if !errors.As(err, &dup) {
		return false
	}
	var top map[string]cbor.RawMessage
	return cborDecodeTyped().Unmarshal(data, &top) == nil
}

// CBORToObject turns a value DecodeCBORValue read into core/object's form, as
// DecodeCBOR reads it.
func CBORToObject(v any) (any, error) { return fromCBORValue(v) }

func fromCBORValue(v any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			cv, err := fromCBORValue(x)
			if err != nil {
				return nil, err
			}
			v[k] = cv
		}
		return v, nil
	case []any:
		for i, x := range v {
			cv, err := fromCBORValue(x)
			if err != nil {
				return nil, err
			}
			v[i] = cv
		}
		return v, nil
	case int64:
		return json.Number(strconv.FormatInt(v, 10)), nil
	case uint64:
		return json.Number(strconv.FormatUint(v, 10)), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errors.New("CBOR floats must be finite")
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return json.Number(b), nil
	case cbor.Tag:
		return nil, fmt.Errorf("unsupported CBOR tag %d", v.Number)
	case []byte:
		return string(v), nil
	case ByteString:
		return string(v), nil
	}
	return v, nil
}

// AppendCBORWatchEvent appends one item of an application/cbor-seq watch: a
// self-described map {"type": typ, "object": obj}, where obj is the event's
// object already in CBOR.
func AppendCBORWatchEvent(dst []byte, typ string, obj []byte) ([]byte, error) {
	b, err := cborEncode().Marshal(map[string]any{"type": typ, "object": cbor.RawMessage(obj)})
	if err != nil {
		return dst, err
	}
	return append(append(dst, SelfDescribedCBOR...), b...), nil
}

// SplitCBORSequence takes the first data item off a CBOR sequence (a watch in
// application/cbor-seq): the item and the bytes after it.
func SplitCBORSequence(data []byte) (item, rest []byte, err error) {
	var raw cbor.RawMessage
	rest, err = cborDecode().UnmarshalFirst(data, &raw)
	if err != nil {
		return nil, data, err
	}
	return data[:len(data)-len(rest)], rest, nil
}
